"""200 seeded simulations of the samples per test run (``make soak`` runs 1,000 more).

Four samples that run without Spark and quickly (everyday, pos_merge, defragment,
enforce_order) are simulated under faults drawn from fixed seeds, on two worker
processes. Every run must keep every invariant: those of every flow and each sample's
own (pos_merge and defragment: every input line in exactly one merged file). A failure
names the sample, the seed and the fault schedule; ``flowcore simulate
samples/<name>/flow.yaml --replay SEED`` runs it again.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
SEEDS = {"everyday": 50, "pos_merge": 60, "defragment": 60, "enforce_order": 30}
CHUNKS = 2


def simulate(name: str, first: int, count: int) -> tuple[int, list[str]]:
    """Runs seeds first..first+count-1 of a sample; (runs, failures described)."""
    from flowcore.simulation import Simulation

    failures: list[str] = []
    folder = SAMPLES / name
    inputs = {"input_dir": folder / "input"} if (folder / "input").is_dir() else {}
    with Simulation(folder / "flow.yaml", inputs=inputs) as simulation:
        for seed in range(first, first + count):
            result = simulation.run_seed(seed)
            if result.failed:
                failures.append(
                    f"{name} seed {seed}: "
                    + "; ".join(f"{v.invariant}: {v.message}" for v in result.violations)
                    + f"\n  schedule: {result.schedule.dumps()}"
                )
    return count, failures


def test_two_hundred_seeded_simulations_of_the_samples_keep_every_invariant() -> None:
    jobs = []
    for name, seeds in SEEDS.items():
        step = -(-seeds // CHUNKS)
        jobs.extend((name, first, min(step, seeds - first)) for first in range(0, seeds, step))
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
        outcomes = list(pool.map(simulate, *zip(*jobs, strict=True)))
    assert sum(runs for runs, _ in outcomes) == sum(SEEDS.values()) >= 200
    failures = [failure for _, found in outcomes for failure in found]
    assert not failures, "\n".join(failures)
