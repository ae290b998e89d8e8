"""Claimant counts per resource claim, and which claims may be released.

A claim is *in use* while it is writable (still taking appends) or while its count is
above zero, as in NiFi's StandardResourceClaim. A claim that is not in use becomes a
release candidate: when its count drops to zero while frozen, or when it is frozen with a
count of zero. The decision to release is re-checked under the same lock as the counts,
so a claim referenced again after it was handed out as a candidate is kept.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping

from flowcore.model.flowfile import ResourceClaim

_log = logging.getLogger(__name__)


class ClaimantCounts:
    """Thread-safe counts, writable flags and release candidates."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[ResourceClaim, int] = {}
        self._writable: set[ResourceClaim] = set()
        self._candidates: dict[ResourceClaim, None] = {}

    def count(self, resource: ResourceClaim) -> int:
        with self._lock:
            return self._counts.get(resource, 0)

    def increment(self, resource: ResourceClaim, amount: int = 1) -> int:
        if amount < 0:
            msg = f"cannot increment a claimant count by {amount}"
            raise ValueError(msg)
        with self._lock:
            value = self._counts.get(resource, 0) + amount
            if value:
                self._counts[resource] = value
                self._candidates.pop(resource, None)
            return value

    def count_new_content(self, resource: ResourceClaim) -> None:
        """+1 for a content just written (the write hot path: no checks, no result)."""
        with self._lock:
            counts = self._counts
            counts[resource] = counts.get(resource, 0) + 1
            if self._candidates:
                self._candidates.pop(resource, None)

    def decrement(self, resource: ResourceClaim, amount: int = 1) -> int:
        if amount < 0:
            msg = f"cannot decrement a claimant count by {amount}"
            raise ValueError(msg)
        with self._lock:
            value = self._counts.get(resource, 0) - amount
            if value < 0:
                # NiFi logs and carries on: failing here would fail a commit that is durable.
                _log.error("claimant count of %s decremented below zero (%d)", resource, value)
                value = 0
            if value:
                self._counts[resource] = value
            else:
                self._counts.pop(resource, None)
                if amount and resource not in self._writable:
                    self._candidates[resource] = None
            return value

    def mark_writable(self, resource: ResourceClaim) -> None:
        with self._lock:
            self._writable.add(resource)

    def is_writable(self, resource: ResourceClaim) -> bool:
        with self._lock:
            return resource in self._writable

    def freeze(self, resource: ResourceClaim) -> None:
        """The claim takes no more appends; with no claimants it becomes a candidate."""
        with self._lock:
            self._writable.discard(resource)
            if not self._counts.get(resource, 0):
                self._candidates[resource] = None

    def discard(self, resource: ResourceClaim) -> None:
        """Forget a claim whose file was removed before it held any content."""
        with self._lock:
            self._writable.discard(resource)
            self._candidates.pop(resource, None)

    def take_candidates(self) -> list[ResourceClaim]:
        with self._lock:
            taken = list(self._candidates)
            self._candidates.clear()
            return taken

    def reset(self, references: Mapping[ResourceClaim, int]) -> None:
        """Replace every count with ``references`` (recovery); candidates are dropped."""
        with self._lock:
            self._counts = {claim: count for claim, count in references.items() if count > 0}
            self._candidates.clear()

    def release_if_unused(self, resource: ResourceClaim, action: Callable[[], bool]) -> bool:
        """Run ``action`` if the claim is frozen with no claimants, holding the lock.

        Holding the lock while the file is moved means no increment can slip in between
        the check and the move. Returns what ``action`` returned, or False if in use.
        """
        with self._lock:
            if self._counts.get(resource, 0) or resource in self._writable:
                return False
            self._candidates.pop(resource, None)
            return action()
