"""The ``flowcore`` console command: the engine's commands plus ``serve`` (the REST API).

It lives in ``api`` because ``serve`` needs the HTTP layer, and ``flowcore`` (a lower
layer) never imports ``api``; the engine's own commands come from ``flowcore.cli``.
"""

from __future__ import annotations

import logging
import signal
from pathlib import Path
from typing import Annotated

import typer

from flowcore.cli import DataDir, _fail, _settings, app, console, main
from flowcore.engine.node import Node
from flowcore.engine.scheduler import ThreadedScheduler
from flowcore.errors import FlowCoreError
from flowcore.flow.definition import load_flow

__all__ = ["app", "main", "serve"]

log = logging.getLogger("flowcore.api")


@app.command()
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
) -> None:
    """Run a flow and the REST API in one process; SIGTERM stops cleanly."""
    import uvicorn
    from pydantic import ValidationError

    from api.app import create_app
    from api.settings import ApiSettings

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        api_settings = ApiSettings()
    except ValidationError as exc:
        raise _fail(f"API settings: {exc}") from None
    updates: dict[str, object] = {}
    if host is not None:
        updates["host"] = host
    if port is not None:
        updates["port"] = port
    api_settings = api_settings.model_copy(update=updates)
    try:
        node = Node.from_flow(_settings(data_dir), load_flow(flow))
    except FlowCoreError as exc:
        raise _fail(exc) from None
    scheduler: ThreadedScheduler | None = None
    try:
        application = create_app(node, api_settings)
        config = uvicorn.Config(
            application,
            host=api_settings.host,
            port=api_settings.port,
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=30,
        )
        server = uvicorn.Server(config)
        # uvicorn re-raises the signal that stopped it once it has shut down; with these
        # handlers in place that re-raise is harmless and the clean-up below runs.
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: None)
        scheduler = ThreadedScheduler(node)
        scheduler.start()
        console.print(
            f"serving {flow} on http://{api_settings.host}:{api_settings.port} "
            f"(data in {node.settings.data_dir}); SIGTERM or Ctrl-C stops cleanly",
            highlight=False,
        )
        server.run()
    finally:
        if scheduler is not None:
            scheduler.stop()
        node.close()
    console.print("stopped cleanly")


if __name__ == "__main__":
    main()
