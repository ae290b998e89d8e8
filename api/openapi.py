"""The OpenAPI document, with every 422 documented as the string ``detail`` it really is."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from api.models import ErrorBody


def documented_schema(app: FastAPI) -> dict[str, Any]:
    """``app``'s schema (built once): 422s refer to ``ErrorBody``, FastAPI's own
    validation-error schemas are dropped."""
    if app.openapi_schema is None:
        schema = get_openapi(
            title=app.title, version=app.version, description=app.description, routes=app.routes
        )
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components.setdefault("ErrorBody", ErrorBody.model_json_schema())
        error_ref = {"$ref": "#/components/schemas/ErrorBody"}
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                response = operation.get("responses", {}).get("422")
                if response is not None:
                    response["content"] = {"application/json": {"schema": error_ref}}
        components.pop("HTTPValidationError", None)
        components.pop("ValidationError", None)
        app.openapi_schema = schema
    return app.openapi_schema
