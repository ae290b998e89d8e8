"""The durable entity index, kept in the component's keyed state (committed with its session).

Key layout (every key at most 400 bytes; long parts are hashed):

- ``m`` + member ref (``dataset NUL _id``), or ``M`` + a hash of a long ref:
  ``MemberRecord``, the entity (JSON), its index keys, the output id it is part of;
- ``v`` + expression key (8 bytes) + type-tagged value key: the value's posting head. Up to
  ``INLINE_REFS`` live members having that value are listed in it (sorted refs); a more
  popular value keeps only its member count there and one key per member,
  ``w`` + a 16-byte hash of the index key + the member key, whose value is the ref (so an
  update of a popular value writes one key, not the whole list, and reads it by a prefix
  scan). Which form a value has depends only on its member count, so the bulk and the
  incremental path write the same records;
- ``o`` + hash of an output id: ``OutputRecord``, the id, the hash of what was last
  emitted under it, its member refs;
- ``c``: the next ``_updated`` sequence number;
- ``d`` + dataset name: present once the dataset has delivered entities ("populated").

Deleted entities stay as members (with no index keys), so "the index is empty" and "no
member exists" are the same thing. ``StagedStore`` layers a unit of work on top of the
session's store so that a failing unit (``max_merged``) can be discarded alone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from typing import Any, Protocol

import msgspec

MEMBER = b"m"
LONG_MEMBER = b"M"
VALUE = b"v"
POSTING = b"w"
INLINE_REFS = 64
"""The most member refs a value's head lists itself; beyond, one key per member."""
OUTPUT = b"o"
COUNTER = b"c"
DATASET = b"d"
_MAX_REF = 380


class KeyedStore(Protocol):
    """What the index needs of a keyed store (``flowcore.session.keyed_state.KeyedState``)."""

    def get(self, key: bytes) -> bytes | None: ...

    def get_many(self, keys: Iterable[bytes]) -> dict[bytes, bytes]: ...

    def put(self, key: bytes, value: bytes) -> None: ...

    def delete(self, key: bytes) -> None: ...

    def scan(self, prefix: bytes = b"") -> Iterator[tuple[bytes, bytes]]: ...


class StagedStore:
    """Writes held back until ``flush``; reads see them first (one unit of work)."""

    __slots__ = ("_base", "_writes")

    def __init__(self, base: KeyedStore) -> None:
        self._base = base
        self._writes: dict[bytes, bytes | None] = {}

    def get(self, key: bytes) -> bytes | None:
        if key in self._writes:
            return self._writes[key]
        return self._base.get(key)

    def get_many(self, keys: Iterable[bytes]) -> dict[bytes, bytes]:
        keys = keys if isinstance(keys, list) else list(keys)
        if self._writes.keys().isdisjoint(keys):
            return self._base.get_many(keys)
        found: dict[bytes, bytes] = {}
        missing: list[bytes] = []
        for key in keys:
            if key in self._writes:
                value = self._writes[key]
                if value is not None:
                    found[key] = value
            else:
                missing.append(key)
        if missing:
            found.update(self._base.get_many(missing))
        return found

    def put(self, key: bytes, value: bytes) -> None:
        self._writes[key] = value

    def delete(self, key: bytes) -> None:
        self._writes[key] = None

    def scan(self, prefix: bytes = b"") -> Iterator[tuple[bytes, bytes]]:
        """The base's keys merged with the held-back writes, in key order, lazily."""
        staged = sorted((k, v) for k, v in self._writes.items() if k.startswith(prefix))
        position = 0
        for key, value in self._base.scan(prefix):
            while position < len(staged) and staged[position][0] < key:
                held_key, held = staged[position]
                position += 1
                if held is not None:
                    yield held_key, held
            if position < len(staged) and staged[position][0] == key:
                held = staged[position][1]
                position += 1
                if held is not None:
                    yield key, held
                continue
            yield key, value
        for held_key, held in staged[position:]:
            if held is not None:
                yield held_key, held

    def flush(self) -> None:
        """Hand the writes to the underlying store."""
        for key, value in self._writes.items():
            if value is None:
                self._base.delete(key)
            else:
                self._base.put(key, value)
        self._writes.clear()


class MemberRecord(msgspec.Struct, array_like=True, frozen=True):
    """One input entity, the keys it is indexed under and the output it is part of."""

    dataset: str
    id: str
    entity: bytes
    """The entity as JSON (exact numbers, any size)."""
    keys: list[bytes]
    """Expression key + value key, for every value the entity is indexed under."""
    out: str | None
    """The output id this member was last emitted in."""


class OutputRecord(msgspec.Struct, array_like=True, frozen=True):
    """An output id currently produced: the hash last emitted and its members."""

    id: str
    hash: bytes
    members: list[bytes]


_member_encoder = msgspec.msgpack.Encoder()
_member_decoder = msgspec.msgpack.Decoder(MemberRecord)
_output_decoder = msgspec.msgpack.Decoder(OutputRecord)
_head_decoder = msgspec.msgpack.Decoder(list[bytes] | int)
_int_decoder = msgspec.msgpack.Decoder(int)
_json_decoder = msgspec.json.Decoder(dict[str, Any])
_json_encoder = msgspec.json.Encoder()


def member_ref(dataset: str, identifier: str) -> bytes:
    """A member's reference: dataset name, NUL, ``_id`` (UTF-8)."""
    return dataset.encode("utf-8") + b"\x00" + identifier.encode("utf-8", "surrogatepass")


def member_key(ref: bytes) -> bytes:
    if len(ref) <= _MAX_REF:
        return MEMBER + ref
    return LONG_MEMBER + hashlib.blake2b(ref, digest_size=16).digest()


def output_key(identifier: str) -> bytes:
    digest = hashlib.blake2b(identifier.encode("utf-8", "surrogatepass"), digest_size=16)
    return OUTPUT + digest.digest()


def posting_prefix(key: bytes) -> bytes:
    """The prefix of the per-member keys of a popular value (``w`` + hash of its index key)."""
    return POSTING + hashlib.blake2b(key, digest_size=16).digest()


def encode_entity(entity: Any) -> bytes:
    return _json_encoder.encode(entity)


def decode_entity(data: bytes) -> dict[str, Any]:
    return _json_decoder.decode(data)


class EntityIndex:
    """Typed, batched access to the index records of one store."""

    __slots__ = ("_output_keys", "store")

    def __init__(self, store: KeyedStore) -> None:
        self.store = store
        self._output_keys: dict[str, bytes] = {}
        """``output_key`` of the ids read by ``outputs`` (often written or deleted next)."""

    def _output_key(self, identifier: str) -> bytes:
        key = self._output_keys.get(identifier)
        return output_key(identifier) if key is None else key

    def is_empty(self) -> bool:
        """No unit was ever applied (every unit writes the ``_updated`` counter)."""
        return self.store.get(COUNTER) is None

    def members(self, refs: Iterable[bytes]) -> dict[bytes, MemberRecord]:
        by_key = {MEMBER + ref if len(ref) <= _MAX_REF else member_key(ref): ref for ref in refs}
        found = self.store.get_many(by_key)
        decode = _member_decoder.decode
        return {by_key[k]: decode(v) for k, v in found.items()}

    def put_members(self, records: Iterable[tuple[bytes, MemberRecord]]) -> None:
        put, encode = self.store.put, _member_encoder.encode
        for ref, record in records:
            put(MEMBER + ref if len(ref) <= _MAX_REF else member_key(ref), encode(record))

    def values_into(self, keys: Iterable[bytes], found: dict[bytes, list[bytes]]) -> None:
        """Index key (expression + value) -> member refs, of these keys, into ``found``;
        an empty list for those that do not exist."""
        wanted = [VALUE + k for k in keys]
        got = self.store.get_many(wanted)
        decode = _head_decoder.decode
        for full in wanted:
            raw = got.get(full)
            if raw is None:
                found[full[1:]] = []
                continue
            head = decode(raw)
            found[full[1:]] = head if isinstance(head, list) else self._posted(full[1:])

    def _posted(self, key: bytes) -> list[bytes]:
        return [ref for _, ref in self.store.scan(posting_prefix(key))]

    def put_value(self, key: bytes, refs: list[bytes]) -> None:
        """Write a value's member refs from nothing (the bulk path: no earlier postings)."""
        if len(refs) <= INLINE_REFS:
            if refs:
                self.store.put(VALUE + key, _member_encoder.encode(sorted(refs)))
            return
        self.store.put(VALUE + key, _member_encoder.encode(len(refs)))
        prefix = posting_prefix(key)
        for ref in refs:
            self.store.put(prefix + member_key(ref), ref)

    def update_values(
        self,
        adds: dict[bytes, set[bytes]],
        removes: dict[bytes, set[bytes]],
    ) -> None:
        """Move members into and out of values (a ref removed is present, one added absent).

        A value of at most ``INLINE_REFS`` members is rewritten whole; a popular one gets
        one put or delete per moved member and its new count, and changes form only when
        its count crosses ``INLINE_REFS``.
        """
        touched = list(adds.keys() | removes.keys())
        full_keys = [VALUE + k for k in touched]
        found = self.store.get_many(full_keys)
        empty: set[bytes] = set()
        put, encode, decode = self.store.put, _member_encoder.encode, _head_decoder.decode
        for key, full in zip(touched, full_keys, strict=True):
            raw = found.get(full)
            head = decode(raw) if raw is not None else []
            added = adds.get(key, empty)
            removed = removes.get(key, empty)
            if isinstance(head, list):
                refs = (set(head) - removed) | added
                if len(refs) <= INLINE_REFS:
                    if refs:
                        put(full, encode(sorted(refs)))
                    else:
                        self.store.delete(full)
                else:
                    self.put_value(key, list(refs))
                continue
            count = head - len(removed) + len(added)
            prefix = posting_prefix(key)
            if count <= INLINE_REFS:
                posted = set(self._posted(key))
                for ref in posted:
                    self.store.delete(prefix + member_key(ref))
                refs = (posted - removed) | added
                if refs:
                    self.store.put(VALUE + key, _member_encoder.encode(sorted(refs)))
                else:
                    self.store.delete(VALUE + key)
                continue
            for ref in removed:
                self.store.delete(prefix + member_key(ref))
            for ref in added:
                self.store.put(prefix + member_key(ref), ref)
            self.store.put(VALUE + key, _member_encoder.encode(count))

    def outputs(self, identifiers: Iterable[str]) -> dict[str, OutputRecord]:
        cache = self._output_keys
        by_key: dict[bytes, str] = {}
        for identifier in identifiers:
            key = cache.get(identifier)
            if key is None:
                key = cache[identifier] = output_key(identifier)
            by_key[key] = identifier
        found = self.store.get_many(by_key)
        return {by_key[k]: _output_decoder.decode(v) for k, v in found.items()}

    def put_outputs(self, records: Iterable[OutputRecord]) -> None:
        put, encode, cache = self.store.put, _member_encoder.encode, self._output_keys
        for record in records:
            key = cache.get(record.id)
            put(output_key(record.id) if key is None else key, encode(record))

    def delete_output(self, identifier: str) -> None:
        self.store.delete(self._output_key(identifier))

    def next_updated(self) -> int:
        value = self.store.get(COUNTER)
        return 0 if value is None else _int_decoder.decode(value)

    def set_next_updated(self, value: int) -> None:
        self.store.put(COUNTER, _member_encoder.encode(value))

    def datasets_seen(self) -> set[str]:
        return {k[1:].decode("utf-8") for k, _ in self.store.scan(DATASET)}

    def mark_seen(self, dataset: str) -> None:
        self.store.put(DATASET + dataset.encode("utf-8"), b"")
