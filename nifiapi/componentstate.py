"""Component state: ``context.getStateManager()``. One map per component in flowcore, so
``Scope.CLUSTER`` and ``Scope.LOCAL`` name the same state (a single node). Writes commit
with the trigger's session, as every other state change in flowcore."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum

from nifiapi._engine import StateBackend


class Scope(Enum):
    CLUSTER = 1
    LOCAL = 2


class StateException(Exception):
    """A state operation that failed."""


_VERSION_KEY = "\x00version"


class StateMap:
    def __init__(self, values: Mapping[str, str], version: int | None) -> None:
        self._values = dict(values)
        self._version = version

    def getStateVersion(self) -> int | None:
        return self._version

    def get(self, key: str) -> str | None:
        return self._values.get(key)

    def toMap(self) -> dict[str, str]:
        return dict(self._values)


class StateManager:
    """The state of one component; values are strings.

    The version (``getStateVersion``) is kept beside the values under a key processors
    never see, so that ``replace`` can refuse a stale map as NiFi does.
    """

    def __init__(self, backend: StateBackend) -> None:
        self._backend = backend

    def _read(self) -> tuple[dict[str, str], int | None]:
        stored = self._backend.get()
        raw = stored.pop(_VERSION_KEY, None)
        return stored, (int(raw) if raw is not None else None)

    def _write(self, values: Mapping[str, str], version: int | None) -> None:
        try:
            data = {str(k): str(v) for k, v in values.items()}
        except Exception as exc:
            raise StateException("Set state failed") from exc
        data[_VERSION_KEY] = str((version or 0) + 1)
        self._backend.set(data)

    def setState(self, state: Mapping[str, str], scope: Scope) -> None:
        _, version = self._read()
        self._write(state, version)

    def getState(self, scope: Scope) -> StateMap:
        values, version = self._read()
        return StateMap(values, version)

    def replace(self, oldValue: StateMap, newValue: Mapping[str, str], scope: Scope) -> bool:
        """Replace the state if it is still ``oldValue``'s version; False otherwise."""
        _, version = self._read()
        if version != oldValue.getStateVersion():
            return False
        self._write(newValue, version)
        return True

    def clear(self, scope: Scope) -> None:
        _, version = self._read()
        self._write({}, version)
