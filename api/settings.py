"""REST API settings: one typed object with ``FLOWCORE_API_`` environment overrides.

``FLOWCORE_API_HOST``, ``FLOWCORE_API_PORT``, ``FLOWCORE_API_MAX_BODY_SIZE`` (NiFi's data
size syntax, e.g. ``"10 MB"``), ``FLOWCORE_API_RETRY_AFTER_SECONDS`` and
``FLOWCORE_API_TOKENS``, a JSON list such as
``[{"token": "s3cret", "role": "write"}, {"token": "peek", "role": "read"}]``.
With no tokens configured the API is open (and bound to 127.0.0.1 by default).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from flowcore.units import parse_data_size

Role = Literal["read", "write"]


class ApiToken(BaseModel):
    """A bearer token and its role: ``read`` (GET endpoints) or ``write`` (everything)."""

    model_config = ConfigDict(extra="forbid")
    token: SecretStr
    role: Role = "read"


class ApiSettings(BaseSettings):
    """How the HTTP face listens and whom it lets in."""

    model_config = SettingsConfigDict(
        env_prefix="FLOWCORE_API_", env_nested_delimiter="__", extra="forbid"
    )

    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=0, le=65535)
    max_body_size: str = "100 MB"
    retry_after_seconds: int = Field(default=1, ge=0)
    tokens: list[ApiToken] = Field(default_factory=list)

    @field_validator("max_body_size")
    @classmethod
    def _size(cls, value: str) -> str:
        parse_data_size(value)
        return value

    @property
    def max_body_bytes(self) -> int:
        return parse_data_size(self.max_body_size)
