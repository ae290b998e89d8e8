"""docs/processors/reference.md is what the processors declare, for every processor type."""

from __future__ import annotations

from pathlib import Path

from flowcore.processor import Processor
from flowcore.processor.reference import processor_reference, shipped_processor_types
from flowcore.processor.registry import processor, processor_types

DOC = Path(__file__).resolve().parents[3] / "docs" / "processors" / "reference.md"


def test_the_reference_page_is_current() -> None:
    assert DOC.read_text(encoding="utf-8") == processor_reference(), (
        "regenerate docs/processors/reference.md: python -c 'from "
        'flowcore.processor.reference import processor_reference as r; print(r(), end="")\''
        " > docs/processors/reference.md"
    )


def test_every_shipped_processor_type_has_a_section_and_no_other() -> None:
    @processor("ReferenceTestOnly")
    class _TestOnly(Processor):
        pass

    text = processor_reference()
    shipped = shipped_processor_types()
    assert "ReferenceTestOnly" in processor_types()
    assert "ReferenceTestOnly" not in shipped and "## ReferenceTestOnly" not in text
    assert {"ReplaceText", "QueryRecord", "MergeContent", "EnforceOrder"} <= set(shipped)
    for type_name in shipped:
        assert f"\n## {type_name}\n" in text
