"""What the routers' handlers get through ``Depends``: the app's node, settings and
enqueue batcher (set on ``app.state`` by ``create_app``), and shared parameter types.

The getters are ``async`` so that resolving them costs no thread hop.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path, Query, Request

from api.enqueue_batcher import EnqueueBatcher
from api.inputs import MAX_INT64
from api.settings import ApiSettings
from flowcore.engine.node import Node

API = "/api/v1"


async def get_node(request: Request) -> Node:
    """The running node the app serves."""
    node: Node = request.app.state.node
    return node


async def get_settings(request: Request) -> ApiSettings:
    """The API's settings."""
    settings: ApiSettings = request.app.state.settings
    return settings


async def get_batcher(request: Request) -> EnqueueBatcher:
    """The group commit that enqueues go through."""
    batcher: EnqueueBatcher = request.app.state.batcher
    return batcher


NodeDep = Annotated[Node, Depends(get_node)]
SettingsDep = Annotated[ApiSettings, Depends(get_settings)]
BatcherDep = Annotated[EnqueueBatcher, Depends(get_batcher)]

EventId = Annotated[int, Path(ge=0, le=MAX_INT64, description="A provenance event id.")]
WaitForIndex = Annotated[
    bool,
    Query(description="Index the journaled events first, so earlier writes are found."),
]
