"""The node's bulletin board: recent warnings and errors, in NiFi's shape."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from api.deps import API, NodeDep
from api.inputs import MAX_INT64
from api.models import (
    AUTH_ERRORS,
    BulletinBoardModel,
    BulletinBoardResult,
    BulletinEntity,
    BulletinModel,
)
from api.security import SECURED
from api.views import iso

router = APIRouter()


@router.get(
    f"{API}/bulletins",
    response_model=BulletinBoardResult,
    dependencies=SECURED,
    tags=["operations"],
    responses=AUTH_ERRORS,
)
def bulletins(
    node: NodeDep,
    after: Annotated[
        int | None, Query(ge=-1, le=MAX_INT64, description="Only bulletins after this id.")
    ] = None,
    limit: Annotated[
        int | None, Query(ge=1, le=10_000, description="At most this many (the newest).")
    ] = None,
) -> BulletinBoardResult:
    """The node's recent warnings and errors, as NiFi's bulletin board."""
    entities = []
    for b in node.bulletins.list(after=after, limit=limit):
        stamp = iso(b.time_ms)
        entities.append(
            BulletinEntity(
                id=b.id,
                sourceId=b.component_id,
                groupId="root",
                timestamp=stamp,
                bulletin=BulletinModel(
                    id=b.id,
                    category=b.category,
                    groupId="root",
                    sourceId=b.component_id,
                    sourceName=b.component_name,
                    sourceType=b.component_type,
                    level="ERROR" if b.level == "ERROR" else "WARNING",
                    message=b.message,
                    timestamp=stamp,
                    timestampMillis=b.time_ms,
                ),
            )
        )
    generated = iso(node.clock.now_ms())
    return BulletinBoardResult(
        bulletinBoard=BulletinBoardModel(bulletins=entities, generated=generated)
    )
