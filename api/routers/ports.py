"""Enqueue FlowFiles at an input port: one (the body is its content) or an NDJSON batch.

Small single enqueues are usually answered ahead of FastAPI by ``api/lean_enqueue.py``
(same checks, same answers); the route here documents them and serves the rest.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from fastapi import APIRouter, Header, HTTPException, Path, Request, Response

from api.deps import API, BatcherDep, NodeDep, SettingsDep
from api.inputs import BadInput, check_declared_size, parse_attribute_header, read_body
from api.models import AUTH_ERRORS, UuidResult, UuidsResult, errors, full, unavailable
from api.ndjson import parse_ndjson
from api.security import SECURED

# A single enqueue with a declared body up to this size is read whole and committed
# together with the concurrent ones (api/enqueue_batcher.py); larger ones stream.
SMALL_BODY = 256 * 1024

NDJSON = "application/x-ndjson"
_UUIDS = msgspec.json.Encoder()

router = APIRouter()


@router.post(
    f"{API}/ports/{{port}}/flowfiles",
    status_code=201,
    response_model=UuidResult,
    dependencies=SECURED,
    tags=["ports"],
    summary="Enqueue one FlowFile: the body is its content",
    responses={**AUTH_ERRORS, **errors(400, 404, 413, 422), **unavailable(), **full()},
    openapi_extra={
        "requestBody": {
            "required": False,
            "content": {"application/octet-stream": {"schema": {"type": "string"}}},
        }
    },
)
async def post_flowfile(
    request: Request,
    port: Annotated[str, Path(description="Input port name.")],
    node: NodeDep,
    settings: SettingsDep,
    batcher: BatcherDep,
    x_flowfile_attributes: Annotated[
        str | None,
        Header(description='Attributes as a JSON object of strings, e.g. {"a": "b"}.'),
    ] = None,
) -> UuidResult:
    limit = settings.max_body_bytes
    attributes = parse_attribute_header(x_flowfile_attributes)
    if port not in node.input_ports:
        raise HTTPException(404, f"no input port named '{port}'")
    # Small sized bodies are answered by the lean path (api/lean_enqueue.py) before this
    # route; what reaches it is large, unsized or refused there.
    check_declared_size(request, limit)
    try:
        upload = node.open_upload(port, attributes)
    except ValueError as exc:
        raise BadInput(422, str(exc)) from None
    # The body streams into the content repository chunk by chunk; past the limit
    # (or on any error) the upload is aborted and nothing is left behind. The commit
    # takes its turn in the commit queue, in arrival order with the port's others.
    try:
        async for chunk in request.stream():
            if upload.size + len(chunk) > limit:
                raise BadInput(413, f"the body exceeds the maximum size of {limit} bytes")
            upload.write(chunk)
        uuid = await batcher.commit_upload(port, upload)
    except BaseException:
        upload.abort()
        raise
    return UuidResult(uuid=uuid)


@router.post(
    f"{API}/ports/{{port}}/flowfiles/batch",
    status_code=201,
    response_model=UuidsResult,
    dependencies=SECURED,
    tags=["ports"],
    summary="Enqueue FlowFiles from NDJSON, all or none, in one session",
    responses={**AUTH_ERRORS, **errors(400, 404, 413, 422), **unavailable(), **full()},
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                NDJSON: {
                    "schema": {
                        "type": "string",
                        "description": 'One {"attributes": {...}, "content": "..."} '
                        '(or "content_base64") per line.',
                    }
                }
            },
        }
    },
)
async def post_batch(
    request: Request,
    port: Annotated[str, Path(description="Input port name.")],
    node: NodeDep,
    settings: SettingsDep,
    batcher: BatcherDep,
) -> Response:
    if port not in node.input_ports:
        raise HTTPException(404, f"no input port named '{port}'")
    items = parse_ndjson(await read_body(request, settings.max_body_bytes))
    try:
        uuids = await batcher.enqueue_all(port, items)
    except ValueError as exc:
        raise BadInput(422, str(exc)) from None
    # Encoded here rather than validated again against ``UuidsResult`` (the schema it
    # documents): hundreds of uuids are plain strings.
    return Response(
        _UUIDS.encode({"uuids": uuids}),
        status_code=201,
        media_type="application/json",
    )
