"""docs/nifi-import.md carries the table generated from the mapping, so it lists every
NiFi type import maps."""

from __future__ import annotations

from pathlib import Path

from flowcore.flow.nifi.mapping import TYPE_MAPPINGS
from flowcore.flow.nifi.table import supported_types_table

DOC = Path(__file__).resolve().parents[4] / "docs" / "nifi-import.md"


def test_the_doc_holds_the_generated_table() -> None:
    assert supported_types_table() in DOC.read_text("utf-8"), (
        "regenerate the table in docs/nifi-import.md: "
        "python -c 'from flowcore.flow.nifi.table import supported_types_table as t; print(t())'"
    )


def test_the_doc_lists_every_mapped_type() -> None:
    text = DOC.read_text("utf-8")

    assert [m.nifi_type for m in TYPE_MAPPINGS if f"`{m.nifi_type}`" not in text] == []
