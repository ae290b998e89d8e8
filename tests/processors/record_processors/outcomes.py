"""What a record processor's run produced, compared between two ways of running it."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from flowcore.testing import TestRunner

_IDS = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def outcome(
    runner: TestRunner, relationships: Iterable[str] = ("success", "failure")
) -> dict[str, Any]:
    """Per relationship, the FlowFiles' contents and attributes (uuids masked), sorted."""
    seen: dict[str, Any] = {}
    for relationship in relationships:
        seen[relationship] = sorted(
            (
                f.text(),
                sorted(
                    (k, _IDS.sub("<id>", v))
                    for k, v in f.attributes.items()
                    if k not in ("uuid", "filename")
                ),
            )
            for f in runner.get_flowfiles_for_relationship(relationship)
        )
    return seen


@dataclass(frozen=True)
class Converted:
    """Where ConvertRecord sent one content, and its text (the error message on failure)."""

    relationship: str
    text: str


def convert_one(
    content: str, reader_type: str, reader: dict[str, str], writer_type: str
) -> Converted:
    """ConvertRecord run once on ``content`` with a fresh reader and writer."""
    with TestRunner("ConvertRecord") as runner:
        runner.add_controller_service("reader", reader_type, reader)
        runner.add_controller_service("writer", writer_type, {})
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        runner.enqueue(content)
        runner.run()
        (failed,) = runner.get_flowfiles_for_relationship("failure") or [None]
        if failed is not None:
            return Converted("failure", failed.attributes.get("record.error.message", ""))
        (out,) = runner.get_flowfiles_for_relationship("success")
        return Converted("success", out.text())
