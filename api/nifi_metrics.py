"""Prometheus metrics under NiFi 2's series names and labels, so NiFi dashboards work.

NiFi's ``/nifi-api/flow/metrics/prometheus`` names every series ``nifi_*`` and labels it
``instance, component_type, component_name, component_id, parent_id`` (connections add
``source_id, source_name, destination_id, destination_name``; repositories
``repo_identifier``). NiFi declares them all as gauges, and so does this collector, so the
exposition is the one a NiFi dashboard reads. As in NiFi, ``nifi_amount_*`` cover the
last five minutes (a rolling window kept here from the commits, on the node's clock) and
``nifi_total_bytes_*`` are running totals since the node started. See
``docs/bulletins-and-metrics.md``.
"""

from __future__ import annotations

import socket
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from flowcore.engine.node import Node
from flowcore.model.provenance import ProvenanceEventType as T
from flowcore.session.commit import CommitListener, SessionChanges

WINDOW_MS = 5 * 60 * 1000
"""NiFi's status window: ``nifi_amount_*`` sum what happened in the last five minutes."""
ROOT_GROUP_ID = "root"
"""flowcore's flow is one process group; its id in ``parent_id``."""

COMPONENT_LABELS = ["instance", "component_type", "component_name", "component_id", "parent_id"]
CONNECTION_LABELS = [
    *COMPONENT_LABELS,
    "source_id",
    "source_name",
    "destination_id",
    "destination_name",
]
REPOSITORY_LABELS = [*COMPONENT_LABELS, "repo_identifier"]

_RECEIVED = frozenset({T.RECEIVE.value, T.FETCH.value})
_REMOVED = frozenset({T.DROP.value, T.EXPIRE.value})
_SEND = T.SEND.value

# The per-component figures kept; each has a five-minute window and a running total.
FIGURES = (
    "flowfiles_in",
    "bytes_in",
    "flowfiles_out",
    "bytes_out",
    "flowfiles_received",
    "bytes_received",
    "flowfiles_sent",
    "bytes_sent",
    "flowfiles_removed",
    "bytes_written",
)


@dataclass(slots=True)
class _Tally:
    """A running total and one-second buckets over the window, of each figure."""

    totals: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FIGURES, 0))
    buckets: deque[tuple[int, dict[str, int]]] = field(default_factory=deque)

    def add(self, second: int, figures: dict[str, int]) -> None:
        if not self.buckets or self.buckets[-1][0] != second:
            self.buckets.append((second, dict.fromkeys(FIGURES, 0)))
        bucket = self.buckets[-1][1]
        for key, value in figures.items():
            bucket[key] += value
            self.totals[key] += value

    def window(self, now_ms: int) -> dict[str, int]:
        oldest = (now_ms - WINDOW_MS) // 1000
        while self.buckets and self.buckets[0][0] <= oldest:
            self.buckets.popleft()
        summed = dict.fromkeys(FIGURES, 0)
        for _second, bucket in self.buckets:
            for key, value in bucket.items():
                summed[key] += value
        return summed


class StatusTracker:
    """Counts what each component and connection did, from every committed session."""

    def __init__(self, node: Node) -> None:
        self._node = node
        self._lock = threading.Lock()
        self._components: dict[str, _Tally] = {}
        self._queues: dict[str, _Tally] = {}
        node.committer.add_listener(CommitListener(on_commit=self.on_commit))

    def on_commit(self, changes: SessionChanges, _seconds: float) -> None:
        # Runs inside every commit: plain local counters, one dict per figure set at the
        # end (not one per event or per FlowFile).
        received = bytes_received = sent = bytes_sent = removed = written = 0
        for event in changes.events:
            kind = event.event_type
            if kind in _RECEIVED:
                received += 1
                bytes_received += event.size
            elif kind == _SEND:
                sent += 1
                bytes_sent += event.size
            elif kind in _REMOVED:
                removed += 1
            current = event.current_content
            if current is not None and current != event.previous_content:
                written += event.size
        figures = dict.fromkeys(FIGURES, 0)
        figures["flowfiles_in"] = changes.flowfiles_in
        figures["bytes_in"] = changes.bytes_in
        figures["flowfiles_out"] = changes.flowfiles_out
        figures["bytes_out"] = changes.bytes_out
        figures["flowfiles_received"] = received
        figures["bytes_received"] = bytes_received
        figures["flowfiles_sent"] = sent
        figures["bytes_sent"] = bytes_sent
        figures["flowfiles_removed"] = removed
        figures["bytes_written"] = written
        second = self._node.clock.now_ms() // 1000
        into: dict[str, list[int]] = {}
        for queue, record in changes.puts:
            counts = into.get(queue.name)
            if counts is None:
                counts = into[queue.name] = [0, 0]
            counts[0] += 1
            counts[1] += record.flowfile.size
        queued: dict[str, dict[str, int]] = {}
        for name, (count, size) in into.items():
            entry = queued[name] = dict.fromkeys(FIGURES, 0)
            entry["flowfiles_in"] = count
            entry["bytes_in"] = size
        for queue, records in changes.taken.items():
            entry = queued.setdefault(queue.name, dict.fromkeys(FIGURES, 0))
            entry["flowfiles_out"] += len(records)
            entry["bytes_out"] += sum(r.flowfile.size for r in records)
        with self._lock:
            component = changes.binding.component_id
            self._components.setdefault(component, _Tally()).add(second, figures)
            for name, entry in queued.items():
                self._queues.setdefault(name, _Tally()).add(second, entry)

    def component(self, component_id: str, now_ms: int) -> tuple[dict[str, int], dict[str, int]]:
        """The five-minute window and the running totals of one component."""
        with self._lock:
            tally = self._components.get(component_id)
            if tally is None:
                empty = dict.fromkeys(FIGURES, 0)
                return empty, dict(empty)
            return tally.window(now_ms), dict(tally.totals)

    def connection(self, queue_name: str, now_ms: int) -> dict[str, int]:
        """The five-minute window of one connection's queue."""
        with self._lock:
            tally = self._queues.get(queue_name)
            return tally.window(now_ms) if tally else dict.fromkeys(FIGURES, 0)


def _gauge(name: str, documentation: str, labels: list[str]) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, labels=labels)


class NiFiCollector(Collector):
    """Collects the node's status under NiFi's names at each scrape."""

    def __init__(self, node: Node, tracker: StatusTracker, instance: str) -> None:
        self._node = node
        self._tracker = tracker
        self._instance = instance

    def collect(self) -> Iterable[Metric]:
        q = CONNECTION_LABELS
        # Processors, ports and connections all report items and content in and out.
        shared = {
            "items_input": _gauge(
                "nifi_amount_items_input", "Total number of items input by the component", q
            ),
            "items_output": _gauge(
                "nifi_amount_items_output", "Total number of items output by the component", q
            ),
            "size_input": _gauge(
                "nifi_size_content_input_total", "Total size of content input by the component", q
            ),
            "size_output": _gauge(
                "nifi_size_content_output_total",
                "Total size of content output by the component",
                q,
            ),
        }
        yield from self._components(shared)
        yield from self._connections(shared)
        yield from shared.values()
        yield from self._repositories()

    def _components(self, shared: dict[str, GaugeMetricFamily]) -> Iterator[Metric]:
        node = self._node
        now = node.clock.now_ms()
        c = COMPONENT_LABELS
        series = {
            "received": _gauge(
                "nifi_amount_flowfiles_received",
                "Total number of FlowFiles received by the component",
                c,
            ),
            "sent": _gauge(
                "nifi_amount_flowfiles_sent", "Total number of FlowFiles sent by the component", c
            ),
            "removed": _gauge(
                "nifi_amount_flowfiles_removed",
                "Total number of FlowFiles removed by the component",
                c,
            ),
            "bytes_received": _gauge(
                "nifi_amount_bytes_received", "Total number of bytes received by the component", c
            ),
            "bytes_sent": _gauge(
                "nifi_amount_bytes_sent", "Total number of bytes sent by the component", c
            ),
            "bytes_read": _gauge(
                "nifi_amount_bytes_read", "Total number of bytes read by the component", c
            ),
            "bytes_written": _gauge(
                "nifi_amount_bytes_written", "Total number of bytes written by the component", c
            ),
            "total_read": _gauge(
                "nifi_total_bytes_read", "Running total number of bytes read by the component", c
            ),
            "total_written": _gauge(
                "nifi_total_bytes_written",
                "Running total number of bytes written by the component",
                c,
            ),
            "total_received": _gauge(
                "nifi_total_bytes_received",
                "Running total number of bytes received by the component",
                c,
            ),
            "total_sent": _gauge(
                "nifi_total_bytes_sent", "Running total number of bytes sent by the component", c
            ),
            "threads": _gauge(
                "nifi_amount_threads_active", "Total number of threads active for the component", c
            ),
        }
        view = node.status_view
        bindings = [("Processor", p.name, p.active_tasks) for p in view.processors()] + [
            ("InputPort", port.name, 0) for port in view.input_ports()
        ]
        for component_type, name, active in bindings:
            window, totals = self._tracker.component(name, now)
            labels = [self._instance, component_type, name, name, ROOT_GROUP_ID]
            unrouted = [*labels, "", "", "", ""]
            values = {
                "received": window["flowfiles_received"],
                "sent": window["flowfiles_sent"],
                "removed": window["flowfiles_removed"],
                "bytes_received": window["bytes_received"],
                "bytes_sent": window["bytes_sent"],
                "bytes_read": window["bytes_in"],
                "bytes_written": window["bytes_written"],
                "total_read": totals["bytes_in"],
                "total_written": totals["bytes_written"],
                "total_received": totals["bytes_received"],
                "total_sent": totals["bytes_sent"],
                "threads": active,
            }
            for key, value in values.items():
                series[key].add_metric(labels, value)
            shared["items_input"].add_metric(unrouted, window["flowfiles_in"])
            shared["items_output"].add_metric(unrouted, window["flowfiles_out"])
            shared["size_input"].add_metric(unrouted, window["bytes_in"])
            shared["size_output"].add_metric(unrouted, window["bytes_out"])
        yield from series.values()

    def _connections(self, shared: dict[str, GaugeMetricFamily]) -> Iterator[Metric]:
        node = self._node
        now = node.clock.now_ms()
        q = CONNECTION_LABELS
        queued = _gauge(
            "nifi_amount_items_queued", "Total number of items queued by the component", q
        )
        queued_bytes = _gauge(
            "nifi_size_content_queued_total", "Total size of content queued in the component", q
        )
        objects = _gauge(
            "nifi_backpressure_object_threshold",
            "The number of flow files that can be queued before backpressure is applied",
            q,
        )
        data_size = _gauge(
            "nifi_backpressure_bytes_threshold",
            "The number of bytes that can be queued before backpressure is applied",
            q,
        )
        enabled = _gauge(
            "nifi_backpressure_enabled",
            "Whether backpressure has been applied for this component. Values are 0 or 1",
            q,
        )
        used_bytes = _gauge(
            "nifi_percent_used_bytes",
            "The percentage of connection that is filled based on content bytes",
            q,
        )
        used_count = _gauge(
            "nifi_percent_used_count",
            "The percentage of connection that is filled based on object count",
            q,
        )
        group_count = 0
        group_bytes = 0
        for connection in node.status_view.connections():
            name = connection.name
            destination = connection.destination or ""
            labels = [
                self._instance,
                "Connection",
                name,
                name,
                ROOT_GROUP_ID,
                connection.source,
                connection.source,
                destination,
                destination,
            ]
            window = self._tracker.connection(name, now)
            queued.add_metric(labels, connection.queued)
            queued_bytes.add_metric(labels, connection.bytes)
            shared["items_input"].add_metric(labels, window["flowfiles_in"])
            shared["items_output"].add_metric(labels, window["flowfiles_out"])
            shared["size_input"].add_metric(labels, window["bytes_in"])
            shared["size_output"].add_metric(labels, window["bytes_out"])
            objects.add_metric(labels, connection.object_threshold)
            data_size.add_metric(labels, connection.data_size_threshold)
            enabled.add_metric(labels, 1 if connection.back_pressure else 0)
            used_bytes.add_metric(
                labels, _percent(connection.bytes, connection.data_size_threshold)
            )
            used_count.add_metric(labels, _percent(connection.queued, connection.object_threshold))
            group_count += connection.queued
            group_bytes += connection.bytes
        group = [self._instance, "RootProcessGroup", ROOT_GROUP_ID, ROOT_GROUP_ID, ""]
        queued.add_metric([*group, "", "", "", ""], group_count)
        queued_bytes.add_metric([*group, "", "", "", ""], group_bytes)
        yield from (queued, queued_bytes, objects, data_size, enabled, used_bytes, used_count)

    def _repositories(self) -> Iterator[Metric]:
        families: dict[str, GaugeMetricFamily] = {}
        for usage in self._node.status_view.repositories():
            identifier = usage.identifier
            labels = [self._instance, "Repository", identifier, identifier, "", identifier]
            for measure, value in (
                ("free", usage.free),
                ("total", usage.total),
                ("used", usage.used),
            ):
                name = f"nifi_{usage.kind}_repo_{measure}_space_bytes"
                family = families.get(name)
                if family is None:
                    family = families[name] = _gauge(
                        name,
                        f"The {measure} space of the {usage.kind.replace('_', ' ')} repository",
                        REPOSITORY_LABELS,
                    )
                family.add_metric(labels, value)
        yield from families.values()


def _percent(value: int, threshold: int) -> float:
    return 0.0 if threshold <= 0 else min(100.0, 100.0 * value / threshold)


def nifi_registry(node: Node, instance: str | None = None) -> CollectorRegistry:
    """A registry serving ``node``'s status under NiFi's series names."""
    registry = CollectorRegistry(auto_describe=False)
    tracker = StatusTracker(node)
    registry.register(NiFiCollector(node, tracker, instance or socket.gethostname()))
    return registry
