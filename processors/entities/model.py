"""What both merge paths share: input changes, their results and their failures."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from processors.entities.config import MergeConfig
from processors.entities.expressions import value_key, value_keys


@dataclass(frozen=True, slots=True)
class Change:
    """One entity arriving from one dataset (an insert, an update or a delete)."""

    dataset: str
    entity: Mapping[str, Any]

    @property
    def id(self) -> str:
        identifier = self.entity["_id"]
        assert isinstance(identifier, str)
        return identifier


@dataclass(slots=True)
class MergeResult:
    """What one unit of work emitted, in ``_updated`` order, and what happened."""

    emitted: list[dict[str, Any]] = field(default_factory=list)
    merged: int = 0
    """Emitted entities of several members that gained members."""
    split: int = 0
    """Previous outputs whose members now lie in more than one output."""
    replaced: int = 0
    """``$replaced`` deletes emitted."""
    deleted: int = 0
    """Standalone deleted entities emitted."""

    @property
    def details(self) -> str:
        """The provenance detail string of the JOIN for this unit."""
        return (
            f"Entities merged: {len(self.emitted)} emitted ({self.merged} merged, "
            f"{self.split} split, {self.replaced} replaced, {self.deleted} deleted)"
        )


class MergeError(Exception):
    """A unit that cannot be applied; nothing of it is kept. ``str()`` is the reason."""


class MaxMergedExceeded(MergeError):
    def __init__(self, size: int, limit: int, example: str) -> None:
        super().__init__(
            f"max_merged exceeded: {size} entities or more would be merged into one entity "
            f"(max_merged is {limit}; a member: {example})"
        )
        self.size = size
        self.limit = limit


class IdentityCollision(MergeError):
    def __init__(self, identifier: str) -> None:
        super().__init__(
            f"identity collision: two merged entities would both get the _id '{identifier}' "
            "(with identity 'first', the same _id in several datasets needs an equality "
            "rule on _id or $ids)"
        )
        self.identifier = identifier


class SourceEmpty(MergeError):
    def __init__(self) -> None:
        super().__init__("the source returned no entities and if_source_empty is 'fail'")


def index_keys(config: MergeConfig, dataset: str, entity: Mapping[str, Any]) -> list[bytes]:
    """Expression key + value key for every value a live entity is indexed under.

    Deleted entities are not indexed: they never merge and never bridge.
    """
    if entity.get("_deleted") is True:
        return []
    keys: list[bytes] = []
    for expression in config.expressions_for(dataset):
        prefix = expression.key
        values = expression.evaluate(entity)
        if len(values) == 1:
            key = value_key(values[0])
            if key is not None:
                keys.append(prefix + key)
        elif values:
            keys.extend(prefix + vk for vk in value_keys(values))
    return keys
