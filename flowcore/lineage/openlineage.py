"""Provenance events as OpenLineage run events, and where those events are sent.

A run is one session commit of one processor: a block of consecutive provenance event ids
from the same component (a commit takes its event ids in one transaction, so they are
consecutive). Each run gives a START event at its first provenance event's time and a
COMPLETE (or FAIL, when a FlowFile went to ``failure``) at its last. The run id is a UUID5
of the job and the block's first event id, so exporting the same provenance again yields
the same events: a consumer that keys runs by id stores them once.

Datasets come from the transit URIs of RECEIVE and FETCH (inputs) and SEND and UPLOAD
(outputs) events, from the directory ListFile lists, and from input ports.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TextIO
from urllib.parse import unquote, urlsplit

from flowcore import __version__
from flowcore.errors import FlowCoreError
from flowcore.model.provenance import ProvenanceEvent
from flowcore.repository.provenance import ProvenanceQuery, ProvenanceRepository
from flowcore.settings import OpenLineageSettings
from flowcore.units import parse_time_period

PRODUCER = "urn:flowcore"
"""The ``producer`` of every event and facet (a URI, as the specification asks)."""
_SPEC = "https://openlineage.io/spec"
RUN_EVENT_SCHEMA = f"{_SPEC}/2-0-2/OpenLineage.json#/$defs/RunEvent"
JOB_TYPE_SCHEMA = f"{_SPEC}/facets/2-0-4/JobTypeJobFacet.json#/$defs/JobTypeJobFacet"
ENGINE_SCHEMA = (
    f"{_SPEC}/facets/1-1-1/ProcessingEngineRunFacet.json#/$defs/ProcessingEngineRunFacet"
)
PROVENANCE_FACET_SCHEMA = "urn:flowcore:facets:ProvenanceRunFacet"
"""The flowcore_provenance run facet: the run's provenance event ids and count."""
ERROR_SCHEMA = f"{_SPEC}/facets/1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet"
RUN_ID_NAMESPACE = uuid.UUID("6c1f1a52-8a5e-4c55-9a53-2b3f0e7f6f10")
"""Fixed, so that run ids are the same on every machine and every export."""
INPUT_PORT_SCHEME = "flowcore"
_INPUT_TYPES = frozenset({"RECEIVE", "FETCH"})
_OUTPUT_TYPES = frozenset({"SEND", "UPLOAD"})
_PAGE = 1000


class OpenLineageError(FlowCoreError):
    """Events could not be written to the file or accepted by the endpoint."""


@dataclass(frozen=True, slots=True)
class Naming:
    """How jobs and datasets are named: the job namespace, the flow's name, this host."""

    namespace: str
    flow_name: str
    host: str

    def job_name(self, component_id: str) -> str:
        return f"{self.flow_name}.{component_id}"


class Dataset(NamedTuple):
    namespace: str
    name: str


@dataclass(slots=True)
class ExportResult:
    """What an export sent: provenance events read, runs, run events, last event id."""

    provenance_events: int = 0
    runs: int = 0
    run_events: int = 0
    last_event_id: int = -1
    events: list[dict[str, Any]] = field(default_factory=list, repr=False)


def commit_batches(events: Iterable[ProvenanceEvent]) -> Iterator[list[ProvenanceEvent]]:
    """Blocks of consecutive event ids from one component, in event id order."""
    block: list[ProvenanceEvent] = []
    for event in events:
        if block and (
            event.component_id != block[-1].component_id or event.event_id != block[-1].event_id + 1
        ):
            yield block
            block = []
        block.append(event)
    if block:
        yield block


def run_id(naming: Naming, component_id: str, first_event_id: int) -> str:
    """A UUID5 of the job and the run's first event id: the same on every export."""
    key = f"{naming.namespace}/{naming.job_name(component_id)}/{first_event_id}"
    return str(uuid.uuid5(RUN_ID_NAMESPACE, key))


def dataset_of_uri(uri: str, host: str) -> Dataset | None:
    """The dataset a transit URI names: ``file://host`` and the path for files,
    ``flowcore://host`` and ``input-port/<port>`` for input ports, scheme and authority
    and the path for anything else; None for a URI with no scheme."""
    parts = urlsplit(uri)
    if not parts.scheme:
        return None
    if parts.scheme == "file":
        return Dataset(f"file://{parts.netloc or host}", unquote(parts.path))
    if parts.scheme == INPUT_PORT_SCHEME and parts.netloc == "input-port":
        return Dataset(f"{INPUT_PORT_SCHEME}://{host}", f"input-port{unquote(parts.path)}")
    return Dataset(f"{parts.scheme}://{parts.netloc}", unquote(parts.path) or "/")


def batch_datasets(
    batch: Iterable[ProvenanceEvent], host: str
) -> tuple[list[Dataset], list[Dataset]]:
    """The inputs and outputs of one run, each once, in the order first seen."""
    inputs: dict[Dataset, None] = {}
    outputs: dict[Dataset, None] = {}
    for event in batch:
        found: Dataset | None = None
        if event.transit_uri and event.event_type in _INPUT_TYPES | _OUTPUT_TYPES:
            found = dataset_of_uri(event.transit_uri, host)
        elif event.event_type == "CREATE" and event.component_type == "ListFile":
            directory = event.attributes.get("absolute.path")
            if directory:
                found = Dataset(f"file://{host}", directory.rstrip("/") or "/")
        if found is not None:
            (outputs if event.event_type in _OUTPUT_TYPES else inputs)[found] = None
    return list(inputs), list(outputs)


def _time(ms: int) -> str:
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _facet(schema: str, **fields: Any) -> dict[str, Any]:
    return {"_producer": PRODUCER, "_schemaURL": schema, **fields}


def run_events(batch: list[ProvenanceEvent], naming: Naming) -> list[dict[str, Any]]:
    """START and COMPLETE (or FAIL) of the run one commit batch was."""
    first = batch[0]
    job = {
        "namespace": naming.namespace,
        "name": naming.job_name(first.component_id),
        "facets": {
            "jobType": _facet(
                JOB_TYPE_SCHEMA,
                processingType="STREAMING",
                integration="FLOWCORE",
                jobType=first.component_type,
            )
        },
    }
    run_facets: dict[str, Any] = {
        "processing_engine": _facet(ENGINE_SCHEMA, version=__version__, name="flowcore"),
        "flowcore_provenance": _facet(
            PROVENANCE_FACET_SCHEMA,
            firstEventId=first.event_id,
            lastEventId=batch[-1].event_id,
            eventCount=len(batch),
        ),
    }
    identifier = run_id(naming, first.component_id, first.event_id)
    failed = [e for e in batch if e.relationship == "failure"]
    end_facets = dict(run_facets)
    if failed:
        message = failed[0].details or f"{len(failed)} FlowFile(s) routed to failure"
        end_facets["errorMessage"] = _facet(
            ERROR_SCHEMA, message=message, programmingLanguage="python"
        )
    inputs, outputs = batch_datasets(batch, naming.host)

    def event(kind: str, ms: int, facets: dict[str, Any], datasets: bool) -> dict[str, Any]:
        document: dict[str, Any] = {
            "eventType": kind,
            "eventTime": _time(ms),
            "producer": PRODUCER,
            "schemaURL": RUN_EVENT_SCHEMA,
            "run": {"runId": identifier, "facets": facets},
            "job": job,
            "inputs": [{"namespace": d.namespace, "name": d.name} for d in inputs]
            if datasets
            else [],
            "outputs": [{"namespace": d.namespace, "name": d.name} for d in outputs]
            if datasets
            else [],
        }
        return document

    start_ms = min(e.event_time for e in batch)
    end_ms = max(e.event_time for e in batch)
    return [
        event("START", start_ms, run_facets, datasets=True),
        event("FAIL" if failed else "COMPLETE", end_ms, end_facets, datasets=True),
    ]


def read_events(repository: ProvenanceRepository, since: int) -> list[ProvenanceEvent]:
    """Events from ``since`` on, in id order, widened back to the start of the commit
    batch ``since`` falls in so that a run is never split by where an export starts."""
    start = since
    while start > 0:
        before = repository.get_event(start - 1)
        at = repository.get_event(start)
        if before is None or at is None or before.component_id != at.component_id:
            break
        start -= 1
    pages: list[ProvenanceEvent] = []
    cursor: int | None = None
    while True:
        page = repository.search(ProvenanceQuery(limit=_PAGE, before_event_id=cursor))
        kept = [e for e in page if e.event_id >= start]
        pages.extend(kept)
        if len(page) < _PAGE or len(kept) < len(page):
            break
        cursor = page[-1].event_id
    pages.reverse()
    return pages


class Emitter(Protocol):
    """Sends run events somewhere."""

    def emit(self, events: list[dict[str, Any]]) -> None: ...


@dataclass(slots=True)
class StreamEmitter:
    """JSON lines to an open text stream (standard output)."""

    stream: TextIO

    def emit(self, events: list[dict[str, Any]]) -> None:
        for document in events:
            self.stream.write(json.dumps(document, separators=(",", ":")) + "\n")


@dataclass(slots=True)
class FileEmitter:
    """JSON lines appended to a file."""

    path: Path

    def emit(self, events: list[dict[str, Any]]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as out:
                StreamEmitter(out).emit(events)
        except OSError as exc:
            raise OpenLineageError(
                f"cannot write OpenLineage events to {self.path}: {exc}"
            ) from exc


@dataclass(slots=True)
class HttpEmitter:
    """Each event POSTed as JSON; any status but 2xx stops the export with the reason."""

    url: str
    timeout_s: float = 10.0

    def emit(self, events: list[dict[str, Any]]) -> None:
        import httpx  # only when events go over HTTP: the engine's start stays light

        with httpx.Client(timeout=self.timeout_s) as client:
            for document in events:
                try:
                    response = client.post(self.url, json=document)
                except httpx.HTTPError as exc:
                    msg = f"cannot send OpenLineage events to {self.url}: {exc}"
                    raise OpenLineageError(msg) from exc
                if not response.is_success:
                    msg = (
                        f"{self.url} refused an OpenLineage event: "
                        f"{response.status_code} {response.text[:200]}"
                    )
                    raise OpenLineageError(msg)


def configured_emitter(settings: OpenLineageSettings) -> Emitter | None:
    """The emitter the ``openlineage`` settings ask for; None for transport ``none``."""
    if settings.transport == "file" and settings.path is not None:
        return FileEmitter(settings.path)
    if settings.transport == "http" and settings.url:
        return HttpEmitter(settings.url, parse_time_period(settings.timeout))
    return None


def export(
    repository: ProvenanceRepository, naming: Naming, emitter: Emitter, since: int = 0
) -> ExportResult:
    """Send the runs of every provenance event from ``since`` on."""
    events = read_events(repository, since)
    result = ExportResult(provenance_events=len(events))
    documents: list[dict[str, Any]] = []
    for batch in commit_batches(events):
        documents.extend(run_events(batch, naming))
        result.runs += 1
    emitter.emit(documents)
    result.run_events = len(documents)
    result.last_event_id = events[-1].event_id if events else -1
    result.events = documents
    return result


class ExportHook:
    """Sends the runs of newly indexed provenance after each indexing pass.

    Made only when a transport is configured. It starts after the events already indexed
    when the node opened (``flowcore openlineage export --since`` covers those); a send that
    fails is logged and tried again from the same event on the next pass.
    """

    def __init__(self, repository: ProvenanceRepository, naming: Naming, emitter: Emitter) -> None:
        self._repository = repository
        self._naming = naming
        self._emitter = emitter
        self.next_event_id = repository.indexed_through() + 1

    def after_indexing(self) -> ExportResult | None:
        """Export what was indexed since the last pass; None when there is nothing new."""
        if self._repository.indexed_through() < self.next_event_id:
            return None
        result = export(self._repository, self._naming, self._emitter, self.next_event_id)
        self.next_event_id = result.last_event_id + 1
        return result
