"""The pytest plugin: a ``simulation`` fixture that runs a flow under seeded faults.

```python
def test_my_flow(simulation):
    simulation.run("flow.yaml", inputs={"input_dir": {"a.csv": "id\\n1\\n"}})
```

Each test gets its own seeds, derived from its node id (stable from run to run), so a
failure names a seed that replays it: ``pytest 'tests/test_x.py::test_my_flow'
--flowcore-seed=N --flowcore-seeds=1`` (``--flowcore-schedule FILE`` runs a printed,
shrunk schedule exactly). ``--flowcore-seeds=100`` explores more seeds per call (default 3,
or ``FLOWCORE_SEEDS``); ``@pytest.mark.flowcore_seed(N)`` fixes a test's first seed.
``simulation.clock`` is a ``ManualClock`` for the test's own use.

Installed as the ``flowcore`` pytest11 entry point; flowcore's own tests load it with
``pytest_plugins`` in the root ``conftest.py``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from flowcore.clock import ManualClock
from flowcore.simulation.faults import Fault, FaultKind, FaultSchedule
from flowcore.simulation.harness import START_MS, Hook, RunResult, Simulation
from flowcore.simulation.shrink import shrink

DEFAULT_SEEDS = 3
Inputs = Mapping[str, "Path | str | Mapping[str, str | bytes]"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("flowcore", "flowcore deterministic simulation")
    group.addoption(
        "--flowcore-seeds",
        type=int,
        default=None,
        help=f"seeds each simulation.run explores (default {DEFAULT_SEEDS}, or $FLOWCORE_SEEDS)",
    )
    group.addoption(
        "--flowcore-seed",
        type=int,
        default=None,
        help="the first seed of every simulation.run (default: derived from the test id)",
    )
    group.addoption(
        "--flowcore-schedule",
        default=None,
        help="a fault schedule (JSON, as printed for a failing seed) that every "
        "simulation.run runs exactly, instead of drawing from seeds",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "flowcore_seed(seed): the first seed of this test's simulation runs"
    )


def seed_for(node_id: str) -> int:
    """A test's own first seed: stable for its node id, different between tests."""
    return int.from_bytes(hashlib.sha256(node_id.encode()).digest()[:4], "big")


@dataclass(slots=True)
class SimulationReport:
    """The runs of one ``simulation.run`` call."""

    results: list[RunResult] = field(default_factory=list)
    minimal: RunResult | None = None
    """The first failing run, with its schedule shrunk."""
    replay: str = ""

    @property
    def failed(self) -> bool:
        return any(r.failed for r in self.results)

    @property
    def failing_seeds(self) -> list[int]:
        return [r.seed for r in self.results if r.failed]

    @property
    def redeliveries(self) -> int:
        return sum(len(r.redeliveries) for r in self.results)

    def message(self) -> str:
        if self.minimal is None:
            return "every invariant held"
        lines = [
            f"flowcore simulation failed for seed(s) {', '.join(map(str, self.failing_seeds))}",
            f"seed {self.minimal.seed}:",
        ]
        lines.extend(f"  {v.invariant}: {v.message}" for v in self.minimal.violations)
        lines.append("minimal fault schedule:")
        lines.extend(f"  - {d}" for d in self.minimal.schedule.describe() or ["no faults"])
        lines.append(self.minimal.schedule.dumps())
        lines.append(f"replay: {self.replay}")
        return "\n".join(lines)


class SimulationFixture:
    """What the ``simulation`` fixture gives a test."""

    def __init__(self, request: pytest.FixtureRequest, tmp_path: Path) -> None:
        self._request = request
        self._tmp_path = tmp_path
        config = request.config
        marker = request.node.get_closest_marker("flowcore_seed")
        option_seed = config.getoption("--flowcore-seed")
        if option_seed is not None:
            self.seed = int(option_seed)
        elif marker is not None and marker.args:
            self.seed = int(marker.args[0])
        else:
            self.seed = seed_for(request.node.nodeid)
        seeds = config.getoption("--flowcore-seeds")
        self.seeds = int(
            seeds if seeds is not None else os.environ.get("FLOWCORE_SEEDS", DEFAULT_SEEDS)
        )
        schedule = config.getoption("--flowcore-schedule")
        self._schedule = FaultSchedule.load(Path(schedule)) if schedule else None
        self.clock = ManualClock(START_MS)
        """A manual clock for the test's own use (simulated runs have their own)."""
        self._calls = 0
        self._simulations: list[Simulation] = []

    def run(
        self,
        flow: str | Path,
        *,
        faults: Iterable[FaultKind | str | Fault] | FaultSchedule | None = None,
        inputs: Inputs | None = None,
        parameters: Mapping[str, str] | None = None,
        hooks: Iterable[Hook] = (),
        seeds: int | None = None,
        max_faults: int | None = None,
        check: bool = True,
    ) -> SimulationReport:
        """Simulate ``flow`` (relative to the test file's folder) for this test's seeds.

        ``faults``: fault kinds to draw from (default: the flow's ``simulation.faults``),
        or exact faults (a list of ``Fault`` or a ``FaultSchedule``) to run once.
        ``inputs``: input parameter -> a folder, or {file name: content} written for it.
        With ``check`` (the default) a failing run fails the test, naming the seed and
        the shrunk schedule; without, the report says.
        """
        self._calls += 1
        path = Path(flow)
        if not path.is_absolute():
            path = Path(self._request.path).parent / path
        folders = self._inputs(inputs or {})
        simulation = Simulation(
            path,
            work_dir=self._tmp_path / f"simulation-{self._calls}",
            parameters=dict(parameters or {}),
            inputs=folders,
            hooks=hooks,
        )
        self._simulations.append(simulation)
        if max_faults is not None:
            simulation.spec.max_faults = max_faults
        kinds, exact = _faults(faults)
        if self._schedule is not None:
            exact = self._schedule
        report = SimulationReport()
        if exact is not None:
            report.results.append(simulation.run(exact))
        else:
            count = seeds if seeds is not None else self.seeds
            for seed in range(self.seed, self.seed + count):
                report.results.append(simulation.run(simulation.schedule_for(seed, kinds)))
        failing = [r for r in report.results if r.failed]
        if failing:
            report.minimal = shrink(simulation.run, failing[0]) if exact is None else failing[0]
            report.replay = (
                f"pytest '{self._request.node.nodeid}' --flowcore-seed={report.minimal.seed} "
                "--flowcore-seeds=1   (or --flowcore-schedule FILE with the JSON above)"
            )
            if check:
                pytest.fail(report.message(), pytrace=False)
        return report

    def _inputs(self, inputs: Inputs) -> dict[str, Path]:
        folders: dict[str, Path] = {}
        for name, value in inputs.items():
            if isinstance(value, Mapping):
                folder = self._tmp_path / f"inputs-{self._calls}" / name
                folder.mkdir(parents=True, exist_ok=True)
                for filename, content in value.items():
                    target = folder / filename
                    target.parent.mkdir(parents=True, exist_ok=True)
                    data = content.encode() if isinstance(content, str) else content
                    target.write_bytes(data)
                folders[name] = folder
            else:
                folder = Path(value)
                if not folder.is_absolute():
                    folder = Path(self._request.path).parent / folder
                folders[name] = folder
        return folders

    def close(self) -> None:
        for simulation in self._simulations:
            simulation.close()


def _faults(
    faults: Iterable[FaultKind | str | Fault] | FaultSchedule | None,
) -> tuple[tuple[FaultKind, ...] | None, FaultSchedule | None]:
    if faults is None:
        return None, None
    if isinstance(faults, FaultSchedule):
        return None, faults
    items = list(faults)
    if items and all(isinstance(f, Fault) for f in items):
        return None, FaultSchedule(0, tuple(f for f in items if isinstance(f, Fault)))
    return tuple(FaultKind(f) for f in items if not isinstance(f, Fault)), None


@pytest.fixture
def simulation(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SimulationFixture]:
    """Run flows under seeded faults; see the module docstring."""
    fixture = SimulationFixture(request, tmp_path)
    yield fixture
    fixture.close()


__all__ = ["SimulationFixture", "SimulationReport", "seed_for", "simulation"]
