"""``flowcore serve``: a flow and the REST API (with the web UI) in one process."""

from __future__ import annotations

import logging
import signal
import socket
from pathlib import Path
from typing import Annotated, Any

import typer

from api.settings import ApiSettings
from cli._common import (
    EXIT_RUNTIME,
    DataDir,
    LogLevel,
    LogLevelOption,
    Output,
    Params,
    console,
    engine_settings,
    fail,
    load_definition,
    logging_to_stderr,
    refuse,
)
from flowcore.engine.node import Node
from flowcore.engine.scheduler import ThreadedScheduler
from flowcore.errors import ConfigurationError, FlowCoreError
from flowcore.flow.nifi.commands import AllowUnsupported

log = logging.getLogger("flowcore.api")


def serve(
    flow: Annotated[Path, typer.Argument(help="Flow definition (YAML).")],
    data_dir: DataDir = None,
    host: Annotated[
        str | None,
        typer.Option(help="Address to bind (default: $FLOWCORE_API_HOST or 127.0.0.1)."),
    ] = None,
    port: Annotated[
        int | None, typer.Option(help="Port (default: $FLOWCORE_API_PORT or 8080).")
    ] = None,
    param: Params = None,
    log_level: LogLevelOption = LogLevel.warn,
    allow_unsupported: AllowUnsupported = False,
) -> None:
    """Run a flow and the REST API in one process; SIGTERM stops cleanly.

    The port is bound before the flow starts: a port in use stops it with nothing run.
    """
    from pydantic import ValidationError

    try:
        # The flags go through the same validation as the FLOWCORE_API_* variables.
        flags: dict[str, Any] = {k: v for k, v in (("host", host), ("port", port)) if v is not None}
        api_settings = ApiSettings(**flags)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise fail(f"API settings: {problems}") from None
    with logging_to_stderr(log_level):
        _serve(flow, data_dir, api_settings, param, allow_unsupported=allow_unsupported)


def _serve(
    flow: Path,
    data_dir: Path | None,
    api_settings: ApiSettings,
    param: list[str] | None,
    *,
    allow_unsupported: bool,
) -> None:
    import uvicorn

    from api.app import create_app

    try:
        definition = load_definition(flow, param, allow_unsupported=allow_unsupported)
        node = Node.from_flow(engine_settings(data_dir), definition)
    except ConfigurationError as exc:
        raise refuse(exc, Output.text) from None
    except FlowCoreError as exc:
        raise fail(exc, EXIT_RUNTIME) from None
    scheduler: ThreadedScheduler | None = None
    try:
        try:
            listener = _bind(api_settings.host, api_settings.port)
        except OSError as exc:
            raise fail(
                f"cannot listen on {api_settings.host}:{api_settings.port}: {exc.strerror or exc}",
                EXIT_RUNTIME,
            ) from None
        application = create_app(node, api_settings)
        application.state.flow_name = definition.flow.name
        config = uvicorn.Config(
            application,
            host=api_settings.host,
            port=listener.getsockname()[1],
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=30,
            **server_options(),
        )
        server = uvicorn.Server(config)
        # uvicorn re-raises the signal that stopped it once it has shut down; with these
        # handlers in place that re-raise is harmless and the clean-up below runs.
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: None)
        scheduler = ThreadedScheduler(node)
        scheduler.start()
        console.print(
            f"serving {flow} on http://{api_settings.host}:{config.port} "
            f"(web UI at /, data in {node.settings.data_dir}); SIGTERM or Ctrl-C stops cleanly",
            highlight=False,
        )
        with listener:
            server.run(sockets=[listener])
    finally:
        if scheduler is not None:
            scheduler.stop()
        node.close()
    console.print("stopped cleanly")


def server_options() -> dict[str, Any]:
    """uvicorn's C HTTP parser and event loop (httptools, uvloop): several times the
    requests per second of its pure-Python defaults on the same core."""
    # One write per small answer (api/http_protocol.py). No proxy-header rewriting:
    # nothing here reads the client's address, and it is a step on every request.
    from api.http_protocol import OneWriteHttpToolsProtocol

    return {"http": OneWriteHttpToolsProtocol, "loop": "uvloop", "proxy_headers": False}


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (IPv6 for an address with a colon)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, backlog=2048)
