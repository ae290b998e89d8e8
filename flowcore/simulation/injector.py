"""Where a fault schedule meets a running node: the commit path's fault hook, a wrapper
around each processor's trigger, the content repository and the offload boundary.

A crash is ``SimulatedCrash``, a ``BaseException`` no processor or framework code
catches: it unwinds the trigger like a dying process, and the harness then abandons the
node without closing it properly and opens the data directory again. Once crashed,
every further hook call raises again, so nothing more reaches the disk.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from flowcore.clock import ManualClock
from flowcore.engine.node import Node
from flowcore.engine.processor_node import ProcessorNode
from flowcore.errors import ProcessException, RepositoryFullError, SparkJobError
from flowcore.errors import SparkUnavailableError as SparkUnavailable
from flowcore.model.flowfile import ContentClaim, ResourceClaim
from flowcore.offload import ComputeServices
from flowcore.processor.processor import SessionFactoryProcessor
from flowcore.repository.content import ContentRepository, ContentWriter
from flowcore.session.commit import CommitPhase
from flowcore.simulation.faults import Fault, FaultKind, FaultSchedule

_DURABLE_PHASES = (CommitPhase.REPOSITORY_COMMITTED, CommitPhase.QUEUES_UPDATED)


class SimulatedCrash(BaseException):
    """The simulated process dies here."""


@dataclass(slots=True)
class Counts:
    """What the run has done so far (across restarts); faults are placed by these."""

    commits: int = 0
    triggers: int = 0
    content_writes: int = 0
    offload_calls: int = 0


@dataclass(slots=True)
class FaultInjector:
    """Fires a schedule's faults as the run reaches them; records which were met."""

    schedule: FaultSchedule
    clock: ManualClock
    counts: Counts = field(default_factory=Counts)
    met: list[Fault] = field(default_factory=list)
    crashed: bool = False
    crash_durable: bool = False
    """Whether the trigger that crashed had already committed durably."""
    triggering: str | None = None
    on_crash: Callable[[], None] | None = None
    """Called at a crash instead of unwinding (``--kill``: ends the process)."""
    _by_kind: dict[FaultKind, list[Fault]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for fault in self.schedule.faults:
            self._by_kind.setdefault(fault.kind, []).append(fault)

    def faults(self, kind: FaultKind) -> list[Fault]:
        return self._by_kind.get(kind, [])

    def _crash(self, fault: Fault, durable: bool) -> None:
        self.met.append(fault)
        self.crashed = True
        self.crash_durable = durable
        if self.on_crash is not None:
            self.on_crash()
        raise SimulatedCrash(fault.describe())

    # -- hooks ----------------------------------------------------------------------------

    def on_commit_phase(self, phase: CommitPhase) -> None:
        """The commit path's fault hook (called after each step of every commit)."""
        if self.crashed:
            raise SimulatedCrash("the process has died")
        if phase is CommitPhase.CONTENT_DURABLE:
            self.counts.commits += 1
            for fault in self.faults(FaultKind.REPOSITORY_FULL):
                if fault.at == self.counts.commits:
                    self.met.append(fault)
                    msg = (
                        "cannot commit: the FlowFile repository is full (simulated: the LMDB "
                        "map is full); nothing was committed: raise "
                        "flowfile_repository.max_map_size"
                    )
                    raise RepositoryFullError(
                        msg, repository="FlowFile", setting="flowfile_repository.max_map_size"
                    )
        for fault in self.faults(FaultKind.CRASH):
            if fault.at == self.counts.commits and fault.phase == phase.value:
                self._crash(fault, phase in _DURABLE_PHASES)

    def before_trigger(self, name: str) -> None:
        if self.crashed:
            raise SimulatedCrash("the process has died")
        self.counts.triggers += 1
        self.triggering = name
        number = self.counts.triggers
        for fault in self.faults(FaultKind.CLOCK_JUMP):
            if fault.at == number:
                self.met.append(fault)
                self.clock.advance(fault.seconds or 0.0)
        for fault in self.faults(FaultKind.CRASH):
            if fault.phase == "trigger" and fault.at == number:
                self._crash(fault, durable=False)
        for fault in self.faults(FaultKind.PROCESSOR_EXCEPTION):
            if fault.at == number:
                self.met.append(fault)
                msg = f"simulated processor exception in trigger {number} of '{name}'"
                raise ProcessException(msg)

    def on_content_write(self) -> None:
        if self.crashed:
            raise SimulatedCrash("the process has died")
        self.counts.content_writes += 1
        for fault in self.faults(FaultKind.CRASH):
            if fault.phase == "content write" and fault.at == self.counts.content_writes:
                self._crash(fault, durable=False)
        for fault in self.faults(FaultKind.DISK_FULL):
            if fault.at == self.counts.content_writes:
                self.met.append(fault)
                msg = (
                    "the content repository is full (simulated: out of disk space, ENOSPC); "
                    "nothing was stored: free space or add a container (content.containers)"
                )
                raise RepositoryFullError(msg, repository="content", setting="content.containers")

    def on_offload(self) -> None:
        if self.crashed:
            raise SimulatedCrash("the process has died")
        self.counts.offload_calls += 1
        for fault in self.faults(FaultKind.OFFLOAD):
            if fault.at == self.counts.offload_calls:
                self.met.append(fault)
                if fault.mode == "slow":
                    self.clock.advance(fault.seconds or 0.0)
                    msg = f"simulated: the Spark job ran {fault.seconds:g} s and failed"
                    raise SparkJobError(msg)
                raise SparkJobError("simulated: the Spark job failed")
        raise SparkUnavailable(
            "Spark is not started in a simulation: the work runs locally (spark.fallback_to_local)"
        )

    # -- wiring ---------------------------------------------------------------------------

    def install(self, node: Node, *, count_failed_runs: bool = True) -> None:
        """Put the hooks into a freshly opened node.

        ``count_failed_runs`` false: a trigger that fails (rolled back) does not count
        toward ``max_runs``, so a Run Once source runs again after a failed run."""
        node.committer.fault_hook = self.on_commit_phase
        content = cast(ContentRepository, _FaultyContent(node.services.content, self))
        node.services.content = content
        compute = SimulatedCompute(node, self)
        node.compute = compute
        for name, processor_node in node.processors.items():
            processor_node.compute = compute
            _wrap_trigger(processor_node.processor, name, self)
            if not count_failed_runs and processor_node.schedule.max_runs is not None:
                _uncount_failures(processor_node)


def _wrap_trigger(processor: Any, name: str, injector: FaultInjector) -> None:
    attribute = (
        "on_trigger_with_factory"
        if isinstance(processor, SessionFactoryProcessor)
        else "on_trigger"
    )
    inner: Callable[..., None] = getattr(processor, attribute)

    @functools.wraps(inner)
    def trigger(*args: Any, **kwargs: Any) -> None:
        injector.before_trigger(name)
        inner(*args, **kwargs)

    setattr(processor, attribute, trigger)


def _uncount_failures(processor_node: ProcessorNode) -> None:
    inner = processor_node.trigger

    @functools.wraps(inner)
    def trigger(*args: Any, **kwargs: Any) -> bool:
        done = inner(*args, **kwargs)
        if not done:
            processor_node.resume_runs(max(processor_node.runs - 1, 0))
        return done

    processor_node.trigger = trigger  # type: ignore[method-assign]


class _FaultyContent:
    """The content repository as sessions see it: writes can meet a full disk."""

    def __init__(self, inner: ContentRepository, injector: FaultInjector) -> None:
        self._inner = inner
        self._injector = injector

    def create_writer(self) -> ContentWriter:
        self._injector.on_content_write()
        return self._inner.create_writer()

    def write(self, data: bytes | bytearray | memoryview) -> ContentClaim:
        self._injector.on_content_write()
        return self._inner.write(data)

    def increment(self, resource: ResourceClaim, amount: int = 1) -> int:
        return self._inner.increment(resource, amount)

    def decrement(self, resource: ResourceClaim, amount: int = 1) -> int:
        return self._inner.decrement(resource, amount)

    def flush(self, resources: Iterable[ResourceClaim], fsync: bool) -> None:
        self._inner.flush(resources, fsync)

    def recover(self, references: Mapping[ResourceClaim, int]) -> int:
        return self._inner.recover(references)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class SimulatedCompute(ComputeServices):
    """The offload boundary in a simulation: Spark is never started. Each attempt is an
    offload call that a fault can make fail or slow; without one, Spark is unavailable
    and the work falls back to the local engine."""

    def __init__(self, node: Node, injector: FaultInjector) -> None:
        super().__init__(node.settings)
        self._injector = injector

    def spark_session(self) -> Any:
        self._injector.on_offload()
        raise AssertionError("unreachable")  # pragma: no cover
