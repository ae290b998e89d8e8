"""A NiFi flow whose CSV, Avro or Parquet writer sets Schema Write Strategy imports with
it (it was unsupported at any value but NiFi's default); one needing a Schema Reference
Writer is refused when the flow is validated, naming the property."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowcore.clock import ManualClock
from flowcore.engine import Node
from flowcore.errors import ConfigurationError
from flowcore.flow import parse_flow
from flowcore.flow.nifi import import_nifi
from flowcore.settings import EngineSettings
from tests.flowcore.flow.nifi.test_import_schema_registry import _flow

WRITERS = {
    "org.apache.nifi.csv.CSVRecordSetWriter": "CSVRecordSetWriter",
    "org.apache.nifi.avro.AvroRecordSetWriter": "AvroRecordSetWriter",
    "org.apache.nifi.parquet.ParquetRecordSetWriter": "ParquetRecordSetWriter",
}


def _with_writer(kind: str, strategy: str) -> dict[str, object]:
    data = _flow()
    writer = data["flowContents"]["controllerServices"][1]  # type: ignore[index]
    writer["type"] = kind
    writer["properties"] = {"Schema Write Strategy": strategy}
    writer["propertyDescriptors"] = {"Schema Write Strategy": {"name": "Schema Write Strategy"}}
    return data


@pytest.mark.parametrize("kind", sorted(WRITERS))
@pytest.mark.parametrize("strategy", ["full-schema-attribute", "no-schema"])
def test_a_writers_schema_write_strategy_is_imported(kind: str, strategy: str) -> None:
    result = import_nifi(_with_writer(kind, strategy))

    assert result.unsupported == []
    writer = result.document["flow"]["controller_services"]["JSON Writer"]
    assert writer["type"] == WRITERS[kind]
    assert writer["properties"]["Schema Write Strategy"] == strategy


def test_a_schema_reference_writer_is_refused_naming_the_property(tmp_path: Path) -> None:
    kind = "org.apache.nifi.csv.CSVRecordSetWriter"
    document = import_nifi(_with_writer(kind, "schema-reference-writer")).document
    document["flow"]["parameters"] = {"out_dir": str(tmp_path), "failed_dir": str(tmp_path)}
    with pytest.raises(ConfigurationError, match="Schema Write Strategy"):
        node = Node.from_flow(
            EngineSettings(data_dir=tmp_path / "data"), parse_flow(document), ManualClock(0)
        )
        node.close()
