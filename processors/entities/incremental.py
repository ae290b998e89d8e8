"""The incremental path: apply a unit of entity changes to the durable index.

For a unit (the changes of one or more FlowFiles, resolved together):

1. the last change per member wins; the value index is updated (a member leaves the values
   it no longer has and joins the new ones; deleted members leave them all);
2. the seeds are the changed members and every member of the outputs they were part of
   (so a component that lost its bridge is recomputed and splits);
3. a breadth-first search over the value index from the seeds, one batched read per level,
   finds the new components (failing as soon as one exceeds ``max_merged``); with
   identity ``first`` every other member carrying one of the affected ids is searched
   too, so that same-id components are resolved together (``resolve_identities``);
4. each component's output is built; it is emitted, with the next ``_updated``, only if its
   content differs from what was last emitted under its id; then every id the recomputed
   members were emitted under before and that no component produces any more gets a
   ``{"_deleted": true, "$replaced": true}`` delete.

All reads and writes go through an ``EntityIndex`` over a store; the caller stages them and
keeps or discards them as one. Member records are written once, at the end of the unit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

from processors.entities.components import UnionFind
from processors.entities.config import MergeConfig
from processors.entities.index import (
    EntityIndex,
    MemberRecord,
    OutputRecord,
    decode_entity,
    encode_entity,
    member_ref,
)
from processors.entities.model import (
    Change,
    IdentityCollision,
    MaxMergedExceeded,
    MergeResult,
    index_keys,
)
from processors.entities.output import (
    Member,
    build_output,
    content_hash,
    output_id,
    replaced_delete,
    resolve_identities,
    standalone_deleted,
)


def latest_changes(changes: Sequence[Change]) -> dict[bytes, Change]:
    """The last change of each member (dataset, ``_id``), in first-arrival order."""
    latest: dict[bytes, Change] = {}
    for change in changes:
        latest[member_ref(change.dataset, change.id)] = change
    return latest


def to_member(config: MergeConfig, record: MemberRecord) -> Member:
    return Member(
        record.dataset, config.offset(record.dataset), record.id, decode_entity(record.entity)
    )


class _Search:
    """Breadth-first search over the value index; can be extended with more seeds."""

    __slots__ = ("config", "found", "index", "loaded", "queued", "values")

    def __init__(
        self, index: EntityIndex, config: MergeConfig, loaded: dict[bytes, MemberRecord]
    ) -> None:
        self.index = index
        self.config = config
        self.loaded = loaded
        """Every member record read or changed so far (ref -> record)."""
        self.found: UnionFind[bytes] = UnionFind()
        self.values: dict[bytes, list[bytes]] = {}
        self.queued: set[bytes] = set()

    def run(self, seeds: Iterable[bytes]) -> None:
        """Add the components of these members (those that exist) to ``found``."""
        loaded, values, queued, found = self.loaded, self.values, self.queued, self.found
        partners = self.config.partners
        limit = self.config.max_merged
        frontier = [ref for ref in dict.fromkeys(seeds) if ref not in queued]
        queued.update(frontier)
        while frontier:
            need = [ref for ref in frontier if ref not in loaded]
            if need:
                loaded.update(self.index.members(need))
            lookups: list[tuple[bytes, list[bytes]]] = []
            wanted: set[bytes] = set()
            for ref in frontier:
                record = loaded.get(ref)
                if record is None:
                    continue
                found.add(ref)
                mine = [
                    partner + key[8:]
                    for key in record.keys
                    for partner in partners.get(key[:8], ())
                ]
                lookups.append((ref, mine))
                wanted.update(mine)
            missing = [key for key in wanted if key not in values]
            if missing:
                got = self.index.values(missing)
                for key in missing:
                    values[key] = got.get(key, [])
            following: list[bytes] = []
            for ref, mine in lookups:
                for key in mine:
                    for other in values[key]:
                        if other == ref:
                            continue
                        if other not in queued:
                            queued.add(other)
                            following.append(other)
                            found.add(other)
                        size = found.union(ref, other)
                        if size > limit:
                            example = ref.replace(b"\x00", b" ").decode("utf-8", "replace")
                            raise MaxMergedExceeded(size, limit, example)
            frontier = following


def _gained_members(previous: list[str | None]) -> bool:
    """A component merged something: a new member, or members of different outputs."""
    return None in previous or len(set(previous)) > 1


def _update_index(
    index: EntityIndex, config: MergeConfig, latest: dict[bytes, Change]
) -> tuple[dict[bytes, MemberRecord], dict[bytes, MemberRecord]]:
    """Move the changed members between values; returns their records before and after."""
    before = index.members(latest)
    after: dict[bytes, MemberRecord] = {}
    adds: dict[bytes, set[bytes]] = {}
    removes: dict[bytes, set[bytes]] = {}
    for ref, change in latest.items():
        new_keys = index_keys(config, change.dataset, change.entity)
        previous = before.get(ref)
        if previous is None:
            for key in new_keys:
                adds.setdefault(key, set()).add(ref)
        elif previous.keys != new_keys:
            old_keys = set(previous.keys)
            wanted = set(new_keys)
            for key in old_keys - wanted:
                removes.setdefault(key, set()).add(ref)
            for key in wanted - old_keys:
                adds.setdefault(key, set()).add(ref)
        after[ref] = MemberRecord(
            change.dataset,
            change.id,
            encode_entity(change.entity),
            new_keys,
            previous.out if previous is not None else None,
        )
    if adds or removes:
        index.update_values(adds, removes)
    return before, after


def apply_changes(
    index: EntityIndex, config: MergeConfig, changes: Sequence[Change]
) -> MergeResult:
    """Apply one unit of changes; raises MergeError (and the caller discards the writes)."""
    latest = latest_changes(changes)
    before, after = _update_index(index, config, latest)
    entities: dict[bytes, Mapping[str, Any]] = {ref: c.entity for ref, c in latest.items()}

    records: dict[str, OutputRecord] = index.outputs(
        {r.out for r in before.values() if r.out is not None}
    )
    seeds = list(latest)
    for output_record in records.values():
        seeds.extend(output_record.members)
    loaded: dict[bytes, MemberRecord] = dict(after)
    search = _Search(index, config, loaded)
    search.run(seeds)

    first = config.identity == "first"
    checked: set[str] = set()
    while True:
        groups = search.found.groups()
        if not first:
            break
        # Same-id candidates: under ``first`` a component's id is its first member's _id.
        affected = {
            min((config.offset(loaded[ref].dataset), loaded[ref].id) for ref in group)[1]
            for group in groups
        }
        affected.update(r.out for r in loaded.values() if r.out is not None)
        fresh = affected - checked
        checked |= fresh
        candidates = [member_ref(d.name, i) for i in fresh for d in config.datasets]
        extra = [ref for ref in candidates if ref not in loaded]
        if not extra:
            break
        loaded.update(index.members(extra))
        more = [ref for ref in extra if ref in loaded]
        outs = {o for o in (loaded[ref].out for ref in more) if o is not None}
        records.update(index.outputs(outs - records.keys()))
        for found_out in outs:
            if found_out in records:
                more.extend(records[found_out].members)
        if not more:
            break
        search.run(more)

    offset = config.offset
    components: list[list[Member]] = []
    refs_of: list[list[bytes]] = []
    for group in groups:
        pairs: list[tuple[int, str, bytes]] = []
        for ref in group:
            record = loaded[ref]
            pairs.append((offset(record.dataset), record.id, ref))
        pairs.sort()
        members: list[Member] = []
        for member_offset, identifier, ref in pairs:
            record = loaded[ref]
            entity = entities.get(ref)
            if entity is None:
                entity = decode_entity(record.entity)
            members.append(Member(record.dataset, member_offset, identifier, entity))
        components.append(members)
        refs_of.append([ref for _, _, ref in pairs])
    order = sorted(
        range(len(components)), key=lambda i: (components[i][0].offset, components[i][0].id)
    )
    components = [components[i] for i in order]
    refs_of = [refs_of[i] for i in order]
    ids = [output_id(members, config.identity) for members in components]
    kept = resolve_identities(ids, [standalone_deleted(c) for c in components])

    recomputed = loaded.keys()
    old_ids = {r.out for r in loaded.values() if r.out is not None}
    # A record exists under a produced id only if some loaded member was emitted under it
    # (a record's members carry its id as ``out``; with ``first`` every member having the
    # id was loaded above). Only a composite id built from _ids containing "|" could be
    # equal to a record of members not loaded: those are looked up too.
    wanted_records = set(old_ids)
    if config.identity != "first":
        wanted_records.update(
            ids[i]
            for i in kept
            if ids[i] not in old_ids and any("|" in m.id for m in components[i])
        )
    records.update(index.outputs(wanted_records - records.keys()))
    produced: set[str] = set()
    for i in kept:
        identifier = ids[i]
        existing = records.get(identifier)
        if existing is not None and not all(m in recomputed for m in existing.members):
            raise IdentityCollision(identifier)
        produced.add(identifier)

    result = MergeResult()
    new_id_of: dict[bytes, str | None] = {}
    for i, refs in enumerate(refs_of):
        kept_id = ids[i] if i in kept else None
        for ref in refs:
            new_id_of[ref] = kept_id
    for old_id in old_ids:
        old_record = records.get(old_id)
        if old_record is not None and len({new_id_of.get(m) for m in old_record.members}) > 1:
            result.split += 1

    counter = index.next_updated()
    for i in sorted(kept):
        members, refs, identifier = components[i], refs_of[i], ids[i]
        output = build_output(members, config)
        digest = content_hash(output)
        existing = records.get(identifier)
        if existing is None or existing.hash != digest:
            output["_updated"] = counter
            counter += 1
            result.emitted.append(output)
            if output.get("_deleted") is True:
                result.deleted += 1
            elif len(members) > 1 and _gained_members([loaded[r].out for r in refs]):
                result.merged += 1
        if existing is None or existing.hash != digest or existing.members != refs:
            index.put_output(OutputRecord(identifier, digest, refs))
    for ref, record in loaded.items():
        out = new_id_of.get(ref)
        if ref in after or record.out != out:
            index.put_member(ref, msgspec.structs.replace(record, out=out))
    for old_id in sorted(old_ids - produced):
        delete = replaced_delete(old_id)
        delete["_updated"] = counter
        counter += 1
        result.emitted.append(delete)
        result.replaced += 1
        index.delete_output(old_id)
    index.set_next_updated(counter)
    return result
