"""Helpers for the ports of NiFi's record processor tests (``test_*_nifi.py``).

NiFi's MockRecordParser (records given with a schema) becomes the real JsonTreeReader with
that schema as Schema Text, the records as JSON; its MockRecordWriter becomes the real
CSVRecordSetWriter (its "header" line is the CSV header line, names instead of the word).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flowcore.flow.nifi.mapping import nifi_mapping
from flowcore.processor.registry import processor_class

RESOURCES = Path(__file__).parent / "nifi_resources"
SCHEMA_TEXT = "schema-text-property"


def resource(path: str) -> str:
    """A file from NiFi's test resources (kept under ``nifi_resources``)."""
    return (RESOURCES / path).read_text(encoding="utf-8")


def avro_schema(fields: list[tuple[str, Any]]) -> str:
    """A record schema of nullable fields, as MockRecordParser's addSchemaField makes."""
    return json.dumps(
        {
            "type": "record",
            "name": "mock",
            "fields": [
                {"name": name, "type": ["null", kind], "default": None} for name, kind in fields
            ],
        }
    )


def json_records(names: list[str], *rows: tuple[Any, ...]) -> str:
    """MockRecordParser's addRecord calls, as the JSON the real reader takes."""
    return json.dumps([dict(zip(names, row, strict=True)) for row in rows])


def json_reader(schema: str) -> dict[str, str]:
    return {"Schema Access Strategy": SCHEMA_TEXT, "Schema Text": schema}


def migrated(nifi_type: str, old_name: str) -> str:
    """The property a NiFi flow's ``old_name`` sets once imported (NiFi's migration)."""
    mapping = nifi_mapping(f"org.apache.nifi.processors.standard.{nifi_type}", "processor")
    assert mapping is not None
    key = mapping.aliases.get(old_name, old_name)
    for descriptor in processor_class(mapping.flowcore_type).property_descriptors:
        if key in (descriptor.name, descriptor.label):
            return descriptor.label
    raise AssertionError(f"{old_name} sets no property of {nifi_type}")
