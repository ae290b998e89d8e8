"""What ConvertRecord makes of one content: for tests that compare two ways of reading."""

from __future__ import annotations

from dataclasses import dataclass

from flowcore.testing import TestRunner


@dataclass(frozen=True)
class Outcome:
    """The relationship the FlowFile went to and its text (the error message on failure)."""

    relationship: str
    text: str


def converted(content: str, reader_type: str, reader: dict[str, str], writer_type: str) -> Outcome:
    with TestRunner("ConvertRecord") as runner:
        runner.add_controller_service("reader", reader_type, reader)
        runner.add_controller_service("writer", writer_type, {})
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        runner.enqueue(content)
        runner.run()
        (failed,) = runner.get_flowfiles_for_relationship("failure") or [None]
        if failed is not None:
            return Outcome("failure", failed.attributes.get("record.error.message", ""))
        (out,) = runner.get_flowfiles_for_relationship("success")
        return Outcome("success", out.text())
