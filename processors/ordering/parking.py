"""EnforceOrder's waiting FlowFiles, held in flight per group instead of going round the loop.

When ``wait`` loops straight back into EnforceOrder, a FlowFile that has to wait is kept
in flight, untouched, in one long-lived session (the parking session); this module keeps
the per-group index of those FlowFiles in memory: sorted by order, with the time each
started waiting, and a heap of the moments their Wait Timeout passes. Each trigger asks it
which parked FlowFiles could leave now (``reachable``) so that only those are looked at
again, never the whole wait loop.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from flowcore.model.flowfile import FlowFile


@dataclass(slots=True)
class Parked:
    """One FlowFile held in flight: its group, its order and when it started waiting."""

    flowfile: FlowFile
    group: str
    order: int
    started_at: int
    seq: int = 0

    def timed_out(self, now_ms: int, wait_timeout_ms: int) -> bool:
        return now_ms - self.started_at > wait_timeout_ms


@dataclass(frozen=True, slots=True)
class Arrival:
    """A FlowFile of this trigger's batch, as far as ``reachable`` needs it."""

    order: int
    timed_out: bool


def _sort_key(parked: Parked) -> tuple[int, int]:
    return parked.order, parked.seq


class ParkingLot:
    """The parked FlowFiles by group, in order, with their Wait Timeout deadlines."""

    def __init__(self) -> None:
        self._groups: dict[str, list[Parked]] = {}
        self._ids: set[int] = set()
        self._deadlines: list[tuple[int, int, str]] = []
        self._recheck: set[str] = set()
        self._seq = itertools.count()

    def __len__(self) -> int:
        return len(self._ids)

    def held(self, group: str) -> list[Parked]:
        """The group's parked FlowFiles, by order then arrival (do not modify)."""
        return self._groups.get(group, [])

    def groups(self) -> Iterable[str]:
        return self._groups.keys()

    def add(self, parked: Parked, wait_timeout_ms: int) -> None:
        parked.seq = next(self._seq)
        bisect.insort(self._groups.setdefault(parked.group, []), parked, key=_sort_key)
        self._ids.add(parked.flowfile.id)
        due = parked.started_at + wait_timeout_ms + 1  # timed out once strictly longer
        heapq.heappush(self._deadlines, (due, parked.flowfile.id, parked.group))

    def remove(self, group: str, leaving: Sequence[Parked]) -> None:
        """Forget FlowFiles that left the group (most often a prefix of it)."""
        if not leaving:
            return
        held = self._groups.get(group, [])
        ids = {p.flowfile.id for p in leaving}
        self._ids -= ids
        if len(leaving) <= len(held) and all(
            held[i].flowfile.id in ids for i in range(len(leaving))
        ):
            del held[: len(leaving)]
        else:
            held[:] = [p for p in held if p.flowfile.id not in ids]
        if not held:
            self._groups.pop(group, None)

    def recheck(self, group: str) -> None:
        """Look at the group's parked FlowFiles on the next trigger (its state was cleared)."""
        if group in self._groups:
            self._recheck.add(group)

    def take_due(self, now_ms: int) -> tuple[set[str], set[str]]:
        """Groups with a parked FlowFile now past its Wait Timeout, and groups to recheck."""
        due: set[str] = set()
        deadlines = self._deadlines
        while deadlines and deadlines[0][0] <= now_ms:
            _, flowfile_id, group = heapq.heappop(deadlines)
            if flowfile_id in self._ids:
                due.add(group)
        recheck, self._recheck = self._recheck, set()
        return due, recheck

    def next_wake_ms(self, now_ms: int) -> int | None:
        """When time alone next lets a parked FlowFile leave (a Wait Timeout passing)."""
        if self._recheck:
            return now_ms
        deadlines = self._deadlines
        while deadlines and deadlines[0][1] not in self._ids:
            heapq.heappop(deadlines)
        return deadlines[0][0] if deadlines else None

    def clear(self) -> None:
        self._groups.clear()
        self._ids.clear()
        self._deadlines.clear()
        self._recheck.clear()


def reachable(
    held: Sequence[Parked],
    arrivals: Sequence[Arrival],
    target: int | None,
    maximum: int | None,
    now_ms: int,
    wait_timeout_ms: int,
    due: bool,
) -> int:
    """How many of ``held`` (a prefix) could leave in this trigger; the rest would wait.

    Replays EnforceOrder's routing rule over the group's parked FlowFiles merged with this
    trigger's arrivals (parked first among equal orders, as they come first in the batch),
    stopping at the first FlowFile that would wait while nothing later can overtake. Every
    arrival is counted as valid, so the target here is never behind the one the real
    routing reaches (each step only moves it forward, and more FlowFiles move it further):
    the prefix may include FlowFiles that still wait, never miss one that leaves. Without
    a known target (a group being started afresh) every parked FlowFile is included.
    ``due`` says whether a parked FlowFile of the group may have timed out (its deadline
    passed); only then are they all looked at.
    """
    if target is None:
        return len(held)
    timed_out_orders = [a.order for a in arrivals if a.timed_out]
    if due:
        timed_out_orders += [p.order for p in held if p.timed_out(now_ms, wait_timeout_ms)]
    horizon = max(timed_out_orders, default=None)
    new = sorted(arrivals, key=lambda a: a.order)
    i = j = 0
    while i < len(held) or j < len(new):
        if j >= len(new) or (i < len(held) and held[i].order <= new[j].order):
            order = held[i].order
            timed_out = held[i].timed_out(now_ms, wait_timeout_ms)
            from_held = True
        else:
            order, timed_out = new[j].order, new[j].timed_out
            from_held = False
        if order > target and (horizon is None or order > horizon):
            break  # waits, and so does everything after it
        is_max = maximum is not None and order == maximum
        if order == target:
            target = target if is_max else target + 1
        elif order > target and timed_out:
            target = order if is_max else order + 1
        if from_held:
            i += 1
        else:
            j += 1
    return i
