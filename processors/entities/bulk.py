"""The bulk path: the merged view over whole datasets, computed in one go (first load, reset).

``rebuild`` is a pure function of the configuration and the entities: it numbers the
members in merge order, writes their equality values as an *edge table* (member, rule,
side, value: see ``bulk_components``), hands that to a connected-components engine (numpy
here by default; ``spark_components`` runs it on Spark; DuckDB is the reference) and builds
every component's output, numbering ``_updated`` from ``start``. Every engine labels a
member with the smallest member number of its component, so the output does not depend
on the engine. Output and index records are exactly what the incremental path produces
for the same changes applied to an empty index.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from processors.entities.components import components_of_rows
from processors.entities.config import MergeConfig
from processors.entities.incremental import latest_changes
from processors.entities.index import (
    EntityIndex,
    MemberRecord,
    OutputRecord,
    encode_entity,
)
from processors.entities.model import (
    Change,
    MaxMergedExceeded,
    MergeResult,
    SourceEmpty,
    index_keys,
)
from processors.entities.output import (
    Member,
    build_output,
    content_hash,
    output_id,
    resolve_identities,
)

if TYPE_CHECKING:
    import pyarrow as pa
    from numpy.typing import NDArray

ComponentsEngine = Callable[["pa.Table", int], "NDArray[np.int64]"]
"""``(edge table, member count) -> smallest member number of each member's component``."""

SMALL_EDGES = 200_000
"""Below this many edge rows the local engine is a Python union-find: numpy and Arrow
cost more to start (about 0.6 s for their first call) than it takes."""


class _CollectorPause:
    """Counts the threads that asked for the collector to pause; the last one resumes it."""

    lock = threading.Lock()
    holders = 0
    resume = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a unit or a rebuild allocates many objects.

    They are acyclic (dicts, lists, records), so the collector would only rescan them, again
    and again, as they pile up (about a third of a large rebuild). Pauses from concurrent
    tasks nest: the collector resumes when the last one ends, if it was on before the first.
    """
    with _CollectorPause.lock:
        if _CollectorPause.holders == 0:
            _CollectorPause.resume = gc.isenabled()
            gc.disable()
        _CollectorPause.holders += 1
    try:
        yield
    finally:
        with _CollectorPause.lock:
            _CollectorPause.holders -= 1
            if _CollectorPause.holders == 0 and _CollectorPause.resume:
                gc.enable()


@dataclass(slots=True)
class Rebuild:
    """A full merged view: what to emit and the index records that describe it."""

    result: MergeResult
    next_updated: int
    members: dict[bytes, MemberRecord] = field(default_factory=dict)
    values: dict[bytes, list[bytes]] = field(default_factory=dict)
    outputs: list[OutputRecord] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Prepared:
    """The members of a rebuild in merge order, their index keys and their edge rows."""

    refs: list[bytes]
    changes: list[Change]
    keys: list[list[bytes]]
    member: list[int]
    rule: list[int]
    side: list[int]
    value: list[bytes]

    def edge_table(self) -> pa.Table:
        """The edge rows as an Arrow table of ``bulk_components.EDGE_SCHEMA``."""
        import pyarrow as pa

        from processors.entities.bulk_components import EDGE_SCHEMA

        return pa.Table.from_arrays(
            [
                pa.array(self.member, pa.int64()),
                pa.array(self.rule, pa.int32()),
                pa.array(self.side, pa.int8()),
                pa.array(self.value, pa.binary()),
            ],
            schema=EDGE_SCHEMA,
        )

    def local_components(self) -> NDArray[np.int64]:
        """Component labels on this process: numpy for large inputs, else a union-find."""
        if len(self.member) < SMALL_EDGES:
            labels = components_of_rows(
                len(self.refs), self.member, self.rule, self.side, self.value
            )
            return np.asarray(labels, dtype=np.int64)
        from processors.entities.bulk_components import components_local

        return components_local(self.edge_table(), len(self.refs))


def prepare(config: MergeConfig, changes: Iterable[Change]) -> Prepared:
    """Number the members (last change per member) in merge order and list their edges."""
    latest = latest_changes(list(changes))
    if not latest and config.if_source_empty == "fail":
        raise SourceEmpty
    offset = config.offset
    entries = sorted(latest.items(), key=lambda item: (offset(item[1].dataset), item[1].id))
    refs = [ref for ref, _ in entries]
    ordered = [change for _, change in entries]
    keys: list[list[bytes]] = []
    member: list[int] = []
    rule: list[int] = []
    side: list[int] = []
    value: list[bytes] = []
    sides = config.sides
    for number, change in enumerate(ordered):
        member_keys = index_keys(config, change.dataset, change.entity)
        keys.append(member_keys)
        for key in member_keys:
            tail = key[8:]
            for rule_number, rule_side in sides.get(key[:8], ()):
                member.append(number)
                rule.append(rule_number)
                side.append(rule_side)
                value.append(tail)
    return Prepared(refs, ordered, keys, member, rule, side, value)


def rebuild(
    config: MergeConfig,
    changes: Iterable[Change],
    *,
    start: int = 0,
    components: ComponentsEngine | None = None,
) -> Rebuild:
    """The merged view of the given entities (the last per member wins).

    ``components`` computes the component labels from the edge table (for instance on
    Spark); by default they are computed locally (``Prepared.local_components``).
    """
    with collector_paused():
        prepared = prepare(config, changes)
        if components is None:
            labels = prepared.local_components()
        else:
            labels = components(prepared.edge_table(), len(prepared.refs))
        return assemble(config, prepared, labels, start=start)


def _groups(labels: NDArray[np.int64]) -> list[list[int]]:
    """Member numbers by component, components in order of their smallest member."""
    if len(labels) == 0:
        return []
    order = np.argsort(labels, kind="stable")
    ordered = labels[order]
    cuts = np.flatnonzero(ordered[1:] != ordered[:-1]) + 1
    return [part.tolist() for part in np.split(order, cuts)]


def assemble(
    config: MergeConfig, prepared: Prepared, labels: NDArray[np.int64], *, start: int = 0
) -> Rebuild:
    """Outputs and index records from the component labels of ``prepared``'s members."""
    refs, changes, keys = prepared.refs, prepared.changes, prepared.keys
    offset = config.offset
    groups = _groups(np.asarray(labels, dtype=np.int64))
    components: list[list[Member]] = []
    for numbers in groups:
        if len(numbers) > config.max_merged:
            example = refs[numbers[0]].replace(b"\x00", b" ").decode("utf-8", "replace")
            raise MaxMergedExceeded(len(numbers), config.max_merged, example)
        components.append(
            [
                Member(
                    changes[n].dataset, offset(changes[n].dataset), changes[n].id, changes[n].entity
                )
                for n in numbers
            ]
        )
    ids = [output_id(members, config.identity) for members in components]
    if config.identity == "first":
        kept = resolve_identities(ids, [len(c) == 1 and c[0].deleted for c in components])
    else:
        kept = set(range(len(components)))
        if len(kept) != len(set(ids)):
            resolve_identities(ids, [False] * len(ids))  # raises IdentityCollision

    built = Rebuild(result=MergeResult(), next_updated=start)
    result = built.result
    member_records = built.members
    counter = start
    for number, (numbers, members, identifier) in enumerate(
        zip(groups, components, ids, strict=True)
    ):
        out: str | None = None
        if number in kept:
            out = identifier
            output = build_output(members, config)
            digest = content_hash(output)
            output["_updated"] = counter
            counter += 1
            result.emitted.append(output)
            if output.get("_deleted") is True:
                result.deleted += 1
            elif len(members) > 1:
                result.merged += 1
            built.outputs.append(OutputRecord(identifier, digest, [refs[n] for n in numbers]))
        for n in numbers:
            change = changes[n]
            member_records[refs[n]] = MemberRecord(
                change.dataset, change.id, encode_entity(change.entity), keys[n], out
            )
    built.next_updated = counter
    value_lists: dict[bytes, list[bytes]] = {}
    for number, member_keys in enumerate(keys):
        for key in member_keys:
            found = value_lists.get(key)
            if found is None:
                value_lists[key] = [refs[number]]
            else:
                found.append(refs[number])
    built.values = value_lists
    return built


def rebuild_datasets(
    config: MergeConfig,
    datasets: Mapping[str, Iterable[Mapping[str, Any]]],
    *,
    start: int = 0,
    components: ComponentsEngine | None = None,
) -> Rebuild:
    """``rebuild`` over whole datasets given as ``{dataset name: entities}``."""
    unknown = [name for name in datasets if name not in config.by_name]
    if unknown:
        msg = f"datasets not in the configuration: {', '.join(unknown)}"
        raise ValueError(msg)
    ordered = sorted(datasets, key=config.offset)
    changes = [Change(name, entity) for name in ordered for entity in datasets[name]]
    return rebuild(config, changes, start=start, components=components)


def write_rebuild(index: EntityIndex, built: Rebuild) -> None:
    """Store a rebuild's records in an empty index (the bulk load of the first unit)."""
    index.put_members(built.members.items())
    for key, refs in built.values.items():
        index.put_value(key, refs)
    index.put_outputs(built.outputs)
    index.set_next_updated(built.next_updated)
