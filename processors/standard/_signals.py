"""The release signals Wait and Notify share through a map cache (NiFi's WaitNotifyProtocol).

A signal is stored as NiFi stores it: JSON with ``counts`` (counter name to count),
``attributes`` and ``releasableCount``. Updates are compare-and-set on the entry's
revision, retried a few times when another task changed the signal meanwhile.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from flowcore.errors import ProcessException
from processors.standard.map_cache import MapCache

CONSUMED = "consumed"
_RETRIES = 5
T = TypeVar("T")


class SignalConflict(ProcessException):
    """The signal kept changing under us; the caller rolls back and tries later (a
    ProcessException, as NiFi's Wait throws: the processor yields for its Yield Duration,
    not the administrative one, since concurrent tasks meet this in normal running)."""


@dataclass(slots=True)
class Signal:
    identifier: str
    counts: dict[str, int] = field(default_factory=dict)
    attributes: dict[str, str] = field(default_factory=dict)
    releasable: int = 0
    revision: int | None = None

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def count(self, name: str | None) -> int:
        return self.total if not name else self.counts.get(name, 0)

    def release(
        self, name: str | None, required: int, per_pass: int, candidates: list[T]
    ) -> tuple[list[T], list[T]]:
        """NiFi's releaseCandidates: signals become passes; passes release candidates."""
        if self.releasable < len(candidates):
            signals = self.count(name)
            passes, left = (signals // required, signals % required) if required else (0, signals)
            self.releasable += passes * per_pass
            if name:
                self.counts[name] = left
            else:
                self.counts[CONSUMED] = self.counts.get(CONSUMED, 0) - (signals - left)
        released = min(self.releasable, len(candidates))
        self.releasable -= released
        return candidates[:released], candidates[released:]

    def encode(self) -> bytes:
        return json.dumps(
            {
                "counts": self.counts,
                "attributes": self.attributes,
                "releasableCount": self.releasable,
            }
        ).encode()


def get_signal(cache: MapCache, identifier: str) -> Signal | None:
    found = cache.fetch(identifier.encode())
    if found is None:
        return None
    revision, value = found
    data = json.loads(value)
    return Signal(
        identifier,
        {str(k): int(v) for k, v in data.get("counts", {}).items()},
        {str(k): str(v) for k, v in data.get("attributes", {}).items()},
        int(data.get("releasableCount", 0)),
        revision,
    )


def replace(cache: MapCache, signal: Signal) -> None:
    if not cache.replace(signal.identifier.encode(), signal.encode(), signal.revision):
        msg = f"signal {signal.identifier} was changed concurrently"
        raise SignalConflict(msg)


def complete(cache: MapCache, signal: Signal) -> None:
    """Remove the consumed signal; a conflict if it changed since it was read or another
    task removed it meanwhile (two tasks consuming one signal would both release). One
    compare-and-delete: a Notify between a check and the removal was lost with it."""
    if signal.revision is None or not cache.remove_if(signal.identifier.encode(), signal.revision):
        msg = f"signal {signal.identifier} was changed concurrently"
        raise SignalConflict(msg)


def notify(
    cache: MapCache, identifier: str, deltas: Mapping[str, int], attributes: Mapping[str, str]
) -> Signal:
    """Add the deltas (0 resets a counter) and the attributes to a signal."""
    for _ in range(_RETRIES):
        signal = get_signal(cache, identifier) or Signal(identifier)
        signal.attributes.update(attributes)
        for name, delta in deltas.items():
            signal.counts[name] = 0 if delta == 0 else signal.counts.get(name, 0) + delta
        try:
            replace(cache, signal)
        except SignalConflict:
            continue
        return signal
    msg = f"failed to update signal {identifier} after {_RETRIES} attempts"
    raise SignalConflict(msg)
