"""EvaluateJsonPath: evaluates JSONPath expressions (dynamic properties) against JSON
content, into attributes or as the new content.

Follows NiFi's EvaluateJsonPath, with the JSONPath engine the Expression Language uses
(Jayway's semantics: a definite path that matches nothing is "not found", an indefinite
one gives a list, possibly empty). Return Type auto-detect is json for flowfile-content
and scalar for flowfile-attribute; a scalar return type with an object or array result
sends the FlowFile to failure. Scalars print as Java prints them; objects and arrays as
compact JSON; JSON null as the Null Value Representation. Not found: with
flowfile-attribute the attribute is set empty (ignore, warn: logged) or omitted (skip);
with flowfile-content the FlowFile goes to unmatched. Content that is not JSON, or that
has a string longer than Max String Length, goes to failure.
"""

from __future__ import annotations

import json
import re
from typing import Any

from flowcore.el.jsonpath import (
    JsonPath,
    PathFailed,
    compile_path,
    to_json_text,
    without_lone_surrogates,
)
from flowcore.el.values import java_double_str
from flowcore.errors import ExpressionError
from flowcore.model import FlowFile
from flowcore.processor import (
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    ValidationResult,
    processor,
    validators,
)
from flowcore.session import ProcessSession

_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")

DESTINATION_ATTRIBUTE = "flowfile-attribute"
DESTINATION_CONTENT = "flowfile-content"
RETURN_TYPE_AUTO = "auto-detect"
RETURN_TYPE_JSON = "json"
RETURN_TYPE_SCALAR = "scalar"
PATH_NOT_FOUND_IGNORE = "ignore"
PATH_NOT_FOUND_WARN = "warn"
PATH_NOT_FOUND_SKIP = "skip"
EMPTY_STRING_OPTION = "empty string"
NULL_STRING_OPTION = "the string 'null'"

DESTINATION = PropertyDescriptor(
    name="Destination",
    display_name="Destination",
    description="Indicates whether the results of the JsonPath evaluation are written to the "
    "FlowFile content or a FlowFile attribute; if using attribute, must specify the Attribute "
    "Name property. If set to flowfile-content, only one JsonPath may be specified, and the "
    "property name is ignored.",
    default=DESTINATION_CONTENT,
    required=True,
    allowable_values=[DESTINATION_CONTENT, DESTINATION_ATTRIBUTE],
)
RETURN_TYPE = PropertyDescriptor(
    name="Return Type",
    display_name="Return Type",
    description="Indicates the desired return type of the JSON Path expressions. Selecting "
    "'auto-detect' will set the return type to 'json' for a Destination of 'flowfile-content', "
    "and 'scalar' for a Destination of 'flowfile-attribute'.",
    default=RETURN_TYPE_AUTO,
    required=True,
    allowable_values=[RETURN_TYPE_AUTO, RETURN_TYPE_JSON, RETURN_TYPE_SCALAR],
)
PATH_NOT_FOUND = PropertyDescriptor(
    name="Path Not Found Behavior",
    display_name="Path Not Found Behavior",
    description="Indicates how to handle missing JSON path expressions when destination is "
    "set to 'flowfile-attribute'. Selecting 'warn' will generate a warning when a JSON path "
    "expression is not found. Selecting 'skip' will omit attributes for any unmatched JSON "
    "path expressions.",
    default=PATH_NOT_FOUND_IGNORE,
    required=True,
    allowable_values=[PATH_NOT_FOUND_WARN, PATH_NOT_FOUND_IGNORE, PATH_NOT_FOUND_SKIP],
)
NULL_VALUE_REPRESENTATION = PropertyDescriptor(
    name="Null Value Representation",
    display_name="Null Value Representation",
    description="Indicates the desired representation of JSON Path expressions resulting in "
    "a null value.",
    default=EMPTY_STRING_OPTION,
    required=True,
    allowable_values=[EMPTY_STRING_OPTION, NULL_STRING_OPTION],
)
MAX_STRING_LENGTH = PropertyDescriptor(
    name="Max String Length",
    display_name="Max String Length",
    description="The maximum allowed length of a string value when parsing the JSON document",
    default="20 MB",
    required=True,
    validators=[validators.data_size],
)

MATCHED = Relationship(
    "matched",
    "FlowFiles are routed to this relationship when the JsonPath is successfully evaluated "
    "and the FlowFile is modified as a result",
)
UNMATCHED = Relationship(
    "unmatched",
    "FlowFiles are routed to this relationship when the JsonPath does not match the content "
    "of the FlowFile and the Destination is set to flowfile-content",
)
FAILURE = Relationship(
    "failure",
    "FlowFiles are routed to this relationship when the JsonPath cannot be evaluated against "
    "the content of the FlowFile; for instance, if the FlowFile is not valid JSON",
)


class InvalidJson(Exception):
    """The content is not a JSON document (or breaks Max String Length)."""


class PathNotFound(Exception):
    """A definite path matched nothing."""


def json_path_validator(subject: str, value: str) -> ValidationResult:
    """NiFi's JsonPathValidator."""
    if not value.strip():
        return ValidationResult(subject, False, value, "the expression cannot be empty.")
    try:
        compile_path(value)
    except ExpressionError:
        return ValidationResult(
            subject, False, value, f"specified expression was not valid: {value}"
        )
    return ValidationResult(subject, True, value)


def _longest_string(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return max([0, *(max(len(k), _longest_string(v)) for k, v in value.items())])
    if isinstance(value, list):
        return max([0, *(_longest_string(v) for v in value)])
    return 0


def parse_json(data: bytes, max_string_length: int) -> Any:
    """The document; ``InvalidJson`` if it is none or has too long a string."""
    try:
        document = json.loads(data)
    except (ValueError, UnicodeError) as exc:
        raise InvalidJson(str(exc)) from None
    if _SURROGATE_ESCAPE.search(data) or b"\x00" in data[:4]:  # (UTF-16 or -32 JSON)
        document = without_lone_surrogates(document)  # "\ud800" alone: "?", as NiFi writes it
    if len(data) > max_string_length and _longest_string(document) > max_string_length:
        msg = f"a string is longer than the Max String Length ({max_string_length})"
        raise InvalidJson(msg)
    return document


def read_path(path: JsonPath, document: Any) -> Any:
    """Jayway's ``read``: one value for a definite path (``PathNotFound`` if none), a list
    for an indefinite one. Below a scalar document (``null``, ``1``) nothing is found."""
    if not isinstance(document, dict | list) and path.text.strip() != "$":
        raise PathNotFound(path.text)
    try:
        matches = path.matches(document)
    except PathFailed as exc:
        raise PathNotFound(str(exc)) from None
    if path.definite:
        if not matches:
            raise PathNotFound(path.text)
        return matches[0].value
    return [match.value for match in matches]


def is_scalar(value: Any) -> bool:
    return not isinstance(value, dict | list)


def representation(value: Any, null_value: str) -> str:
    """``getResultRepresentation``: scalars as Java's toString, the rest as JSON."""
    if value is None:
        return null_value
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return java_double_str(value)
    if isinstance(value, dict | list):
        return to_json_text(value)
    return str(value)


def null_value(context: ProcessContext) -> str:
    option = context.get_property(NULL_VALUE_REPRESENTATION).as_str()
    return "null" if option == NULL_STRING_OPTION else ""


@processor("EvaluateJsonPath")
class EvaluateJsonPath(Processor):
    description = (
        "Evaluates one or more JsonPath expressions against the content of a FlowFile. The "
        "results of those expressions are assigned to FlowFile Attributes or are written to "
        "the content of the FlowFile itself, depending on configuration of the Destination "
        "property."
    )
    tags = ("JSON", "evaluate", "JsonPath")
    property_descriptors = (
        DESTINATION,
        RETURN_TYPE,
        PATH_NOT_FOUND,
        NULL_VALUE_REPRESENTATION,
        MAX_STRING_LENGTH,
    )
    relationships = (MATCHED, UNMATCHED, FAILURE)
    supports_dynamic_properties = True

    def __init__(self) -> None:
        super().__init__()
        self._paths: list[tuple[str, JsonPath]] = []

    def get_dynamic_property_descriptor(self, name: str) -> PropertyDescriptor | None:
        return PropertyDescriptor(
            name=name,
            display_name=name,
            description="A JsonPath expression; its result goes to the attribute of the "
            "property's name (or to the content)",
            dynamic=True,
            validators=[json_path_validator],
        )

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        to_content = context.get_property(DESTINATION).as_str() == DESTINATION_CONTENT
        if to_content and len(context.dynamic_properties()) != 1:
            return [
                ValidationResult(
                    "JsonPaths",
                    False,
                    None,
                    "Exactly one JsonPath must be set if using destination of "
                    + DESTINATION_CONTENT,
                )
            ]
        return []

    def on_scheduled(self, context: ProcessContext) -> None:
        self._paths = [
            (name, compile_path(value)) for name, value in context.dynamic_properties().items()
        ]

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        to_attribute = context.get_property(DESTINATION).as_str() == DESTINATION_ATTRIBUTE
        return_type = context.get_property(RETURN_TYPE).as_str()
        if return_type == RETURN_TYPE_AUTO:
            return_type = RETURN_TYPE_SCALAR if to_attribute else RETURN_TYPE_JSON
        not_found = context.get_property(PATH_NOT_FOUND).as_str()
        null_text = null_value(context)
        limit = context.get_property(MAX_STRING_LENGTH).as_data_size() or 0
        try:
            document = parse_json(session.read(flowfile), limit)
        except InvalidJson as exc:
            self.logger.error("FlowFile %s did not have valid JSON content: %s", flowfile.uuid, exc)
            session.transfer(flowfile, FAILURE)
            return
        results: dict[str, str] = {}
        for name, path in self._paths:
            try:
                result = read_path(path, document)
            except PathNotFound:
                if not_found == PATH_NOT_FOUND_WARN:
                    self.logger.warning(
                        "FlowFile %s could not find path %s for attribute key %s.",
                        flowfile.uuid,
                        path.text,
                        name,
                    )
                if not to_attribute:
                    session.transfer(flowfile, UNMATCHED)
                    return
                if not_found != PATH_NOT_FOUND_SKIP:
                    results[name] = ""
                continue
            if return_type == RETURN_TYPE_SCALAR and not is_scalar(result):
                self.logger.error(
                    "Unable to return a scalar value for the expression %s for FlowFile %s. "
                    "Transferring to failure.",
                    path.text,
                    flowfile.uuid,
                )
                session.transfer(flowfile, FAILURE)
                return
            text = representation(result, null_text)
            if to_attribute:
                results[name] = text
            else:
                flowfile = self._write(session, flowfile, text, path)
        if results:
            flowfile = session.put_all_attributes(flowfile, results)
        session.transfer(flowfile, MATCHED)

    @staticmethod
    def _write(session: ProcessSession, flowfile: FlowFile, text: str, path: JsonPath) -> FlowFile:
        flowfile = session.write(flowfile, text.encode("utf-8"))
        session.provenance.modify_content(
            flowfile, details=f"Replaced content with result of expression {path.text}"
        )
        return flowfile
