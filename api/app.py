"""The REST API: enqueue FlowFiles, watch the flow, query provenance and lineage, replay.

``create_app(node, settings)`` returns a FastAPI application bound to one running
``Node``: it puts the node, settings, tokens, enqueue batcher and metrics registries on
``app.state`` (the routers in ``api/routers/`` get them through ``Depends``), registers
the exception handlers (``api/errors.py``), includes the routers and mounts the web UI
last. Enqueues go through the group commit (``api/enqueue_batcher.py``; small single
ones answered by ``api/lean_enqueue.py`` ahead of FastAPI); the other handlers that call
the engine block (DuckDB queries, checkpoints) and run in the thread pool. See
``docs/api.md``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from api.deps import API
from api.enqueue_batcher import EnqueueBatcher
from api.errors import install_error_handlers
from api.flowcore_metrics import flowcore_registry
from api.inputs import Tokens
from api.lean_enqueue import FlowcoreAPI, LeanEnqueue
from api.nifi_metrics import nifi_registry
from api.openapi import documented_schema
from api.routers import ROUTERS
from api.routers.ports import SMALL_BODY
from api.security import SECURED
from api.settings import ApiSettings
from api.ui import mount_ui, ui_router
from flowcore.engine.node import Node

__all__ = ["create_app"]


def create_app(node: Node, settings: ApiSettings | None = None) -> FastAPI:
    """A FastAPI application serving ``node``."""
    settings = settings or ApiSettings()
    tokens = Tokens(settings)
    batcher = EnqueueBatcher(node, offload=node.settings.durability == "power")

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        await batcher.close()

    app = FlowcoreAPI(
        title="flowcore",
        version="1",
        description="Enqueue FlowFiles, watch the flow, query provenance and lineage, replay.",
        lifespan=lifespan,
    )
    app.state.node = node
    app.state.settings = settings
    app.state.tokens = tokens
    app.state.batcher = batcher
    app.state.flowcore_registry = flowcore_registry(node)
    app.state.nifi_registry = nifi_registry(node)
    # Small single enqueues are answered before FastAPI's middleware and routing (same
    # checks, same answers); the enqueue route documents them and serves the rest.
    app.lean = LeanEnqueue(
        node=node,
        batcher=batcher,
        tokens=tokens,
        prefix=API,
        small_body=SMALL_BODY,
        max_body=settings.max_body_bytes,
        retry_after_seconds=settings.retry_after_seconds,
    )
    install_error_handlers(app)
    for router in ROUTERS:
        app.include_router(router)
    app.include_router(ui_router(node, SECURED))
    mount_ui(app)  # the web UI's page and assets, after every API route

    def openapi() -> dict[str, Any]:
        return documented_schema(app)

    app.openapi = openapi  # type: ignore[method-assign]
    return app
