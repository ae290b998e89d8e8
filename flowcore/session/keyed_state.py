"""A component's keyed durable store, as one process session sees it.

Processors that keep more than a small map between triggers (an entity index, say) keep
it here: bytes keys to bytes values, read on demand from the FlowFile repository, written
in the same repository transaction as the session's FlowFiles and provenance events
(commit step 2), so that after a crash both are there or neither is. Writes are staged in
the session; reads see them first; a rollback discards them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from flowcore.repository.flowfile import MAX_KEYED_STATE_KEY, KeyedStateStore

_SCAN_CHUNK = 4096


class KeyedState:
    """Staged writes over a component's committed keyed state."""

    __slots__ = ("_component_id", "_repository", "_staged")

    def __init__(self, component_id: str, repository: KeyedStateStore) -> None:
        self._component_id = component_id
        self._repository = repository
        self._staged: dict[bytes, bytes | None] = {}

    def get(self, key: bytes) -> bytes | None:
        if key in self._staged:
            return self._staged[key]
        return self._repository.load_keyed(self._component_id, [key]).get(key)

    def get_many(self, keys: Iterable[bytes]) -> dict[bytes, bytes]:
        """The values of those keys that exist (one repository read for the unstaged ones)."""
        found: dict[bytes, bytes] = {}
        unstaged: list[bytes] = []
        for key in keys:
            if key in self._staged:
                value = self._staged[key]
                if value is not None:
                    found[key] = value
            else:
                unstaged.append(key)
        if unstaged:
            found.update(self._repository.load_keyed(self._component_id, unstaged))
        return found

    def put(self, key: bytes, value: bytes) -> None:
        _check_key(key)
        self._staged[key] = value

    def delete(self, key: bytes) -> None:
        _check_key(key)
        self._staged[key] = None

    def scan(self, prefix: bytes = b"") -> Iterator[tuple[bytes, bytes]]:
        """Every key starting with ``prefix``, in key order, staged writes included."""
        staged = sorted((k, v) for k, v in self._staged.items() if k.startswith(prefix))
        position = 0
        after: bytes | None = None
        while True:
            chunk = self._repository.scan_keyed(self._component_id, prefix, after, _SCAN_CHUNK)
            for item in chunk:
                while position < len(staged) and staged[position][0] < item.key:
                    key, value = staged[position]
                    position += 1
                    if value is not None:
                        yield key, value
                if position < len(staged) and staged[position][0] == item.key:
                    key, value = staged[position]
                    position += 1
                    if value is not None:
                        yield key, value
                    continue
                yield item.key, item.value
            if len(chunk) < _SCAN_CHUNK:
                break
            after = chunk[-1].key
        for key, value in staged[position:]:
            if value is not None:
                yield key, value

    @property
    def changed(self) -> bool:
        return bool(self._staged)

    def take_changes(self) -> dict[bytes, bytes | None]:
        """The staged writes, handed to the commit path; the store starts afresh."""
        changes, self._staged = self._staged, {}
        return changes


def _check_key(key: bytes) -> None:
    if not key or len(key) > MAX_KEYED_STATE_KEY:
        msg = f"a keyed-state key must be 1 to {MAX_KEYED_STATE_KEY} bytes, not {len(key)}"
        raise ValueError(msg)
