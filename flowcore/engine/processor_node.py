"""A processor in a running flow: its configuration, run state, scheduling and trigger."""

from __future__ import annotations

import collections
import threading
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from flowcore.clock import Clock
from flowcore.engine.bulletins import COMPONENT_ID, COMPONENT_TYPE, MESSAGE
from flowcore.engine.validation import validate_properties
from flowcore.errors import ProcessException, repository_fault
from flowcore.logsafe import safe_logger
from flowcore.offload import ComputeServices
from flowcore.processor.context import ProcessContext
from flowcore.processor.descriptors import PropertyDescriptor
from flowcore.processor.processor import Processor, SessionFactoryProcessor
from flowcore.processor.service import ControllerService
from flowcore.processor.validation import ValidationResult
from flowcore.queue.queue import FlowFileQueue
from flowcore.session.binding import ComponentBinding
from flowcore.session.services import SessionServices
from flowcore.session.session import ProcessSession
from flowcore.settings import EngineSettings

log = safe_logger("flowcore.engine")


class RunState(StrEnum):
    RUNNING = "RUNNING"
    STOPPED = "STOPPED"


@dataclass(slots=True)
class ScheduleConfig:
    period_ms: int = 0
    concurrent_tasks: int = 1
    max_runs: int | None = None
    penalty_ms: int = 30_000
    yield_ms: int = 1_000
    administrative_yield_ms: int = 30_000


@dataclass(frozen=True, slots=True)
class ProcessorError:
    time_ms: int
    message: str
    repository: bool = False
    """A repository fault (``repository_fault``: full, unavailable, damaged, also when
    wrapped), not the data's: missing or damaged content is routed, not counted here."""


@dataclass(slots=True)
class _Runtime:
    yielded_until: int = 0
    next_run_at: int = 0
    runs: int = 0
    active_tasks: int = 0
    scheduled: bool = False
    errors: collections.deque[ProcessorError] = field(
        default_factory=lambda: collections.deque(maxlen=10)
    )


class _Factory:
    def __init__(self, binding: ComponentBinding, services: SessionServices) -> None:
        self._binding = binding
        self._services = services

    def create_session(self) -> ProcessSession:
        return ProcessSession(self._binding, self._services)


class ProcessorNode:
    """One processor of the flow, driven by a scheduler or a TestRunner."""

    def __init__(
        self,
        name: str,
        processor: Processor,
        properties: Mapping[str, str],
        schedule: ScheduleConfig,
        clock: Clock,
        auto_terminate: frozenset[str] = frozenset(),
    ) -> None:
        self.name = name
        self.processor = processor
        self.type_name = processor.type_name or type(processor).__name__
        self.schedule = schedule
        self.clock = clock
        self.auto_terminate = auto_terminate
        self.run_state = RunState.STOPPED
        self.services: dict[str, ControllerService] = {}
        self.settings: EngineSettings | None = None
        self.compute: ComputeServices | None = None
        self._properties: dict[str, str] = {}
        self._configured = False
        """True once the processor has been scheduled: a property change after that is a
        change to a configured processor (before, it is being configured, as a flow loaded
        or a TestRunner set up after a restart)."""
        self._runtime = _Runtime()
        self._lock = threading.Lock()
        self._scheduling = threading.Lock()
        """Held while ``on_scheduled`` runs: concurrent first triggers wait for it rather
        than schedule the processor again, as NiFi runs @OnScheduled once before any task."""
        for key, value in properties.items():
            self.set_property(key, value)
        # Lives as long as the processor (its state and running totals are here); the
        # wiring fills in its connections with ``rebind``.
        self.binding = ComponentBinding(
            component_id=name,
            component_type=self.type_name,
            incoming=[],
            outgoing={},
            auto_terminated=auto_terminate,
            relationships=frozenset(self.relationship_names()),
            penalty_ms=schedule.penalty_ms,
        )

    def rebind(
        self, incoming: list[FlowFileQueue], outgoing: dict[str, list[FlowFileQueue]]
    ) -> None:
        """Point the binding at the processor's connections now (in place: sessions and
        the scheduler keep the same binding, with its state and running totals)."""
        binding = self.binding
        binding.incoming = incoming
        binding.outgoing = outgoing
        binding.auto_terminated = self.auto_terminate
        binding.relationships = frozenset(self.relationship_names())
        binding.penalty_ms = self.schedule.penalty_ms

    # -- configuration --------------------------------------------------------------------

    @property
    def descriptors(self) -> dict[str, PropertyDescriptor]:
        return {d.name: d for d in self.processor.property_descriptors}

    def property_name(self, key: str) -> str:
        """Accept a property's name or its display name."""
        descriptors = self.descriptors
        if key in descriptors:
            return key
        for descriptor in descriptors.values():
            if descriptor.display_name == key:
                return descriptor.name
        return key

    def set_property(self, key: str, value: str | None) -> None:
        """Set (None: remove) a property; a change to a configured processor is told to it."""
        name = self.property_name(key)
        old = self._properties.get(name)
        if value is None:
            self._properties.pop(name, None)
        else:
            self._properties[name] = value
        if self._configured and old != value:
            self.processor.on_property_modified(name, old, value)

    @property
    def properties(self) -> dict[str, str]:
        return dict(self._properties)

    def dynamic_descriptors(self) -> dict[str, PropertyDescriptor]:
        found: dict[str, PropertyDescriptor] = {}
        for name in self._properties:
            if name not in self.descriptors:
                descriptor = self.processor.get_dynamic_property_descriptor(name)
                if descriptor is not None:
                    found[name] = descriptor
        return found

    def relationship_names(self) -> list[str]:
        return [r.name for r in self.processor.get_relationships(self._properties)]

    def context(self) -> ProcessContext:
        descriptors = {**self.descriptors, **self.dynamic_descriptors()}
        return ProcessContext(
            component_id=self.name,
            name=self.name,
            descriptors=descriptors,
            properties=self._properties,
            clock=self.clock,
            services=self.services,
            yield_callback=self.yield_for_period,
            max_concurrent_tasks=self.schedule.concurrent_tasks,
            available_relationships=frozenset(self.relationship_names()),
            settings=self.settings,
            compute=self.compute,
            auto_terminated=self.auto_terminate,
        )

    def validate(self) -> list[ValidationResult]:
        results = validate_properties(
            self.processor.property_descriptors,
            self._properties,
            self.dynamic_descriptors(),
            self.services,
        )
        if not results:
            results = [r for r in self.processor.custom_validate(self.context()) if not r.valid]
        return results

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> None:
        """Mark RUNNING; ``on_scheduled`` runs before the first trigger."""
        with self._lock:
            self.run_state = RunState.RUNNING

    def ensure_scheduled(self) -> None:
        """Call ``on_scheduled`` unless it has run since the last stop (once, whatever
        the number of tasks starting at the same time)."""
        if self._runtime.scheduled:
            return
        with self._scheduling:
            if not self._runtime.scheduled:
                self.processor.on_scheduled(self.context())
                self._runtime.scheduled = True
                self._configured = True

    def stop(self) -> None:
        """Mark STOPPED and call ``on_stopped`` once running tasks have finished."""
        with self._lock:
            self.run_state = RunState.STOPPED
        self._finish_stopping()

    def _finish_stopping(self) -> None:
        """Call ``on_stopped`` if the processor is stopped, was scheduled and no task runs.

        Deciding happens under the lock a trigger counts itself under, so no scheduled
        trigger starts once ``on_stopped`` is due, and a start since the stop (when the
        last task ends) keeps the processor running; ``on_stopped`` runs under the
        scheduling lock, so a start meanwhile calls ``on_scheduled`` only after it (as
        NiFi starts a processor again only once it has stopped)."""
        with self._scheduling:
            with self._lock:
                runtime = self._runtime
                call = (
                    self.run_state is RunState.STOPPED
                    and runtime.scheduled
                    and runtime.active_tasks == 0
                )
                if call:
                    runtime.scheduled = False
            if call:
                self.processor.on_stopped(self.context())

    def yield_for_period(self) -> None:
        self._runtime.yielded_until = self.clock.now_ms() + self.schedule.yield_ms

    # -- scheduling -----------------------------------------------------------------------

    @property
    def runs(self) -> int:
        return self._runtime.runs

    def resume_runs(self, runs: int) -> None:
        """Count runs on from ``runs``: after a simulated restart a processor limited by
        ``max_runs`` does not run again the runs it had committed."""
        self._runtime.runs = runs

    @property
    def active_tasks(self) -> int:
        """Triggers running now (NiFi's active thread count)."""
        return self._runtime.active_tasks

    @property
    def errors(self) -> list[ProcessorError]:
        return list(self._runtime.errors)

    @property
    def yielded_until(self) -> int:
        return self._runtime.yielded_until

    def next_wake_ms(self) -> int:
        """The earliest time this node may become runnable again by time alone."""
        return max(self._runtime.yielded_until, self._runtime.next_run_at)

    def is_runnable(self, now_ms: int) -> bool:
        binding = self.binding
        runtime = self._runtime
        if self.run_state is not RunState.RUNNING:
            return False
        max_runs = self.schedule.max_runs
        if max_runs is not None and runtime.runs >= max_runs:
            return False
        if runtime.active_tasks >= self.schedule.concurrent_tasks:
            return False
        if runtime.yielded_until > now_ms or runtime.next_run_at > now_ms:
            return False
        for queues in binding.outgoing.values():
            for queue in queues:
                if queue.is_full():
                    return False
        if not binding.incoming:
            return True
        if self.processor.scheduling.trigger_when_empty:
            return True
        return any(queue.has_available(now_ms) for queue in binding.incoming)

    def trigger(
        self,
        services: SessionServices,
        *,
        raise_errors: bool = False,
        schedule: bool = True,
        run_once: bool = False,
    ) -> bool:
        """Run ``on_trigger`` once through a session; returns False if it failed.

        ``schedule`` calls ``on_scheduled`` first if it has not run since the last stop
        (the TestRunner turns this off for ``run(initialize=False)``, as nifi-mock does),
        and such a trigger of a stopped processor does nothing: a scheduler that chose
        the processor just before it was stopped must not run it after ``on_stopped``
        (it would schedule it again and lose what ``on_stopped`` had yet to release).
        ``run_once`` runs a stopped processor all the same, as NiFi's Run Once:
        ``on_scheduled``, one trigger, then ``on_stopped`` (``Node.trigger``).
        """
        binding = self.binding
        runtime = self._runtime
        with self._lock:
            if schedule and not run_once and self.run_state is not RunState.RUNNING:
                return True
            runtime.active_tasks += 1
            runtime.runs += 1
            runtime.next_run_at = self.clock.now_ms() + self.schedule.period_ms
        try:
            if schedule:
                self.ensure_scheduled()
            context = self.context()
            if isinstance(self.processor, SessionFactoryProcessor):
                self.processor.on_trigger_with_factory(context, _Factory(binding, services))
            else:
                session = ProcessSession(binding, services)
                try:
                    self.processor.on_trigger(context, session)
                    session.commit()
                except BaseException:
                    session.rollback(penalize=True)
                    raise
            return True
        except Exception as exc:
            now = self.clock.now_ms()
            message = f"{type(exc).__name__}: {exc}"
            runtime.errors.append(ProcessorError(now, message, repository_fault(exc) is not None))
            administrative = not isinstance(exc, ProcessException)
            yield_ms = (
                self.schedule.administrative_yield_ms if administrative else self.schedule.yield_ms
            )
            runtime.yielded_until = now + yield_ms
            log.error(
                "%s[%s] failed to process; rolled back with penalty and yielding for %d ms: %s\n%s",
                self.type_name,
                self.name,
                yield_ms,
                exc,
                traceback.format_exc(),
                extra={
                    COMPONENT_ID: self.name,
                    COMPONENT_TYPE: self.type_name,
                    MESSAGE: f"{self.type_name}[{self.name}] failed to process: {exc}",
                },
            )
            if raise_errors:
                raise
            return False
        finally:
            with self._lock:
                runtime.active_tasks -= 1
                last_out = runtime.active_tasks == 0 and self.run_state is RunState.STOPPED
            if last_out:
                self._finish_stopping()
