"""Shrinking a failing fault schedule to a smallest one that still fails the same way.

Halves first (keep the first or the second half), then single faults dropped one at a
time; each candidate is run again and kept if it still breaks one of the invariants the
original run broke. Runs are deterministic, so the result replays exactly.
"""

from __future__ import annotations

from collections.abc import Callable

from flowcore.simulation.faults import FaultSchedule
from flowcore.simulation.harness import RunResult

Runner = Callable[[FaultSchedule], RunResult]


def shrink(run: Runner, failing: RunResult, max_runs: int = 64) -> RunResult:
    """The smallest schedule found (within ``max_runs`` re-runs) that still fails."""
    broken = {v.invariant for v in failing.violations}
    best = failing
    budget = max_runs

    def attempt(schedule: FaultSchedule) -> RunResult | None:
        nonlocal budget
        if budget <= 0:
            return None
        budget -= 1
        result = run(schedule)
        if broken & {v.invariant for v in result.violations}:
            return result
        return None

    progressed = True
    while progressed and budget > 0:
        progressed = False
        faults = best.schedule.faults
        if not faults:
            break
        candidates: list[FaultSchedule] = []
        if len(faults) > 1:
            half = len(faults) // 2
            candidates.append(FaultSchedule(best.seed, faults[:half]))
            candidates.append(FaultSchedule(best.seed, faults[half:]))
        candidates.extend(best.schedule.without(i) for i in range(len(faults)))
        for candidate in candidates:
            found = attempt(candidate)
            if found is not None:
                best = found
                progressed = True
                break
    return best
