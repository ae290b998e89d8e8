"""Stress: real flows on the real repositories under the ThreadedScheduler, with several
Concurrent Tasks, small back pressure thresholds, prioritizers, swapping, input fed while
the flow runs and processors stopped and started meanwhile. Whatever the interleaving,
each input line or record comes out exactly once, provenance has one DROP per FlowFile
that left and the FlowFile repository reopened agrees with the queues
(``tests/conservation_support.py``). ``CONSERVATION_ROUNDS`` runs more seeds by hand.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from flowcore.settings import EngineSettings
from tests.conservation_support import (
    Run,
    csv_documents,
    feed_ports,
    record_flow,
    record_units,
    signal_flow,
    signal_inputs,
    signal_units,
    text_documents,
    text_flow,
    text_units,
)

SettingsFactory = Callable[..., EngineSettings]
SEEDS = range(int(os.environ.get("CONSERVATION_ROUNDS", "1")))


def _settings(settings_factory: SettingsFactory, threads: int) -> EngineSettings:
    return settings_factory(
        scheduler={"threads": threads},
        queue={"swap_threshold": 6, "swap_batch_size": 3},
    )


@pytest.fixture
def runs() -> Iterator[list[Run]]:
    opened: list[Run] = []
    yield opened
    for run in opened:
        run.close()


@pytest.mark.parametrize("seed", SEEDS)
def test_text_flow_conserves_every_line(
    settings_factory: SettingsFactory, runs: list[Run], seed: int
) -> None:
    rng = random.Random(seed)
    documents = text_documents(rng, 40)
    run = Run(_settings(settings_factory, 2 + seed % 3), text_flow(), ("out_even", "out_odd"))
    runs.append(run)
    run.run(feed_ports(documents, rng))
    run.check(documents, text_units)


@pytest.mark.parametrize("seed", SEEDS)
def test_text_flow_conserves_every_line_while_processors_stop_and_start(
    settings_factory: SettingsFactory, runs: list[Run], seed: int
) -> None:
    rng = random.Random(seed)
    documents = text_documents(rng, 40)
    run = Run(_settings(settings_factory, 4 - seed % 3), text_flow(), ("out_even", "out_odd"))
    runs.append(run)
    toggled = ("split", "order", "merge_even", "merge_odd")
    run.run(feed_ports(documents, rng), toggle=toggled, seed=seed)
    run.check(documents, text_units)


@pytest.mark.parametrize("seed", SEEDS)
def test_record_flow_conserves_every_record(
    settings_factory: SettingsFactory, runs: list[Run], seed: int
) -> None:
    rng = random.Random(seed)
    documents = csv_documents(rng, 30)
    run = Run(_settings(settings_factory, 3), record_flow(), ("out",))
    runs.append(run)
    run.run(feed_ports(documents, rng), toggle=("merge", "partition"), seed=seed)
    run.check(documents, record_units)


@pytest.mark.parametrize("seed", SEEDS)
def test_detect_duplicate_wait_and_notify_release_every_item_once(
    settings_factory: SettingsFactory, runs: list[Run], tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    inputs = signal_inputs(rng, 60)
    flow = signal_flow(tmp_path / "cache")
    run = Run(_settings(settings_factory, 3), flow, ("out_released", "out_duplicate"))
    runs.append(run)
    toggled = ("dedupe", "wait", "notify")
    run.run(feed_ports(inputs.items, rng, signals=inputs.signals), toggle=toggled, seed=seed)
    run.check_units(inputs.expected(), signal_units)


@pytest.mark.parametrize("seed", SEEDS)
def test_text_flow_conserves_every_line_across_a_crash(
    settings_factory: SettingsFactory, runs: list[Run], seed: int
) -> None:
    """Let go of the node as a killed process once fed (bins hold FlowFiles, sessions
    are open): the flow opened again finishes with every line out exactly once."""
    rng = random.Random(seed)
    documents = text_documents(rng, 40)
    run = Run(_settings(settings_factory, 3), text_flow(), ("out_even", "out_odd"))
    runs.append(run)
    run.run(feed_ports(documents, rng), crash=True)
    run.check(documents, text_units)
