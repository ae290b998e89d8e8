"""SplitJson: splits the JSON array a JsonPath expression selects into one FlowFile per
element.

Follows NiFi's SplitJson: each split is a child of the original (a FORK) holding the
element as compact JSON (a scalar as Java prints it, JSON null as the Null Value
Representation), with ``fragment.identifier``, ``fragment.index`` (0-based, as NiFi's),
``fragment.count`` and ``segment.original.filename``; the original goes to original with
``fragment.identifier`` and ``fragment.count``. Content that is not JSON, a path that is
not found, or a result that is not an array sends the original to failure and nothing
else is emitted.
"""

from __future__ import annotations

import uuid

from flowcore.el.jsonpath import JsonPath, compile_path
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
from processors.standard.evaluate_json_path import (
    MAX_STRING_LENGTH,
    NULL_VALUE_REPRESENTATION,
    InvalidJson,
    PathNotFound,
    json_path_validator,
    null_value,
    parse_json,
    read_path,
    representation,
)

FRAGMENT_ID = "fragment.identifier"
FRAGMENT_INDEX = "fragment.index"
FRAGMENT_COUNT = "fragment.count"
SEGMENT_ORIGINAL_FILENAME = "segment.original.filename"

JSON_PATH_EXPRESSION = PropertyDescriptor(
    name="JsonPath Expression",
    display_name="JsonPath Expression",
    description="A JsonPath expression that indicates the array element to split into "
    "JSON/scalar fragments.",
    required=True,
    validators=[validators.non_empty],
)

ORIGINAL = Relationship(
    "original",
    "The original FlowFile that was split into segments. If the FlowFile fails processing, "
    "nothing will be sent to this relationship",
)
SPLIT = Relationship(
    "split", "All segments of the original FlowFile will be routed to this relationship"
)
FAILURE = Relationship(
    "failure",
    "If a FlowFile fails processing for any reason (for example, the FlowFile is not valid "
    "JSON or the specified path does not exist), it will be routed to this relationship",
)


@processor("SplitJson")
class SplitJson(Processor):
    description = (
        "Splits a JSON File into multiple, separate FlowFiles for an array element specified "
        "by a JsonPath expression. Each generated FlowFile is comprised of an element of the "
        "specified array and transferred to relationship 'split,' with the original file "
        "transferred to the 'original' relationship. If the specified JsonPath is not found "
        "or does not evaluate to an array element, the original file is routed to 'failure' "
        "and no files are generated."
    )
    tags = ("json", "split", "jsonpath")
    property_descriptors = (JSON_PATH_EXPRESSION, NULL_VALUE_REPRESENTATION, MAX_STRING_LENGTH)
    relationships = (ORIGINAL, SPLIT, FAILURE)

    def __init__(self) -> None:
        super().__init__()
        self._path: JsonPath | None = None

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        value = context.get_property(JSON_PATH_EXPRESSION).value
        if value is None:
            return []
        result = json_path_validator(JSON_PATH_EXPRESSION.label, value)
        return [] if result.valid else [result]

    def on_scheduled(self, context: ProcessContext) -> None:
        self._path = compile_path(context.get_property(JSON_PATH_EXPRESSION).as_str())

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        original = session.get()
        if original is None:
            return
        assert self._path is not None
        limit = context.get_property(MAX_STRING_LENGTH).as_data_size() or 0
        try:
            document = parse_json(session.read(original), limit)
            result = read_path(self._path, document)
        except InvalidJson:
            self.logger.error("FlowFile %s did not have valid JSON content.", original.uuid)
            session.transfer(original, FAILURE)
            return
        except PathNotFound:
            self.logger.warning(
                "JsonPath %s could not be found for FlowFile %s", self._path.text, original.uuid
            )
            session.transfer(original, FAILURE)
            return
        if not isinstance(result, list):
            self.logger.error(
                "The evaluated value of %s was not a JSON Array compatible type and cannot be "
                "split.",
                self._path.text,
            )
            session.transfer(original, FAILURE)
            return
        null_text = null_value(context)
        fragment_id = str(uuid.uuid4())
        count = str(len(result))
        for index, element in enumerate(result):
            split = session.create(original)
            split = session.write(split, representation(element, null_text).encode("utf-8"))
            split = session.put_all_attributes(
                split,
                {
                    FRAGMENT_ID: fragment_id,
                    FRAGMENT_COUNT: count,
                    FRAGMENT_INDEX: str(index),
                    SEGMENT_ORIGINAL_FILENAME: split.attributes.get("filename", ""),
                },
            )
            session.transfer(split, SPLIT)
        original = session.put_all_attributes(
            original, {FRAGMENT_ID: fragment_id, FRAGMENT_COUNT: count}
        )
        session.transfer(original, ORIGINAL)
