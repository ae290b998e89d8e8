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


class _Search:
    """Breadth-first search over the value index; can be extended with more seeds.

    The components found so far are kept as a union-find (union by size, path halving),
    inlined here: it runs for every member and value of a unit.
    """

    __slots__ = ("config", "index", "loaded", "parent", "queued", "size", "values")

    def __init__(
        self, index: EntityIndex, config: MergeConfig, loaded: dict[bytes, MemberRecord]
    ) -> None:
        self.index = index
        self.config = config
        self.loaded = loaded
        """Every member record read or changed so far (ref -> record)."""
        self.parent: dict[bytes, bytes] = {}
        self.size: dict[bytes, int] = {}
        """The size of each component, by its root."""
        self.values: dict[bytes, list[bytes]] = {}
        self.queued: set[bytes] = set()

    def groups(self) -> list[list[bytes]]:
        """The components found, each a list of member refs (in no particular order)."""
        parent = self.parent
        found: dict[bytes, list[bytes]] = {}
        for key in parent:
            root = key
            while parent[root] != root:
                parent[root] = parent[parent[root]]
                root = parent[root]
            group = found.get(root)
            if group is None:
                found[root] = [key]
            else:
                group.append(key)
        return list(found.values())

    def run(self, seeds: Iterable[bytes]) -> None:
        """Add the components of these members (those that exist) to the groups."""
        loaded, values, queued = self.loaded, self.values, self.queued
        parent, size = self.parent, self.size
        partners = self.config.partners
        limit = self.config.max_merged
        frontier = [ref for ref in dict.fromkeys(seeds) if ref not in queued]
        queued.update(frontier)
        while frontier:
            need = [ref for ref in frontier if ref not in loaded]
            if need:
                loaded.update(self.index.members(need))
            lookups: list[tuple[bytes, list[bytes]]] = []
            missing: dict[bytes, None] = {}
            for ref in frontier:
                record = loaded.get(ref)
                if record is None:
                    continue
                if ref not in parent:
                    parent[ref] = ref
                    size[ref] = 1
                mine: list[bytes] = []
                for key in record.keys:
                    compared = partners.get(key[:8])
                    if compared:
                        tail = key[8:]
                        for partner in compared:
                            wanted = partner + tail
                            mine.append(wanted)
                            if wanted not in values:
                                missing[wanted] = None
                lookups.append((ref, mine))
            if missing:
                self.index.values_into(missing, values)
            following: list[bytes] = []
            for ref, mine in lookups:
                root = ref
                while parent[root] != root:
                    parent[root] = parent[parent[root]]
                    root = parent[root]
                for key in mine:
                    for other in values[key]:
                        if other == ref:
                            continue
                        if other not in queued:
                            # A new member: a component of one joins ``ref``'s.
                            queued.add(other)
                            following.append(other)
                            parent[other] = root
                            joined = size[root] + 1
                            size[root] = joined
                        else:
                            top = other
                            while parent[top] != top:
                                parent[top] = parent[parent[top]]
                                top = parent[top]
                            if top == root:
                                joined = size[root]
                            else:
                                if size[root] < size[top]:
                                    root, top = top, root
                                parent[top] = root
                                joined = size[root] + size.pop(top)
                                size[root] = joined
                        if joined > limit:
                            example = ref.replace(b"\x00", b" ").decode("utf-8", "replace")
                            raise MaxMergedExceeded(joined, limit, example)
            frontier = following


def _first_member(triples: list[tuple[int, str, bytes]]) -> tuple[int, str]:
    """A component's sort key: its first member's merge order (offset, ``_id``)."""
    first = triples[0]
    return first[0], first[1]


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
        groups = search.groups()
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

    # Members in merge order: (offset, _id, ref) sorted within each component, the
    # components by their first member (stable, as the groups come).
    offsets = {d.name: d.offset for d in config.datasets}
    unknown = len(config.datasets)
    ordered: list[list[tuple[int, str, bytes]]] = []
    for group in groups:
        if len(group) == 1:
            record = loaded[group[0]]
            ordered.append([(offsets.get(record.dataset, unknown), record.id, group[0])])
            continue
        triples = []
        for ref in group:
            record = loaded[ref]
            triples.append((offsets.get(record.dataset, unknown), record.id, ref))
        triples.sort()
        ordered.append(triples)
    ordered.sort(key=_first_member)
    components: list[list[Member]] = []
    refs_of: list[list[bytes]] = []
    for triples in ordered:
        members: list[Member] = []
        refs: list[bytes] = []
        for member_offset, identifier, ref in triples:
            record = loaded[ref]
            entity = entities.get(ref)
            if entity is None:
                entity = decode_entity(record.entity)
            members.append(Member(record.dataset, member_offset, identifier, entity))
            refs.append(ref)
        components.append(members)
        refs_of.append(refs)
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
            # (a composite id has 2n - 1 "|" unless some member _id has one)
            if ids[i] not in old_ids and ids[i].count("|") != 2 * len(components[i]) - 1
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
    emitted = result.emitted
    changed_records: list[OutputRecord] = []
    for i in sorted(kept):
        members, refs, identifier = components[i], refs_of[i], ids[i]
        output = build_output(members, config, identifier)
        digest = content_hash(output)
        existing = records.get(identifier)
        if existing is None or existing.hash != digest:
            output["_updated"] = counter
            counter += 1
            emitted.append(output)
            if output.get("_deleted") is True:
                result.deleted += 1
            elif len(members) > 1 and _gained_members([loaded[r].out for r in refs]):
                result.merged += 1
        elif existing.members == refs:
            continue
        changed_records.append(OutputRecord(identifier, digest, refs))
    index.put_outputs(changed_records)
    replace = msgspec.structs.replace
    changed_members: list[tuple[bytes, MemberRecord]] = []
    for ref, record in loaded.items():
        out = new_id_of.get(ref)
        if record.out != out:
            changed_members.append((ref, replace(record, out=out)))
        elif ref in after:
            changed_members.append((ref, record))
    index.put_members(changed_members)
    for old_id in sorted(old_ids - produced):
        delete = replaced_delete(old_id)
        delete["_updated"] = counter
        counter += 1
        result.emitted.append(delete)
        result.replaced += 1
        index.delete_output(old_id)
    index.set_next_updated(counter)
    return result
