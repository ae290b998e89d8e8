"""Building one merged output entity from its members: identity, ``$ids``, strategies.

Members are always taken in merge order, dataset offset first and then ``_id`` compared
as a plain string (code points, so ``"two10"`` sorts before ``"two2"``); both the
composite ``_id`` and the combined property values follow that order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from processors.entities.config import MergeConfig
from processors.entities.expressions import value_key
from processors.entities.model import IdentityCollision

Entity = dict[str, Any]


@dataclass(slots=True)
class Member:
    """One input entity as the merge sees it."""

    dataset: str
    offset: int
    id: str
    entity: Mapping[str, Any]

    @property
    def deleted(self) -> bool:
        return self.entity.get("_deleted") is True


def output_id(members: Sequence[Member], identity: str) -> str:
    """``composite``: ``"<offset>|<_id>|..."`` over all members; ``first``: the first ``_id``."""
    if identity == "first":
        return members[0].id
    if len(members) == 1:
        return f"{members[0].offset}|{members[0].id}"
    return "|".join(f"{m.offset}|{m.id}" for m in members)


def merged_ids(members: Sequence[Member]) -> list[Any]:
    """The union of the members' ``$ids`` (or ``_id`` where a member has none), first wins."""
    if len(members) == 1:
        entity = members[0].entity
        if "$ids" not in entity:
            identifier = entity.get("_id")
            return [] if identifier is None else [identifier]
    seen: set[Any] = set()
    result: list[Any] = []
    for member in members:
        entity = member.entity
        # ``ids_of``, inlined: ``$ids`` if present, else ``_id``; a scalar is one value.
        ids = entity["$ids"] if "$ids" in entity else entity.get("_id")
        if ids is None:
            continue
        for value in ids if isinstance(ids, list) else (ids,):
            # Strings (nearly every id) are their own key; other types by their typed key.
            key: Any = value if type(value) is str else value_key(value)
            if key is None or key in seen:
                continue
            seen.add(key)
            result.append(value)
    return result


def combine_default(members: Sequence[Member]) -> Entity:
    """``merge-union``: one contributor keeps its value; several give a spliced list."""
    if len(members) == 1:
        return {k: v for k, v in members[0].entity.items() if k[:1] != "_" and k != "$ids"}
    combined: Entity = {}
    several: set[str] = set()
    for member in members:
        for name, value in member.entity.items():
            if name[:1] == "_" or name == "$ids":
                continue
            if name not in combined:
                combined[name] = value
                continue
            if name not in several:
                several.add(name)
                first = combined[name]
                combined[name] = list(first) if isinstance(first, list) else [first]
            if isinstance(value, list):
                combined[name].extend(value)
            else:
                combined[name].append(value)
    return combined


def _dedup_key(value: Any) -> bytes:
    key = value_key(value)
    return b"z" if key is None else key  # null is a value here, kept once


def combine_compact(members: Sequence[Member]) -> Entity:
    """``default``, then de-duplicated (first wins), empty lists dropped, singletons unwrapped."""
    compacted: Entity = {}
    for name, value in combine_default(members).items():
        if not isinstance(value, list):
            compacted[name] = value
            continue
        seen: set[bytes] = set()
        unique: list[Any] = []
        for item in value:
            key = _dedup_key(item)
            if key not in seen:
                seen.add(key)
                unique.append(item)
        if not unique:
            continue
        compacted[name] = unique[0] if len(unique) == 1 else unique
    return compacted


def combine_list(members: Sequence[Member], include_internal: bool) -> Entity:
    """``$merged``: the member entities in merge order (``_`` properties but ``_id`` dropped)."""
    items = [
        dict(m.entity)
        if include_internal
        else {k: v for k, v in m.entity.items() if k == "_id" or not k.startswith("_")}
        for m in members
    ]
    return {"$merged": items}


def build_output(
    members: Sequence[Member], config: MergeConfig, identifier: str | None = None
) -> Entity:
    """The merged entity of a component (members in merge order), without ``_updated``.

    ``identifier``: its ``output_id`` if the caller has it already.
    """
    if config.strategy == "compact":
        output = combine_compact(members)
    elif config.strategy == "list":
        output = combine_list(members, config.include_internal_properties)
    else:
        output = combine_default(members)
    output["$ids"] = merged_ids(members)
    output["_id"] = output_id(members, config.identity) if identifier is None else identifier
    if len(members) == 1 and members[0].deleted:
        output["_deleted"] = True
    return output


def replaced_delete(identifier: str) -> Entity:
    """The delete for an output id that is no longer produced."""
    return {"_id": identifier, "_deleted": True, "$replaced": True}


_ENCODER = msgspec.json.Encoder(order="sorted")


def content_hash(output: Mapping[str, Any]) -> bytes:
    """A hash of an output's content (``_updated`` excluded), to skip unchanged outputs."""
    body = (
        output if "_updated" not in output else {k: v for k, v in output.items() if k != "_updated"}
    )
    return hashlib.blake2b(_ENCODER.encode(body), digest_size=16).digest()


def standalone_deleted(members: Sequence[Member]) -> bool:
    """A component that is one deleted entity (deleted entities are never merged)."""
    return len(members) == 1 and members[0].deleted


def resolve_identities(ids: Sequence[str], deleted: Sequence[bool]) -> set[int]:
    """The components that produce their id (``ids[i]``), given that some may share one.

    Two components can share an id only with identity ``first`` (the same ``_id`` in
    several datasets). A live component wins over deleted standalone ones (``deleted[i]``):
    a real delete of one member must not fail the flow, the live entity keeps the id. Of
    deleted ones alone, the first in merge order wins. Two live components with one id
    raise ``IdentityCollision``. Components are given in merge order of their first members.
    """
    kept: dict[str, int] = {}
    for number, identifier in enumerate(ids):
        holder = kept.get(identifier)
        if holder is None:
            kept[identifier] = number
        elif not deleted[number] and not deleted[holder]:
            raise IdentityCollision(identifier)
        elif deleted[holder] and not deleted[number]:
            kept[identifier] = number
    return set(kept.values())


def encode_entities(entities: Sequence[Mapping[str, Any]]) -> bytes:
    """A JSON array, one entity per line, keys sorted (the documented output shape)."""
    if not entities:
        return b"[]\n"
    return b"[\n" + b",\n".join(_ENCODER.encode(e) for e in entities) + b"\n]\n"
