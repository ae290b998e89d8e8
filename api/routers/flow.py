"""The flow's status (ports, processors, connections) and a processor's run state."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException

from api.deps import API, NodeDep
from api.models import (
    AUTH_ERRORS,
    ConnectionStatus,
    FlowStatus,
    ProcessorError,
    ProcessorStatus,
    RunStatusRequest,
    errors,
)
from api.security import SECURED
from flowcore.engine.node import Node
from flowcore.engine.processor_node import RunState

router = APIRouter()


def processor_status(node: Node, name: str) -> ProcessorStatus:
    """The named processor's status and recent errors, from the node's status view."""
    processor = node.status_view.processor(name)
    return ProcessorStatus(
        name=name,
        type=processor.type,
        run_state=processor.run_state.value,
        runs=processor.runs,
        flowfiles_in=processor.flowfiles_in,
        bytes_in=processor.bytes_in,
        flowfiles_out=processor.flowfiles_out,
        bytes_out=processor.bytes_out,
        commits=processor.commits,
        last_errors=[ProcessorError(time=e.time_ms, message=e.message) for e in processor.errors],
    )


@router.get(
    f"{API}/flow",
    response_model=FlowStatus,
    dependencies=SECURED,
    tags=["flow"],
    responses=AUTH_ERRORS,
)
def get_flow(node: NodeDep) -> FlowStatus:
    view = node.status_view
    connections = [
        ConnectionStatus(
            name=c.name,
            source=c.source,
            destination=c.destination,
            relationships=list(c.relationships),
            queued_count=c.queued,
            queued_bytes=c.bytes,
            swapped=c.swapped,
            in_flight=c.in_flight,
            back_pressure=c.back_pressure,
        )
        for c in view.connections()
    ]
    return FlowStatus(
        input_ports=[port.name for port in view.input_ports()],
        processors=[processor_status(node, name) for name in node.processors],
        connections=connections,
    )


@router.post(
    f"{API}/processors/{{name}}/run-status",
    response_model=ProcessorStatus,
    dependencies=SECURED,
    tags=["flow"],
    responses={**AUTH_ERRORS, **errors(400, 404)},
)
def set_run_status(name: str, body: RunStatusRequest, node: NodeDep) -> ProcessorStatus:
    processor = node.processors.get(name)
    if processor is None:
        raise HTTPException(404, f"no processor named '{name}'")
    if body.state == "RUNNING":
        processor.start()
    elif processor.run_state is RunState.RUNNING:
        processor.stop()
    return processor_status(node, name)
