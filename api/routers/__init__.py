"""The REST API's routers, one per area, in the order ``create_app`` includes them."""

from __future__ import annotations

from fastapi import APIRouter

from api.routers import bulletins, flow, flowfiles, health_metrics, ports, provenance

ROUTERS: tuple[APIRouter, ...] = (
    ports.router,
    flow.router,
    flowfiles.router,
    provenance.router,
    health_metrics.router,
    bulletins.router,
)
