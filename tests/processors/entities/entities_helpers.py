"""Helpers shared by the MergeEntities tests: an in-memory keyed store and a merger on it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from processors.entities.bulk import rebuild_datasets
from processors.entities.config import MergeConfig, parse_config
from processors.entities.merge_entities import apply_unit
from processors.entities.model import Change

SEED_DATASETS = '["A a", "B b", "C c"]'
SEED_EQUALITY = '[["eq", "a.f1", "b.f1"], ["eq", "b.f2", ["lower", "c.f3"]]]'
SEED_A: list[dict[str, Any]] = [{"_id": "a1", "f1": 1}, {"_id": "a2", "f1": 2}]
SEED_B: list[dict[str, Any]] = [{"_id": "b1", "f1": 1, "f2": "x"}, {"_id": "b2", "f1": 3}]
SEED_C: list[dict[str, Any]] = [
    {"_id": "c1", "f3": "X"},
    {"_id": "c2", "_deleted": True, "f3": "Y"},
    {"_id": "c3", "_deleted": True, "f3": "X"},
]
SEED_OUTPUT: list[dict[str, Any]] = [
    {"$ids": ["a1", "b1", "c1"], "_id": "0|a1|1|b1|2|c1", "_updated": 0,
     "f1": [1, 1], "f2": "x", "f3": "X"},
    {"$ids": ["a2"], "_id": "0|a2", "_updated": 1, "f1": 2},
    {"$ids": ["b2"], "_id": "1|b2", "_updated": 2, "f1": 3},
    {"$ids": ["c2"], "_deleted": True, "_id": "2|c2", "_updated": 3, "f3": "Y"},
    {"$ids": ["c3"], "_deleted": True, "_id": "2|c3", "_updated": 4, "f3": "X"},
]  # fmt: skip


class DictStore:
    """An in-memory keyed store with the interface of the session's ``keyed_state``."""

    def __init__(self, data: Mapping[bytes, bytes] | None = None) -> None:
        self.data: dict[bytes, bytes] = dict(data or {})

    def get(self, key: bytes) -> bytes | None:
        return self.data.get(key)

    def get_many(self, keys: Iterable[bytes]) -> dict[bytes, bytes]:
        return {k: self.data[k] for k in keys if k in self.data}

    def put(self, key: bytes, value: bytes) -> None:
        assert 0 < len(key) <= 400
        self.data[key] = value

    def delete(self, key: bytes) -> None:
        self.data.pop(key, None)

    def scan(self, prefix: bytes = b"") -> Iterator[tuple[bytes, bytes]]:
        yield from sorted((k, v) for k, v in self.data.items() if k.startswith(prefix))


def config(datasets: str = "A a, B b, C c", **properties: str) -> MergeConfig:
    return parse_config({"datasets": datasets, **properties})


class Merger:
    """The processor's unit function on an in-memory store."""

    def __init__(self, merge_config: MergeConfig) -> None:
        self.config = merge_config
        self.store = DictStore()
        self.emitted: list[dict[str, Any]] = []

    def apply(self, *units: tuple[str, Sequence[Mapping[str, Any]]]) -> list[dict[str, Any]]:
        """Apply datasets' entities as one unit; returns what was emitted."""
        changes = [Change(dataset, entity) for dataset, entities in units for entity in entities]
        emitted = apply_unit(self.store, self.config, changes).result.emitted
        self.emitted.extend(emitted)
        return emitted

    def view(self) -> dict[str, dict[str, Any]]:
        """The emitted entities replayed: the last per ``_id``, replaced ids dropped."""
        return replay(self.emitted)


def replay(emitted: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    last: dict[str, dict[str, Any]] = {}
    for entity in emitted:
        last[entity["_id"]] = {k: v for k, v in entity.items() if k != "_updated"}
    return {i: e for i, e in last.items() if e.get("$replaced") is not True}


def rebuilt_view(
    merge_config: MergeConfig, datasets: Mapping[str, Sequence[Mapping[str, Any]]]
) -> dict[str, dict[str, Any]]:
    built = rebuild_datasets(merge_config, datasets)
    return {e["_id"]: {k: v for k, v in e.items() if k != "_updated"} for e in built.result.emitted}


def without_updated(entities: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k != "_updated"} for e in entities]
