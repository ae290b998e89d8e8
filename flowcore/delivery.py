"""The delivery ledger: what processors delivered outside the engine, as it happened.

A processor that writes somewhere outside flowcore (PutFile's files, InvokeHTTP's
requests) calls ``record_delivery`` the moment the outside world has the data, which is
before its session commits. The SEND event says the same thing only once the session has
committed, so the two together tell a delivery that was repeated after a crash
(at-least-once: the ledger has it twice, provenance once) from one that was lost
(provenance has a SEND the ledger lacks, or an input never reached the ledger).

Nothing is recorded unless a ledger is active: ``flowcore simulate`` and the pytest
plugin activate one around a simulated run. In a production node ``record_delivery``
costs one context-variable lookup.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Delivery:
    """One delivery: which component sent which FlowFile where, and what it sent."""

    component: str
    flowfile_uuid: str
    uri: str
    size: int
    digest: str
    """sha256 of the delivered bytes (hex); empty when the processor did not say."""
    sequence: int
    """The delivery's place in the ledger (0, 1, ...)."""


class DeliveryLedger:
    """Deliveries in the order they happened; thread-safe, kept in memory.

    It stands for the outside world, so it outlives a simulated crash of the node.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._deliveries: list[Delivery] = []

    def record(
        self, component: str, flowfile_uuid: str, uri: str, content: bytes | None = None
    ) -> Delivery:
        digest = hashlib.sha256(content).hexdigest() if content is not None else ""
        with self._lock:
            delivery = Delivery(
                component,
                flowfile_uuid,
                uri,
                len(content) if content is not None else -1,
                digest,
                len(self._deliveries),
            )
            self._deliveries.append(delivery)
        return delivery

    @property
    def deliveries(self) -> list[Delivery]:
        with self._lock:
            return list(self._deliveries)


_ACTIVE: ContextVar[DeliveryLedger | None] = ContextVar("flowcore_delivery_ledger", default=None)
_GLOBAL: list[DeliveryLedger] = []
"""The ledger activated for every thread (a threaded scheduler's workers too)."""


@contextmanager
def recording(ledger: DeliveryLedger) -> Iterator[DeliveryLedger]:
    """Record the deliveries made inside (on any thread) into ``ledger``."""
    token = _ACTIVE.set(ledger)
    _GLOBAL.append(ledger)
    try:
        yield ledger
    finally:
        _GLOBAL.remove(ledger)
        _ACTIVE.reset(token)


def active_ledger() -> DeliveryLedger | None:
    ledger = _ACTIVE.get()
    if ledger is None and _GLOBAL:
        return _GLOBAL[-1]
    return ledger


def record_delivery(
    component: str,
    flowfile_uuid: str,
    uri: str,
    content: Callable[[], bytes] | None = None,
) -> None:
    """Note that ``component`` has just delivered a FlowFile to ``uri`` (no-op unless a
    ledger is active). Call it once the destination has the data, before the commit;
    ``content`` (what was sent) is asked for only while a ledger records."""
    ledger = active_ledger()
    if ledger is not None:
        ledger.record(component, flowfile_uuid, uri, content() if content is not None else None)
