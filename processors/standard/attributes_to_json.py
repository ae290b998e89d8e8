"""AttributesToJSON: writes a FlowFile's attributes as a JSON object, into the
``JSONAttributes`` attribute or as the content.

Follows NiFi's AttributesToJSON: with neither Attributes List nor Attributes Regular
Expression every attribute is written (without the core attributes when Include Core
Attributes is false); otherwise the listed attributes (a missing one as "" or, with Null
Value, null) then those whose name matches the expression. With the Nested JSON Handling
Strategy a value that looks like a JSON object or array is written as JSON; one that does
not parse sends the FlowFile to failure. Content destination sets ``mime.type`` to
``application/json``; Pretty Print follows Jackson's default pretty printer. Keys are in
the order of the list, then of the FlowFile's attributes (NiFi's order is a hash
order).
"""

from __future__ import annotations

import json
import os
from typing import Any

from flowcore.el import compile_expression
from flowcore.el.regex import Pattern, java_regex
from flowcore.processor import (
    AllowableValue,
    ExpressionLanguageScope,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    ValidationResult,
    processor,
    validators,
)
from flowcore.session import ProcessSession

JSON_ATTRIBUTE_NAME = "JSONAttributes"
DESTINATION_ATTRIBUTE = "flowfile-attribute"
DESTINATION_CONTENT = "flowfile-content"
ESCAPED = "ESCAPED"
NESTED = "NESTED"
CORE_ATTRIBUTES = frozenset(
    {
        "path",
        "filename",
        "absolute.path",
        "uuid",
        "priority",
        "mime.type",
        "discard.reason",
        "alternate.identifier",
    }
)


def _regex(subject: str, value: str) -> ValidationResult:
    if "${" in value:
        return ValidationResult(subject, True, value)
    return validators.java_regular_expression(subject, value)


ATTRIBUTES_LIST = PropertyDescriptor(
    name="Attributes List",
    display_name="Attributes List",
    description="Comma separated list of attributes to be included in the resulting JSON. If "
    "this value is left empty then all existing Attributes will be included. This list of "
    "attributes is case sensitive. If an attribute specified in the list is not found it "
    "will be be emitted to the resulting JSON with an empty string or NULL value.",
    validators=[validators.non_empty],
)
ATTRIBUTES_REGEX = PropertyDescriptor(
    name="Attributes Regular Expression",
    display_name="Attributes Regular Expression",
    description="Regular expression that will be evaluated against the flow file attributes "
    "to select the matching attributes. This property can be used in combination with the "
    "attributes list property.",
    validators=[validators.non_empty, _regex],
    expression_language_scope=ExpressionLanguageScope.ENVIRONMENT,
)
DESTINATION = PropertyDescriptor(
    name="Destination",
    display_name="Destination",
    description="Control if JSON value is written as a new FlowFile attribute "
    "'JSONAttributes' or written in the FlowFile content. Writing to FlowFile content will "
    "overwrite any existing FlowFile content.",
    default=DESTINATION_ATTRIBUTE,
    required=True,
    allowable_values=[DESTINATION_ATTRIBUTE, DESTINATION_CONTENT],
)
INCLUDE_CORE_ATTRIBUTES = PropertyDescriptor(
    name="Include Core Attributes",
    display_name="Include Core Attributes",
    description="Determines if the FlowFile core attributes which are contained in every "
    "FlowFile should be included in the final JSON value generated.",
    default="true",
    required=True,
    allowable_values=["true", "false"],
)
NULL_VALUE = PropertyDescriptor(
    name="Null Value",
    display_name="Null Value",
    description="If true a non existing selected attribute will be NULL in the resulting "
    "JSON. If false an empty string will be placed in the JSON",
    default="false",
    required=True,
    allowable_values=["true", "false"],
)
JSON_HANDLING_STRATEGY = PropertyDescriptor(
    name="JSON Handling Strategy",
    display_name="JSON Handling Strategy",
    description="Strategy to use for handling attributes which contain nested JSON.",
    default=ESCAPED,
    required=True,
    allowable_values=[
        AllowableValue(ESCAPED, "Escaped", "Escapes JSON attribute values to strings"),
        AllowableValue(
            NESTED, "Nested", "Handles JSON attribute values as nested structured objects or arrays"
        ),
    ],
)
PRETTY_PRINT = PropertyDescriptor(
    name="Pretty Print",
    display_name="Pretty Print",
    description="Apply pretty print formatting to the output.",
    default="false",
    required=True,
    allowable_values=["true", "false"],
)

SUCCESS = Relationship("success", "Successfully converted attributes to JSON")
FAILURE = Relationship("failure", "Failed to convert attributes to JSON")


def jackson_compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def jackson_pretty(value: Any, indent: str = "") -> str:
    """Jackson's DefaultPrettyPrinter: two-space objects, ``"key" : value``, ``[ a, b ]``."""
    if isinstance(value, dict):
        if not value:
            return "{ }"
        inner = indent + "  "
        items = [
            f"{inner}{json.dumps(k, ensure_ascii=False)} : {jackson_pretty(v, inner)}"
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list):
        if not value:
            return "[ ]"
        return "[ " + ", ".join(jackson_pretty(v, indent) for v in value) + " ]"
    return json.dumps(value, ensure_ascii=False)


@processor("AttributesToJSON")
class AttributesToJSON(Processor):
    description = (
        "Generates a JSON representation of the input FlowFile Attributes. The resulting "
        "JSON can be written to either a new Attribute 'JSONAttributes' or written to the "
        "FlowFile as content."
    )
    tags = ("json", "attributes", "flowfile")
    property_descriptors = (
        ATTRIBUTES_LIST,
        ATTRIBUTES_REGEX,
        DESTINATION,
        INCLUDE_CORE_ATTRIBUTES,
        NULL_VALUE,
        JSON_HANDLING_STRATEGY,
        PRETTY_PRINT,
    )
    relationships = (SUCCESS, FAILURE)

    def __init__(self) -> None:
        super().__init__()
        self._names: list[str] | None = None
        self._pattern: Pattern | None = None

    def on_scheduled(self, context: ProcessContext) -> None:
        listed = context.get_property(ATTRIBUTES_LIST).as_str()
        names = [name.strip() for name in listed.split(",") if name.strip()]
        self._names = list(dict.fromkeys(names)) or None
        expression = context.get_property(ATTRIBUTES_REGEX).value
        self._pattern = None
        if expression:
            text = compile_expression(expression).evaluate({}, env=os.environ)
            self._pattern = java_regex(text)

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        attributes = flowfile.attributes
        selected: dict[str, Any] = {}
        if self._names is not None or self._pattern is not None:
            null = context.get_property(NULL_VALUE).as_bool()
            for name in self._names or ():
                value = attributes.get(name)
                selected[name] = value if value is not None or null else ""
            if self._pattern is not None:
                for name, value in attributes.items():
                    if self._pattern.fullmatch(name):
                        selected[name] = value
        else:
            core = not context.get_property(INCLUDE_CORE_ATTRIBUTES).as_bool()
            selected = {k: v for k, v in attributes.items() if not (core and k in CORE_ATTRIBUTES)}
        if context.get_property(JSON_HANDLING_STRATEGY).as_str() == NESTED:
            try:
                selected = {k: _nested(v) for k, v in selected.items()}
            except ValueError as exc:
                self.logger.error(
                    "Could not read an attribute of %s as JSON, expecting an object or array: %s",
                    flowfile.uuid,
                    exc,
                )
                session.transfer(flowfile, FAILURE)
                return
        if context.get_property(DESTINATION).as_str() == DESTINATION_CONTENT:
            pretty = context.get_property(PRETTY_PRINT).as_bool()
            text = jackson_pretty(selected) if pretty else jackson_compact(selected)
            flowfile = session.write(flowfile, text.encode("utf-8"))
            flowfile = session.put_attribute(flowfile, "mime.type", "application/json")
        else:
            flowfile = session.put_attribute(
                flowfile, JSON_ATTRIBUTE_NAME, jackson_compact(selected)
            )
        session.transfer(flowfile, SUCCESS)


def _nested(value: Any) -> Any:
    if isinstance(value, str):
        trimmed = value.strip()
        if (trimmed.startswith("[") and trimmed.endswith("]")) or (
            trimmed.startswith("{") and trimmed.endswith("}")
        ):
            return json.loads(trimmed)
    return value
