"""Bearer-token authorization: read tokens may GET, write tokens may do anything."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from api.inputs import Tokens

bearer = HTTPBearer(auto_error=False, description="A token from FLOWCORE_API_TOKENS.")


# async: a plain ``def`` dependency would cost every secured request a thread hop.
async def authorize(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> None:
    """Refuse (401/403) a request whose token may not use its method."""
    tokens: Tokens = request.app.state.tokens
    if tokens.open:
        return
    given = None if credentials is None else f"{credentials.scheme} {credentials.credentials}"
    tokens.check(given, request.method)


SECURED: list[Any] = [Depends(authorize)]
