"""What a record processor's run produced, compared between two ways of running it."""

from __future__ import annotations

import re
from collections.abc import Iterable
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
