"""Keep long-lived objects out of the cyclic collector's way while a flow runs.

A node's process imports large libraries (DuckDB, Arrow, pandas through Arrow, pydantic)
whose hundreds of thousands of objects live as long as the process. Python's full
collection rescans every one of them each time, and a running flow triggers one every
few tens of thousands of FlowFiles: on the end-to-end benchmark that was a quarter of
the CPU time per FlowFile. While a scheduler runs, what was alive when it started (and
again after an indexing pass, which may have imported more) sits in the collector's
permanent generation, so collections look only at what the flow allocates since.

Freezing costs nothing (two list splices) and changes only cycle collection: objects
are still freed by reference counting. A reference cycle that became garbage before a
freeze waits until the run ends (or the next ``collect_frozen``) to be collected.
Schedulers nest and may run at once; the heap is unfrozen when the last one stops.
"""

from __future__ import annotations

import gc
import threading

_lock = threading.Lock()
_runs = 0


def freeze() -> None:
    """A scheduler starts: freeze what is alive now."""
    global _runs
    with _lock:
        _runs += 1
        gc.freeze()


def unfreeze() -> None:
    """A scheduler stops: once none runs, everything frozen is collectable again."""
    global _runs
    with _lock:
        if _runs == 0:
            return
        _runs -= 1
        if _runs == 0:
            gc.unfreeze()


def refreeze() -> None:
    """While a scheduler runs, freeze what is alive now too (after lazy imports)."""
    with _lock:
        if _runs:
            gc.freeze()


def collect_frozen() -> None:
    """While a scheduler runs, collect the cycles that were frozen, then freeze again.

    One full collection: a long-running node calls it now and then (maintenance), so
    that garbage frozen by ``refreeze`` does not wait until the node stops.
    """
    with _lock:
        if not _runs:
            return
        gc.unfreeze()
        gc.collect()
        gc.freeze()


def running() -> bool:
    """Whether a scheduler holds the heap frozen."""
    return _runs > 0
