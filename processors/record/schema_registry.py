"""AvroSchemaRegistry: named Avro schemas, one per dynamic property, for the record services
whose Schema Access Strategy is "Use 'Schema Name' Property".

As NiFi's: a property's name is the schema's name and its value the Avro schema text. The
schemas are checked when the service is validated; with Validate Field Names true (the
default) every name (records, enums, fixed, namespaces, fields, enum symbols) must be an
Avro name and every default must fit its type, with false neither is checked, as Avro's
parser without validation. A schema is looked up by name only: a Schema Branch or Schema
Version given with it is ignored.
"""

from __future__ import annotations

import re
from typing import Any

from flowcore.processor import (
    ControllerService,
    ExpressionLanguageScope,
    ProcessContext,
    PropertyDescriptor,
    ValidationResult,
    controller_service,
    validators,
)
from processors.record import _common as common
from processors.record.api import (
    RegisteredSchema,
    SchemaError,
    SchemaIdentifier,
    SchemaNotFoundError,
)
from processors.record.schema import (
    AVRO_SCHEMA_METADATA,
    SCHEMA_NAME_METADATA,
    avro_to_arrow,
    parse_avro_schema,
)

VALIDATE_FIELD_NAMES = PropertyDescriptor(
    name="avro-reg-validated-field-names",
    display_name="Validate Field Names",
    description="Whether or not to validate the field names in the Avro schema based on Avro "
    "naming rules. If set to true, all field names must be valid Avro names, which must begin "
    "with [A-Za-z_], and subsequently contain only [A-Za-z0-9_]. If set to false, no "
    "validation will be performed on the field names.",
    default="true",
    required=True,
    allowable_values=["true", "false"],
)

_NAMED = ("record", "error", "enum", "fixed")
_PREFIX = re.compile(
    r"^(Schema Text is not (a )?valid Avro schema( JSON)?|not a valid Avro schema): "
)


@controller_service("AvroSchemaRegistry")
class AvroSchemaRegistry(ControllerService):
    """Provides a service for registering and accessing schemas: each dynamic property is a
    schema, its name the schema name and its value the Avro schema text."""

    property_descriptors = (VALIDATE_FIELD_NAMES,)

    def __init__(self) -> None:
        self.schemas: dict[str, RegisteredSchema] = {}

    def get_dynamic_property_descriptor(self, name: str) -> PropertyDescriptor | None:
        return PropertyDescriptor(
            name=name,
            display_name=name,
            description="Adds a named schema using the JSON string representation of an "
            "Avro schema",
            dynamic=True,
            expression_language_scope=ExpressionLanguageScope.NONE,
            validators=[validators.non_empty],
        )

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        strict = context.get_property(VALIDATE_FIELD_NAMES).as_str() != "false"
        problems: list[ValidationResult] = []
        for name, text in context.dynamic_properties().items():
            try:
                _registered(name, text, strict)
            except SchemaError as exc:
                reason = _PREFIX.sub("", str(exc))
                problems.append(
                    ValidationResult(name, False, text, f"Not a valid Avro Schema: {reason}")
                )
        return problems

    def on_enabled(self, context: ProcessContext) -> None:
        common.validate(context, self.property_descriptors)
        common.refuse(self.custom_validate(context))
        self.schemas = {
            name: _registered(name, text, strict=False)
            for name, text in context.dynamic_properties().items()
        }

    def retrieve_schema(self, identifier: SchemaIdentifier) -> RegisteredSchema:
        """The schema registered under the identifier's name (branch and version are
        not looked at, as NiFi's AvroSchemaRegistry)."""
        registered = self.schemas.get(identifier.name)
        if registered is None:
            msg = f"Unable to find schema with name '{identifier.name}'"
            raise SchemaNotFoundError(msg)
        return registered


def _registered(name: str, text: str, strict: bool) -> RegisteredSchema:
    """The schema of one property; SchemaError (Avro's reason) when it is not valid."""
    avro = parse_avro_schema(text, validate_defaults=strict)
    if strict:
        _check_names(avro, None)
    _check_duplicate_fields(avro)
    schema = avro_to_arrow(avro, validate_defaults=strict)
    # The schema carries its text and name, as NiFi's RecordSchema its text and identifier:
    # a writer inheriting it writes that text (avro.schema) and that name (schema.name).
    metadata = {AVRO_SCHEMA_METADATA: text.encode(), SCHEMA_NAME_METADATA: name.encode()}
    return RegisteredSchema(schema.with_metadata(metadata), text, name)


_AVRO_NAME = re.compile(r"[^\W\d]\w*")


def _valid_name(name: str) -> str | None:
    """Avro's strict name rule: why ``name`` is refused (Avro's text), or None."""
    if not name:
        return "Empty name"
    if not (name[0].isalpha() or name[0] == "_"):
        return f"Illegal initial character: {name}"
    if not _AVRO_NAME.fullmatch(name):
        return f"Illegal character in: {name}"
    return None


def _refuse(problem: str | None) -> None:
    if problem is not None:
        raise SchemaError(problem)


def _check_names(avro: Any, namespace: str | None) -> None:
    """Every name in the schema by Avro's strict rule (the namespace's parts too)."""
    if isinstance(avro, list):
        for branch in avro:
            _check_names(branch, namespace)
        return
    if not isinstance(avro, dict):
        return
    kind = avro.get("type")
    if kind in _NAMED:
        full = str(avro.get("name", ""))
        space = avro.get("namespace", namespace) if "." not in full else full.rsplit(".", 1)[0]
        for part in (space.split(".") if space else []) + [full.rsplit(".", 1)[-1]]:
            _refuse(_valid_name(part))
        namespace = space
        for symbol in avro.get("symbols", []) if kind == "enum" else []:
            _refuse(_valid_name(str(symbol)))
        for field in avro.get("fields", []) if kind != "enum" else []:
            _refuse(_valid_name(str(field.get("name", ""))))
            _check_names(field.get("type"), namespace)
    elif kind == "array":
        _check_names(avro.get("items"), namespace)
    elif kind == "map":
        _check_names(avro.get("values"), namespace)
    elif isinstance(kind, dict | list):
        _check_names(kind, namespace)


def _check_duplicate_fields(avro: Any) -> None:
    """A record naming one field twice is refused whatever the validation, as Avro does."""
    if isinstance(avro, list):
        for branch in avro:
            _check_duplicate_fields(branch)
        return
    if not isinstance(avro, dict):
        return
    kind = avro.get("type")
    if kind in ("record", "error"):
        seen: set[str] = set()
        for field in avro.get("fields", []):
            field_name = str(field.get("name", ""))
            if field_name in seen:
                msg = f"Duplicate field {field_name} in record {avro.get('name')}"
                raise SchemaError(msg)
            seen.add(field_name)
            _check_duplicate_fields(field.get("type"))
    elif kind == "array":
        _check_duplicate_fields(avro.get("items"))
    elif kind == "map":
        _check_duplicate_fields(avro.get("values"))
    elif isinstance(kind, dict | list):
        _check_duplicate_fields(kind)
