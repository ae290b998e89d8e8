"""The API's exception handlers: every error answered with a string ``detail``, a full
repository with 507, an unavailable one or back pressure with 503 and ``Retry-After``."""

from __future__ import annotations

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.requests import ClientDisconnect

from api.inputs import BadInput, repository_detail
from api.settings import ApiSettings
from flowcore.engine.node import BackPressureError
from flowcore.errors import RepositoryError, RepositoryFullError
from flowcore.logsafe import safe_logger

log = safe_logger("flowcore.api")


def _retry_after(request: Request) -> str:
    settings: ApiSettings = request.app.state.settings
    return str(settings.retry_after_seconds)


async def bad_input(_request: Request, exc: BadInput) -> JSONResponse:
    headers = {"Connection": "close"} if exc.status == 413 else None
    return JSONResponse({"detail": exc.detail}, status_code=exc.status, headers=headers)


async def invalid_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
    """Every error body has a string ``detail``, as documented: name each problem."""
    problems = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
        problems.append(
            f"{where}: {error.get('msg', 'invalid')}" if where else str(error.get("msg", "invalid"))
        )
    return JSONResponse({"detail": "; ".join(problems) or "invalid request"}, status_code=422)


async def repository_failure(request: Request, exc: RepositoryError) -> JSONResponse:
    """507 when a repository is full, else 503 with ``Retry-After``: never a 500.

    The message names the repository and the setting that mends it.
    """
    detail = repository_detail(exc)
    log.warning("%s %s failed: %s", request.method, request.url.path, detail)
    if isinstance(exc, RepositoryFullError):
        return JSONResponse({"detail": detail}, status_code=507, headers={"Connection": "close"})
    return JSONResponse(
        {"detail": detail},
        status_code=503,
        headers={"Retry-After": _retry_after(request)},
    )


async def client_gone(request: Request, _exc: ClientDisconnect) -> Response:
    """The client went away before its body arrived: nothing was enqueued. Not an
    error of the server: one warning line, no traceback."""
    log.warning(
        "client disconnected during %s %s before the body arrived; nothing was enqueued",
        request.method,
        request.url.path,
    )
    return JSONResponse({"detail": "the client disconnected"}, status_code=400)


async def back_pressure(request: Request, exc: BackPressureError) -> JSONResponse:
    return JSONResponse(
        {"detail": str(exc)},
        status_code=503,
        headers={"Retry-After": _retry_after(request)},
    )


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers above on ``app``."""
    app.exception_handler(BadInput)(bad_input)
    app.exception_handler(RequestValidationError)(invalid_request)
    app.exception_handler(RepositoryError)(repository_failure)
    app.exception_handler(ClientDisconnect)(client_gone)
    app.exception_handler(BackPressureError)(back_pressure)
