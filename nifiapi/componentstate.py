"""Component state: ``context.getStateManager()``. One map per component in flowcore, so
``Scope.CLUSTER`` and ``Scope.LOCAL`` name the same state (a single node). Writes commit
with the trigger's session, as every other state change in flowcore."""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping
from enum import Enum

from nifiapi._engine import StateBackend


class Scope(Enum):
    CLUSTER = 1
    LOCAL = 2


class StateException(Exception):
    """A state operation that failed."""


def _version(values: Mapping[str, str]) -> int | None:
    """A version standing for the content: None for no state, else a checksum of it."""
    if not values:
        return None
    return zlib.crc32(json.dumps(values, sort_keys=True).encode("utf-8"))


class StateMap:
    def __init__(self, values: Mapping[str, str]) -> None:
        self._values = dict(values)
        self._version = _version(self._values)

    def getStateVersion(self) -> int | None:
        return self._version

    def get(self, key: str) -> str | None:
        return self._values.get(key)

    def toMap(self) -> dict[str, str]:
        return dict(self._values)


class StateManager:
    """The state of one component; values are strings.

    flowcore keeps no version number beside the state, so that the state holds exactly
    the processor's keys: a map's version stands for its content, and ``replace``
    succeeds when the state still holds what ``oldValue`` held.
    """

    def __init__(self, backend: StateBackend) -> None:
        self._backend = backend

    def setState(self, state: Mapping[str, str], scope: Scope) -> None:
        try:
            values = {str(k): str(v) for k, v in state.items()}
        except Exception as exc:
            raise StateException("Set state failed") from exc
        self._backend.set(values)

    def getState(self, scope: Scope) -> StateMap:
        return StateMap(self._backend.get())

    def replace(self, oldValue: StateMap, newValue: Mapping[str, str], scope: Scope) -> bool:
        """Replace the state if it still holds ``oldValue``'s content; False otherwise."""
        if self._backend.get() != oldValue.toMap():
            return False
        self.setState(newValue, scope)
        return True

    def clear(self, scope: Scope) -> None:
        self._backend.set({})
