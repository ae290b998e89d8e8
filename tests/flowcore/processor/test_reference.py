"""docs/processors/reference.md is what the processors declare, for every processor type."""

from __future__ import annotations

from pathlib import Path

from flowcore.processor.reference import processor_reference
from flowcore.processor.registry import processor_types

DOC = Path(__file__).resolve().parents[3] / "docs" / "processors" / "reference.md"


def test_the_reference_page_is_current() -> None:
    assert DOC.read_text(encoding="utf-8") == processor_reference(), (
        "regenerate docs/processors/reference.md: python -c 'from "
        'flowcore.processor.reference import processor_reference as r; print(r(), end="")\''
        " > docs/processors/reference.md"
    )


def test_every_processor_type_has_a_section() -> None:
    text = processor_reference()
    for type_name in processor_types():
        assert f"\n## {type_name}\n" in text
