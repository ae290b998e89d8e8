"""The ``flowcore`` console command: the engine's commands plus ``serve`` (the REST API).

It lives in ``api`` because ``serve`` needs the HTTP layer, and ``flowcore`` (a lower
layer) never imports ``api``; the engine's own commands come from ``flowcore.cli``.
"""

from __future__ import annotations

from flowcore.cli import app, main

__all__ = ["app", "main"]
