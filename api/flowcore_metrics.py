"""flowcore's own Prometheus series: queues, processors, provenance index lag, commit latency."""

from __future__ import annotations

from collections.abc import Iterable

from prometheus_client import CollectorRegistry, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from flowcore.engine.node import Node
from flowcore.engine.processor_node import RunState
from flowcore.session.commit import CommitListener, SessionChanges


class _NodeCollector(Collector):
    def __init__(self, node: Node) -> None:
        self._node = node

    def collect(self) -> Iterable[Metric]:
        node = self._node
        count = GaugeMetricFamily(
            "flowcore_queue_flowfiles", "FlowFiles queued per connection", labels=["connection"]
        )
        size = GaugeMetricFamily(
            "flowcore_queue_bytes", "Bytes queued per connection", labels=["connection"]
        )
        pressure = GaugeMetricFamily(
            "flowcore_queue_back_pressure",
            "1 when back pressure is engaged on the connection",
            labels=["connection"],
        )
        view = node.status_view
        for connection in view.connections():
            count.add_metric([connection.name], connection.queued)
            size.add_metric([connection.name], connection.bytes)
            pressure.add_metric([connection.name], 1 if connection.back_pressure else 0)
        yield from (count, size, pressure)
        families = {
            key: GaugeMetricFamily(
                f"flowcore_processor_{key}",
                f"Processor {key.replace('_', ' ')} (running total)",
                labels=["processor"],
            )
            for key in ("flowfiles_in", "flowfiles_out", "bytes_in", "bytes_out", "runs")
        }
        running = GaugeMetricFamily(
            "flowcore_processor_running", "1 when the processor is RUNNING", labels=["processor"]
        )
        for processor in view.processors():
            values = {
                "flowfiles_in": processor.flowfiles_in,
                "flowfiles_out": processor.flowfiles_out,
                "bytes_in": processor.bytes_in,
                "bytes_out": processor.bytes_out,
                "runs": processor.runs,
            }
            for key, family in families.items():
                family.add_metric([processor.name], values[key])
            running.add_metric(
                [processor.name], 1 if processor.run_state is RunState.RUNNING else 0
            )
        yield from families.values()
        yield running
        lag = GaugeMetricFamily(
            "flowcore_provenance_index_lag_events",
            "Provenance events journaled but not yet indexed (queryable)",
        )
        provenance = view.provenance()
        if provenance is None:  # a closed repository: report nothing rather than fail
            return
        lag.add_metric([], provenance.not_indexed)
        yield lag


def flowcore_registry(node: Node) -> CollectorRegistry:
    """A registry of the node's series; listens to its commits for the latency histogram."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_NodeCollector(node))
    latency = Histogram(
        "flowcore_commit_seconds",
        "Session commit latency by component",
        ["component"],
        registry=registry,
        buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
    )

    def on_commit(changes: SessionChanges, seconds: float) -> None:
        latency.labels(changes.binding.component_id).observe(seconds)

    node.committer.add_listener(CommitListener(on_commit=on_commit))
    return registry
