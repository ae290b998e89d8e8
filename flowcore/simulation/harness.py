"""Runs a flow under a fault schedule, restarting it after each simulated crash, and
checks the invariants afterwards.

One run: fresh copies of the inputs, empty output folders and a new data directory
(real repositories, as the settings name them) under the work directory; a
``ManualClock`` and the deterministic scheduler; the fault hooks installed
(``injector.py``); the flow runs until idle. A crash abandons the node (no checkpoint,
no shutdown) and opens the data directory again, which recovers, and the run goes on.
At the end the node is abandoned once more and reopened, and the invariants are checked
on what recovery finds (``invariants.py``), with the delivery ledger (``flowcore.delivery``)
standing for the outside world.

The first call works out the run's shape with a run without faults (how many commits,
triggers, content writes and offload calls it makes), from which a seed's faults are
drawn, and keeps that run's outputs and state for the ``same_*_as_fault_free``
invariants.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flowcore.clock import ManualClock
from flowcore.delivery import Delivery, DeliveryLedger, recording
from flowcore.engine.node import Node
from flowcore.engine.scheduler import DeterministicScheduler
from flowcore.errors import ConfigurationError
from flowcore.flow.definition import FlowDefinition, parse_flow, read_flow_document
from flowcore.model.provenance import ProvenanceEvent
from flowcore.settings import EngineSettings
from flowcore.simulation import invariants
from flowcore.simulation.child import KILLED_EXIT_CODE, read_ledger
from flowcore.simulation.faults import (
    Fault,
    FaultKind,
    FaultSchedule,
    RunShape,
    draw_schedule,
)
from flowcore.simulation.injector import Counts, FaultInjector, SimulatedCrash
from flowcore.simulation.invariants import Redelivery, Violation
from flowcore.simulation.spec import SimulationSpec
from flowcore.units import parse_time_period_ms

START_MS = 1_700_000_000_000
"""Where every simulated run's clock starts (input files are dated to it)."""
MAX_RESTARTS = 100


@dataclass(slots=True)
class RunResult:
    """How one simulated run went."""

    schedule: FaultSchedule
    met: list[Fault] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    redeliveries: list[Redelivery] = field(default_factory=list)
    deliveries: list[Delivery] = field(default_factory=list)
    restarts: int = 0
    counts: Counts = field(default_factory=Counts)
    idle: bool = True
    outputs: dict[str, str] = field(default_factory=dict)
    """``parameter/relative path`` -> sha256, of the output folders at the end."""
    state: dict[str, dict[str, str]] = field(default_factory=dict)
    keyed_state: dict[str, dict[str, str]] = field(default_factory=dict)
    """Component -> key (hex) -> value (hex)."""

    @property
    def failed(self) -> bool:
        return bool(self.violations)

    @property
    def seed(self) -> int:
        return self.schedule.seed

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "failed": self.failed,
            "schedule": self.schedule.to_json(),
            "faults_met": [f.describe() for f in self.met],
            "restarts": self.restarts,
            "violations": [
                {"invariant": v.invariant, "message": v.message} for v in self.violations
            ],
            "redeliveries": [
                {
                    "component": r.component,
                    "flowfile": r.flowfile_uuid,
                    "uri": r.uri,
                    "times": r.times,
                }
                for r in self.redeliveries
            ],
            "deliveries": len(self.deliveries),
        }


@dataclass(frozen=True, slots=True)
class RunView:
    """What a Python hook is given: the node reopened after the run (query its
    provenance, queues and state), the folders, the ledger and the provenance events."""

    node: Node
    inputs: dict[str, Path]
    outputs: dict[str, Path]
    deliveries: list[Delivery]
    events: list[ProvenanceEvent]
    result: RunResult


Hook = Callable[[RunView], Iterable[str] | None]
"""A user invariant: returns (or yields) what is wrong, or raises AssertionError."""


class Simulation:
    """A flow, its simulation section and a work directory: runs seeds and schedules."""

    def __init__(
        self,
        flow: Path | dict[str, Any],
        *,
        work_dir: Path | None = None,
        parameters: dict[str, str] | None = None,
        inputs: dict[str, Path] | None = None,
        spec: SimulationSpec | None = None,
        hooks: Iterable[Hook] = (),
        keep_runs: bool = False,
        allow_unsupported: bool = False,
        kill: bool = False,
    ) -> None:
        self.flow_name = str(flow) if isinstance(flow, Path) else "flow"
        if isinstance(flow, Path):
            self.folder = flow.resolve().parent
            document = read_flow_document(flow, allow_unsupported=allow_unsupported)
            if not isinstance(document, dict):
                raise ConfigurationError(f"{flow}: a flow definition must be a mapping")
        else:
            self.folder = Path.cwd()
            document = flow
        self._document: dict[str, Any] = copy.deepcopy(document)
        self.spec = spec or SimulationSpec.parse(self._document.pop("simulation", None))
        self._document.pop("simulation", None)
        flow_section = self._document.get("flow")
        own: dict[str, str] = {}
        if isinstance(flow_section, dict) and isinstance(flow_section.get("parameters"), dict):
            own = {str(k): str(v) for k, v in flow_section["parameters"].items()}
        own.update(self.spec.parameters)
        own.update(parameters or {})
        self._parameters = own
        given = {name: Path(path) for name, path in (inputs or {}).items()}
        self._inputs = {
            name: given[name] if name in given else self._input_folder(name, value)
            for name, value in self.spec.input_parameters(own).items()
        }
        self._inputs.update(given)
        self._outputs = self.spec.output_parameters(own)
        self._idle_wait_ms = parse_time_period_ms(self.spec.idle_wait)
        self._hooks: list[Hook] = list(hooks)
        if self.spec.hook:
            self._hooks.append(load_hook(self.spec.hook, self.folder))
        self._own_work_dir = work_dir is None
        self.work_dir = (
            Path(tempfile.mkdtemp(prefix="flowcore-sim-")) if work_dir is None else work_dir
        )
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self.keep_runs = keep_runs
        self.kill = kill
        """Run each stretch in a child process that a crash ends with ``os._exit``."""
        self._runs = 0
        self._reference: RunResult | None = None
        self._shape: RunShape | None = None
        self.definition()  # an invalid flow is refused before anything runs

    def _input_folder(self, name: str, value: str) -> Path:
        path = Path(value).expanduser()
        if path.is_absolute():
            return path
        beside = self.folder / path
        if beside.exists():
            return beside
        cwd = Path.cwd() / path
        if cwd.exists():
            return cwd
        msg = f"the input folder of parameter '{name}' ({value}) was not found beside the flow"
        raise ConfigurationError(msg)

    # -- building -------------------------------------------------------------------------

    def definition(
        self,
        parameters: dict[str, str] | None = None,
        back_pressure: dict[str, int] | None = None,
    ) -> FlowDefinition:
        document = copy.deepcopy(self._document)
        flow = document.setdefault("flow", {})
        values = {**self._parameters, **(parameters or {})}
        flow["parameters"] = {**flow.get("parameters", {}), **values}
        if self.spec.run_once_sources:
            fed = {c.get("to") for c in flow.get("connections", []) if isinstance(c, dict)}
            for name, processor in (flow.get("processors") or {}).items():
                if name not in fed and isinstance(processor, dict):
                    processor.setdefault("schedule", {})["max_runs"] = 1
        for connection in flow.get("connections", []) if back_pressure else []:
            name = _connection_name(connection)
            if name in (back_pressure or {}):
                connection["back_pressure"] = {
                    **(connection.get("back_pressure") or {}),
                    "object_threshold": back_pressure[name],  # type: ignore[index]
                }
        definition = parse_flow(document)
        definition.set_folder(self.folder)
        return definition

    def connection_names(self) -> tuple[str, ...]:
        flow = self._document.get("flow", {})
        return tuple(_connection_name(c) for c in flow.get("connections", []))

    def settings(self, data_dir: Path) -> EngineSettings:
        values = copy.deepcopy(self.spec.settings)
        spark = dict(values.get("spark") or {})
        spark["fallback_to_local"] = True
        values["spark"] = spark
        values["data_dir"] = data_dir
        return EngineSettings.model_validate(values)

    # -- seeds and schedules --------------------------------------------------------------

    def shape(self) -> RunShape:
        """How much a run without faults does (run once, then kept)."""
        if self._shape is None:
            reference = self.run(FaultSchedule(seed=-1))
            self._reference = reference
            counts = reference.counts
            self._shape = RunShape(
                commits=counts.commits,
                triggers=counts.triggers,
                content_writes=counts.content_writes,
                offload_calls=counts.offload_calls,
                connections=self.connection_names(),
            )
        return self._shape

    @property
    def reference(self) -> RunResult:
        """The run without faults."""
        self.shape()
        assert self._reference is not None
        return self._reference

    def schedule_for(self, seed: int, kinds: Iterable[FaultKind] | None = None) -> FaultSchedule:
        chosen = tuple(kinds) if kinds is not None else tuple(self.spec.faults)
        return draw_schedule(seed, self.shape(), chosen, self.spec.max_faults)

    def run_seed(self, seed: int) -> RunResult:
        return self.run(self.schedule_for(seed))

    # -- one run --------------------------------------------------------------------------

    def run(self, schedule: FaultSchedule) -> RunResult:
        """One run under ``schedule`` in a fresh directory; its result with the violations."""
        self._runs += 1
        root = self.work_dir / f"run-{self._runs:05d}"
        if root.exists():
            shutil.rmtree(root)
        root.mkdir(parents=True)
        try:
            return self._run(schedule, root)
        finally:
            if not self.keep_runs:
                shutil.rmtree(root, ignore_errors=True)

    def _run(self, schedule: FaultSchedule, root: Path) -> RunResult:
        inputs = {name: root / "inputs" / _safe(name) for name in self._inputs}
        for name, source in self._inputs.items():
            _copy_dated(source, inputs[name])
        outputs = {name: root / "outputs" / _safe(name) for name in self._outputs}
        for folder in outputs.values():
            folder.mkdir(parents=True)
        parameters = {name: str(path) for name, path in {**inputs, **outputs}.items()}
        back_pressure = {
            f.connection: f.threshold or 1
            for f in schedule.faults
            if f.kind is FaultKind.BACK_PRESSURE and f.connection
        }
        definition = self.definition(parameters, back_pressure)
        settings = self.settings(root / "data")
        clock = ManualClock(START_MS)
        injector = FaultInjector(schedule, clock)
        result = RunResult(schedule)
        result.met.extend(
            f for f in schedule.faults if f.kind is FaultKind.BACK_PRESSURE and f.connection
        )
        if self.kill:
            self._run_killed(schedule, root, definition, settings, inputs, outputs, result)
            return result
        ledger = DeliveryLedger()
        with recording(ledger):
            node = self._open(settings, definition, clock, injector, None)
            try:
                node = self._drive(node, settings, definition, clock, injector, result)
                result.violations.extend(invariants.check_state(node))
                if any(c.queue.in_flight() for c in node.connections.values()):
                    # FlowFiles still held by a session (a bin open across triggers): what
                    # a restart makes of them is what counts.
                    node.abandon()
                    node = Node.from_flow(settings, definition, clock)
                    self._check_swept(node, "the final restart", result)
                self._check(node, inputs, outputs, ledger.deliveries, result)
            finally:
                node.close()
        result.met = list(dict.fromkeys(result.met + injector.met))
        result.counts = injector.counts
        return result

    def _open(
        self,
        settings: EngineSettings,
        definition: FlowDefinition,
        clock: ManualClock,
        injector: FaultInjector,
        runs: dict[str, int] | None,
    ) -> Node:
        injector.crashed = False
        injector.crash_durable = False
        injector.triggering = None
        node = Node.from_flow(settings, definition, clock)
        for name, count in (runs or {}).items():
            node.processors[name].resume_runs(count)
        injector.install(node, count_failed_runs=self.spec.count_failed_runs)
        return node

    def _drive(
        self,
        node: Node,
        settings: EngineSettings,
        definition: FlowDefinition,
        clock: ManualClock,
        injector: FaultInjector,
        result: RunResult,
    ) -> Node:
        """Run until idle, restarting after every crash; returns the last node."""
        max_triggers = self.spec.max_triggers
        while True:
            scheduler = DeterministicScheduler(node)
            try:
                summary = scheduler.run_until_idle(
                    max_triggers=max(max_triggers - injector.counts.triggers, 1),
                    retry_wait_ms=self._idle_wait_ms,
                )
            except SimulatedCrash:
                runs = {name: p.runs for name, p in node.processors.items()}
                crashed_in = injector.triggering
                if crashed_in in runs and not injector.crash_durable:
                    runs[crashed_in] = max(runs[crashed_in] - 1, 0)
                node.abandon()
                result.restarts += 1
                if result.restarts > MAX_RESTARTS:
                    msg = f"more than {MAX_RESTARTS} restarts in one run"
                    raise RuntimeError(msg) from None
                node = self._open(settings, definition, clock, injector, runs)
                self._check_swept(node, f"restart {result.restarts}", result)
                continue
            result.idle = summary.idle
            return node

    def _run_killed(
        self,
        schedule: FaultSchedule,
        root: Path,
        definition: FlowDefinition,
        settings: EngineSettings,
        inputs: dict[str, Path],
        outputs: dict[str, Path],
        result: RunResult,
    ) -> None:
        """``kill``: child processes run the flow; a crash ends one with ``os._exit``."""
        ledger_path = root / "deliveries.jsonl"
        progress_path = root / "progress.json"
        progress: dict[str, Any] = {
            "clock_ms": START_MS,
            "counts": {},
            "runs": {},
            "met": [],
        }
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        while True:
            job = {
                "flow": definition.model_dump(mode="json", by_alias=True, exclude_none=True),
                "folder": str(self.folder),
                "settings": settings.model_dump(mode="json"),
                "schedule": schedule.to_json(),
                "clock_ms": progress["clock_ms"],
                "counts": progress["counts"],
                "runs": progress["runs"],
                "met": progress["met"],
                "restarts": result.restarts,
                "max_triggers": self.spec.max_triggers,
                "idle_wait_ms": self._idle_wait_ms,
                "count_failed_runs": self.spec.count_failed_runs,
                "ledger": str(ledger_path),
                "progress": str(progress_path),
            }
            job_path = root / "job.json"
            job_path.write_text(json.dumps(job), encoding="utf-8")
            progress_path.unlink(missing_ok=True)
            done = subprocess.run(
                [sys.executable, "-m", "flowcore.simulation.child", str(job_path)],
                capture_output=True,
                text=True,
                env=environment,
                check=False,
            )
            if done.returncode not in (0, KILLED_EXIT_CODE) or not progress_path.exists():
                tail = "\n".join(done.stderr.strip().splitlines()[-15:])
                msg = f"the simulated process failed (exit code {done.returncode}):\n{tail}"
                raise RuntimeError(msg)
            progress = json.loads(progress_path.read_text(encoding="utf-8"))
            result.violations.extend(Violation("claims", v) for v in progress["violations"])
            if done.returncode == 0:
                break
            result.restarts += 1
            if result.restarts > MAX_RESTARTS:
                msg = f"more than {MAX_RESTARTS} restarts in one run"
                raise RuntimeError(msg)
        result.idle = bool(progress["idle"])
        result.met = [Fault.from_json(f) for f in progress["met"]]
        result.met.extend(
            f for f in schedule.faults if f.kind is FaultKind.BACK_PRESSURE and f.connection
        )
        result.counts = Counts(**progress["counts"])
        node = Node.from_flow(settings, definition, ManualClock(progress["clock_ms"]))
        try:
            self._check_swept(node, "the last process ended", result)
            self._check(node, inputs, outputs, read_ledger(ledger_path), result)
        finally:
            node.close()

    @staticmethod
    def _check_swept(node: Node, when: str, result: RunResult) -> None:
        orphans = invariants.unreferenced_claim_files(node)
        if orphans:
            result.violations.append(
                Violation(
                    "claims",
                    f"after {when}, {len(orphans)} claim file(s) nothing references remain: "
                    + ", ".join(orphans[:10]),
                )
            )

    def _check(
        self,
        node: Node,
        inputs: dict[str, Path],
        outputs: dict[str, Path],
        deliveries: list[Delivery],
        result: RunResult,
    ) -> None:
        events = invariants.all_events(node)
        queued = invariants.queued_flowfiles(node)
        problems = result.violations
        problems.extend(invariants.check_accounting(events, queued))
        problems.extend(invariants.check_provenance(events))
        problems.extend(invariants.check_claims(node, queued))
        declared = self.spec.invariants
        found, again = invariants.check_deliveries(
            events, deliveries, declared.exactly_once_delivery
        )
        problems.extend(found)
        result.redeliveries = again
        result.deliveries = deliveries
        result.outputs = invariants.file_digests(outputs)
        result.state = {name: node.flowfiles.load_state(name) for name in node.processors}
        result.keyed_state = {name: _keyed(node, name) for name in node.processors}
        if not result.idle:
            busy = f"the flow was still busy after {self.spec.max_triggers} triggers"
            if not self.spec.run_once_sources:
                busy += (
                    " (a source that keeps finding work, such as GetFile with Keep Source"
                    " File, is never idle: simulate with --run-once-sources, or set"
                    " simulation.run_once_sources in the flow)"
                )
            problems.append(Violation("idle", busy))
        if declared.lines_delivered_once is not None:
            spec = declared.lines_delivered_once
            if spec.input not in inputs:
                msg = f"lines_delivered_once names '{spec.input}', which is no input parameter"
                raise ConfigurationError(msg)
            # The inputs as given: a source may have consumed the run's copies.
            original = self._inputs[spec.input]
            problems.extend(invariants.check_lines(original, outputs, spec.skip_header))
        if result.schedule.seed != -1 and (
            declared.same_outputs_as_fault_free or declared.same_state_as_fault_free
        ):
            reference = self.reference
            if declared.same_outputs_as_fault_free and _by_content(result.outputs) != _by_content(
                reference.outputs
            ):
                problems.append(
                    Violation(
                        "same_outputs_as_fault_free", _difference(reference.outputs, result.outputs)
                    )
                )
            if declared.same_state_as_fault_free and (
                result.state != reference.state or result.keyed_state != reference.keyed_state
            ):
                problems.append(
                    Violation(
                        "same_state_as_fault_free",
                        "processor state or keyed state differs from the run without faults",
                    )
                )
        view = RunView(node, inputs, outputs, deliveries, events, result)
        for hook in self._hooks:
            name = getattr(hook, "__name__", "hook")
            try:
                found_by_hook = list(hook(view) or [])
            except AssertionError as exc:
                found_by_hook = [str(exc) or "assertion failed"]
            problems.extend(Violation(name, message) for message in found_by_hook)

    # -- tidying --------------------------------------------------------------------------

    def close(self) -> None:
        if self._own_work_dir and not self.keep_runs:
            shutil.rmtree(self.work_dir, ignore_errors=True)

    def __enter__(self) -> Simulation:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def _connection_name(connection: Any) -> str:
    if not isinstance(connection, dict):
        return str(connection)
    if connection.get("name"):
        return str(connection["name"])
    rels = ",".join(connection.get("relationships") or [])
    return f"{connection.get('from')}.{rels}->{connection.get('to')}"


def _keyed(node: Node, component: str) -> dict[str, str]:
    values: dict[str, str] = {}
    after: bytes | None = None
    while True:
        items = node.flowfiles.scan_keyed(component, b"", after, 1000)
        for item in items:
            values[item.key.hex()] = item.value.hex()
        if len(items) < 1000:
            return values
        after = items[-1].key


def _by_content(outputs: dict[str, str]) -> Counter[tuple[str, str]]:
    """Output files as (folder, sha256): names often carry FlowFile uuids, which differ
    from run to run, so they are not compared."""
    return Counter((name.rpartition("/")[0], digest) for name, digest in outputs.items())


def _difference(expected: dict[str, str], actual: dict[str, str]) -> str:
    want, got = _by_content(expected), _by_content(actual)
    missing = sorted(f"{folder}/ (sha256 {digest[:12]})" for folder, digest in want - got)
    extra = sorted(f"{folder}/ (sha256 {digest[:12]})" for folder, digest in got - want)
    parts = []
    if missing:
        parts.append(f"{len(missing)} missing: {', '.join(missing[:10])}")
    if extra:
        parts.append(f"{len(extra)} not in it: {', '.join(extra[:10])}")
    return "the output files differ from the run without faults: " + "; ".join(parts)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def _copy_dated(source: Path, target: Path) -> None:
    """Copy an input folder, every file dated to the simulated clock's start."""
    if source.is_dir():
        shutil.copytree(source, target)
    else:
        target.mkdir(parents=True)
        shutil.copy2(source, target / source.name)
    stamp = START_MS / 1000
    for path in target.rglob("*"):
        os.utime(path, (stamp, stamp))


def load_hook(reference: str, folder: Path) -> Hook:
    """``package.module:function``, or ``file.py:function`` relative to the flow's folder."""
    module_name, _, function = reference.rpartition(":")
    if not module_name or not function:
        raise ConfigurationError(
            f"a hook is 'module:function' or 'file.py:function', not '{reference}'"
        )
    if module_name.endswith(".py"):
        path = (folder / module_name).resolve()
        spec = importlib.util.spec_from_file_location(f"flowcore_sim_hook_{path.stem}", path)
        if spec is None or spec.loader is None or not path.is_file():
            raise ConfigurationError(f"the hook file {path} was not found")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ConfigurationError(
                f"cannot import the hook module '{module_name}': {exc}"
            ) from None
    hook = getattr(module, function, None)
    if not callable(hook):
        raise ConfigurationError(f"'{reference}' names no function")
    return hook  # type: ignore[no-any-return]
