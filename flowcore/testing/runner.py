"""TestRunner: drive one processor through the real session and commit path.

In the manner of nifi-mock: set properties by display name, enqueue FlowFiles, run the
processor a number of times, and inspect what it transferred to each relationship, its
provenance events and its state. Underneath is a real ``Node`` with its real session and
commit path: an input connection feeds the processor and each relationship flows into a
capture connection. Time comes from a ``ManualClock``; nothing sleeps.

The node runs on the in-memory twins of the repositories (``flowcore.testing.twins``) by
default, so a processor's unit test starts no LMDB, DuckDB or content threads. A test of
what only the durable repositories do (a restart on the same data directory, files on
disk) asks for them: ``TestRunner(processor, repositories="durable")``.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import threading
import weakref
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

from flowcore.clock import ManualClock
from flowcore.engine.node import Node
from flowcore.engine.processor_node import ProcessorNode, ScheduleConfig
from flowcore.errors import ContentNotFoundError
from flowcore.model.flowfile import FlowFile
from flowcore.model.provenance import ProvenanceEvent
from flowcore.processor.processor import Processor
from flowcore.processor.registry import processor_class, service_class
from flowcore.processor.service import ControllerService
from flowcore.repository.flowfile import RepositoryUpdate
from flowcore.repository.provenance import ProvenanceQuery
from flowcore.session.binding import ComponentBinding
from flowcore.settings import EngineSettings
from flowcore.testing.mock_flowfile import MockFlowFile
from flowcore.testing.twins import memory_repositories

UNDER_TEST = "processor-under-test"
INPUT = "input"
_FEEDER = "test-runner"


class TestRunner:
    """Runs one processor for a test."""

    __test__ = False  # not a pytest test class

    def __init__(
        self,
        processor: str | type[Processor] | Processor,
        *,
        data_dir: Path | None = None,
        settings: EngineSettings | None = None,
        clock: ManualClock | None = None,
        repositories: Literal["memory", "durable"] = "memory",
    ) -> None:
        """``settings`` (or only ``data_dir``) configure the node; ``repositories``: the
        in-memory twins, or the durable repositories the settings name."""
        if repositories not in ("memory", "durable"):
            msg = f"repositories must be 'memory' or 'durable', not {repositories!r}"
            raise ValueError(msg)
        owned: Path | None = None
        if settings is None:
            if data_dir is None:
                owned = data_dir = Path(tempfile.mkdtemp(prefix="flowcore-test-"))
            settings = EngineSettings(data_dir=data_dir)
        if isinstance(processor, str):
            instance = processor_class(processor, settings.python_extension_dirs())()
        elif isinstance(processor, type):
            instance = processor()
        else:
            instance = processor
        self.settings = settings
        self.clock = clock or ManualClock()
        if repositories == "memory":
            self.node = Node(
                self.settings, self.clock, memory_repositories(self.settings, self.clock)
            )
        else:
            self.node = Node(self.settings, self.clock)
        self.processor = instance
        self._node: ProcessorNode = self.node.add_processor(
            UNDER_TEST, instance, {}, ScheduleConfig(penalty_ms=30_000, yield_ms=1_000)
        )
        self._input = self.node.add_connection(INPUT, _FEEDER, ["success"], UNDER_TEST)
        self._feeder = ComponentBinding(
            component_id=_FEEDER,
            component_type="TestRunner",
            incoming=[],
            outgoing={"success": [self._input.queue]},
            auto_terminated=frozenset(),
            relationships=frozenset({"success"}),
        )
        self._transferred: dict[str, list[MockFlowFile]] = {}
        self._wired_relationships: tuple[str, ...] = ()
        self._thread_count = 1
        self._rewire()
        # Tests seldom close a runner (nifi-mock has no close either): the node is closed
        # and a directory the runner made is removed when the runner is collected, or at
        # exit, so no test leaves open repositories or a temporary directory behind.
        self._release = weakref.finalize(self, _release, self.node, owned)
        _close_at_exit(self._release)
        self.node.recover()
        self._node.start()

    # -- configuration --------------------------------------------------------------------

    def set_property(self, name: str, value: str) -> None:
        """Set a property by display name or name (string values, as in NiFi)."""
        self._node.set_property(name, value)

    def remove_property(self, name: str) -> None:
        self._node.set_property(name, None)

    def set_relationship_auto_terminated(self, name: str) -> None:
        self._node.auto_terminate = self._node.auto_terminate | {name}
        self._wired_relationships = ()

    def add_controller_service(
        self,
        identifier: str,
        service: str | type[ControllerService] | ControllerService,
        properties: Mapping[str, str] | None = None,
    ) -> ControllerService:
        """Add and enable a controller service; an instance is used as it is."""
        if isinstance(service, str):
            instance = service_class(service)()
        elif isinstance(service, type):
            instance = service()
        else:
            instance = service
        return self.node.add_controller_service(identifier, instance, properties)

    # -- validation -----------------------------------------------------------------------

    def validation_errors(self) -> list[str]:
        return [str(result) for result in self._node.validate()]

    def is_valid(self) -> bool:
        return not self.validation_errors()

    def assert_valid(self) -> None:
        errors = self.validation_errors()
        assert not errors, "processor is not valid: " + "; ".join(errors)

    def assert_not_valid(self) -> None:
        assert not self.is_valid(), "processor is valid but was expected not to be"

    # -- feeding --------------------------------------------------------------------------

    def enqueue(
        self, content: str | bytes = b"", attributes: Mapping[str, str] | None = None
    ) -> MockFlowFile:
        """Queue a FlowFile for the processor (filename, path and uuid added unless given)."""
        data = content.encode("utf-8") if isinstance(content, str) else content
        session = self.node.session_for(self._feeder)
        given = dict(attributes or {})
        flowfile = session.create(uuid=given.pop("uuid", None))
        if given:
            flowfile = session.put_all_attributes(flowfile, given)
        if data:
            flowfile = session.write(flowfile, data)
        session.transfer(flowfile, "success")
        session.commit()
        return MockFlowFile(flowfile, data)

    # -- running --------------------------------------------------------------------------

    def run(
        self, iterations: int = 1, stop_on_finish: bool = True, initialize: bool = True
    ) -> None:
        """Trigger the processor ``iterations`` times, as nifi-mock does (even when empty),
        on as many threads at once as ``set_thread_count`` says."""
        self._rewire()
        if initialize:
            self.assert_valid()
            self._node.start()
            self._node.ensure_scheduled()
        try:
            if self._thread_count == 1:
                for _ in range(iterations):
                    self._trigger()
            else:
                with ThreadPoolExecutor(self._thread_count, "test-runner") as pool:
                    triggers = [pool.submit(self._trigger) for _ in range(iterations)]
                for trigger in triggers:
                    trigger.result()  # the first failure, once every trigger has ended
        finally:
            self._collect()
            if stop_on_finish:
                self.stop()

    def set_thread_count(self, count: int) -> None:
        """Run the iterations of ``run`` on ``count`` threads at once, as nifi-mock's
        ``setThreadCount`` does (the processor's concurrent tasks); as there, a processor
        triggered serially fails the test (``AssertionError``)."""
        if count < 1:
            msg = f"the thread count must be at least 1, not {count}"
            raise ValueError(msg)
        if count > 1 and self.processor.scheduling.trigger_serially:
            msg = "cannot set the thread count higher than 1: the processor is triggered serially"
            raise AssertionError(msg)
        self._thread_count = count

    def _trigger(self) -> None:
        self._node.trigger(self.node.services, raise_errors=True, schedule=False)

    def stop(self) -> None:
        self._node.stop()
        self._collect()

    def advance_time(self, seconds: float) -> None:
        self.clock.advance(seconds)

    def _rewire(self) -> None:
        relationships = tuple(self._node.relationship_names())
        if relationships == self._wired_relationships:
            return
        for name in relationships:
            if (
                name not in self._node.auto_terminate
                and f"capture.{name}" not in self.node.connections
            ):
                self.node.add_connection(
                    f"capture.{name}", UNDER_TEST, [name], None, back_pressure=None
                )
        self.node.rebind()
        self._wired_relationships = relationships

    def _collect(self) -> None:
        for name, connection in self.node.connections.items():
            if not name.startswith("capture."):
                continue
            relationship = name.removeprefix("capture.")
            for record in connection.queue.clear_in_memory():
                self._transferred.setdefault(relationship, []).append(self._mock(record.flowfile))

    def _mock(self, flowfile: FlowFile) -> MockFlowFile:
        """The FlowFile with its content read (a damaged or missing one: its error)."""
        data, error = b"", None
        if flowfile.claim is not None and flowfile.size:
            try:
                data = self.node.content.read(flowfile.claim, flowfile.claim_offset, flowfile.size)
            except ContentNotFoundError as exc:  # damaged or missing: never wrong bytes
                error = str(exc)
        return MockFlowFile(flowfile, data, error)

    # -- observation ----------------------------------------------------------------------

    def get_flowfiles_for_relationship(self, name: str) -> list[MockFlowFile]:
        self._collect()
        return list(self._transferred.get(name, []))

    def assert_transfer_count(self, name: str, count: int) -> None:
        actual = len(self.get_flowfiles_for_relationship(name))
        assert actual == count, (
            f"expected {count} FlowFiles transferred to '{name}' but found {actual}"
        )

    def assert_all_flowfiles_transferred(self, name: str, count: int | None = None) -> None:
        self._collect()
        others = {rel: len(ffs) for rel, ffs in self._transferred.items() if rel != name and ffs}
        assert not others, f"FlowFiles were transferred to other relationships: {others}"
        if count is not None:
            self.assert_transfer_count(name, count)

    def clear_transfer_state(self) -> None:
        self._collect()
        self._transferred.clear()

    @property
    def queue_size(self) -> int:
        return self._input.queue.size

    def queued_flowfiles(self) -> list[MockFlowFile]:
        """The FlowFiles waiting in the processor's input queue, in queue order, with
        their content (those swapped out to the FlowFile repository are not listed)."""
        return [self._mock(record.flowfile) for record in self._input.queue.listing()]

    def assert_queue_empty(self) -> None:
        assert self.queue_size == 0, f"the input queue holds {self.queue_size} FlowFiles"

    def assert_queue_not_empty(self) -> None:
        assert self.queue_size > 0, "the input queue is empty"

    def get_provenance_events(self) -> list[ProvenanceEvent]:
        """The processor's provenance events in the order they were recorded."""
        self.node.index_provenance()
        events = self.node.provenance.search(
            ProvenanceQuery(component_id=UNDER_TEST, limit=1_000_000)
        )
        return sorted(events, key=lambda e: e.event_id)

    def get_counter_value(self, name: str) -> int | None:
        """A counter the processor adjusted in committed sessions (None if never)."""
        return self._node.binding.stats.counters.get(name)

    @property
    def state(self) -> dict[str, str]:
        return dict(self._node.binding.state.values)

    def set_state(self, values: Mapping[str, str]) -> None:
        """Seed the processor's LOCAL state (committed durably)."""
        self.node.flowfiles.commit(RepositoryUpdate(state={UNDER_TEST: dict(values)}))
        self._node.binding.state.values = dict(values)

    def keyed_state(self, prefix: bytes = b"") -> dict[bytes, bytes]:
        """The processor's committed keyed state (keys starting with ``prefix``)."""
        return {
            item.key: item.value
            for item in self.node.flowfiles.scan_keyed(UNDER_TEST, prefix, None, 2**62)
        }

    @property
    def yielded(self) -> bool:
        return self._node.yielded_until > self.clock.now_ms()

    def close(self) -> None:
        self._release()

    def __enter__(self) -> TestRunner:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


_unreleased: set[weakref.finalize[Any, Any]] = set()
_exit_hook = False
_exit_lock = threading.Lock()


def _close_at_exit(release: weakref.finalize[Any, Any]) -> None:
    """Have ``release`` run at exit before worker pools stop taking work.

    A finaliser left to ``atexit`` runs after ``concurrent.futures`` has shut its pools,
    so closing the node (which indexes provenance on such a pool) would fail there.
    Threading's exit hooks run first: the runners still open are closed from one of them.
    """
    global _exit_hook
    with _exit_lock:
        _unreleased.difference_update([r for r in _unreleased if not r.alive])
        _unreleased.add(release)
        if _exit_hook:
            return
        register = getattr(threading, "_register_atexit", None)
        if register is None:  # another Python: the finalisers' own atexit hook remains
            return
        register(_release_all)
        _exit_hook = True


def _release_all() -> None:
    with _exit_lock:
        pending = list(_unreleased)
        _unreleased.clear()
    for release in pending:
        try:
            release()
        except Exception:  # one runner that fails to close does not keep others open
            logging.getLogger("flowcore.testing").exception("closing a TestRunner at exit")


def _release(node: Node, directory: Path | None) -> None:
    """Close a runner's node and remove the directory it made (runs once)."""
    try:
        node.close()
    finally:
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)
