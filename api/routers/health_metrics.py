"""Operations: the liveness probe and the Prometheus metrics, flowcore's and NiFi's."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from api.models import AUTH_ERRORS, Health
from api.security import SECURED

router = APIRouter()


async def get_flowcore_registry(request: Request) -> CollectorRegistry:
    """flowcore's own series (``api/flowcore_metrics.py``), made by ``create_app``."""
    registry: CollectorRegistry = request.app.state.flowcore_registry
    return registry


async def get_nifi_registry(request: Request) -> CollectorRegistry:
    """The flow's status as NiFi's series (``api/nifi_metrics.py``), made by ``create_app``."""
    registry: CollectorRegistry = request.app.state.nifi_registry
    return registry


FlowcoreRegistry = Annotated[CollectorRegistry, Depends(get_flowcore_registry)]
NifiRegistry = Annotated[CollectorRegistry, Depends(get_nifi_registry)]


@router.get("/healthz", response_model=Health, tags=["operations"])
def healthz() -> Health:
    return Health(status="ok")


@router.get(
    "/metrics",
    response_class=Response,
    dependencies=SECURED,
    tags=["operations"],
    responses={
        200: {"content": {CONTENT_TYPE_LATEST: {"schema": {"type": "string"}}}},
        **AUTH_ERRORS,
    },
)
def metrics(registry: FlowcoreRegistry) -> Response:
    return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)


@router.get(
    "/nifi-api/flow/metrics/prometheus",
    response_class=Response,
    dependencies=SECURED,
    tags=["operations"],
    responses={
        200: {"content": {CONTENT_TYPE_LATEST: {"schema": {"type": "string"}}}},
        **AUTH_ERRORS,
    },
)
def nifi_metrics(nifi_registry: NifiRegistry) -> Response:
    """The flow's status under NiFi 2's Prometheus series names and labels."""
    return Response(generate_latest(nifi_registry), media_type=CONTENT_TYPE_LATEST)
