"""The test files NiFi's own processor tests read (kept under ``nifi_data/``)."""

from __future__ import annotations

from pathlib import Path

RESOURCES = Path(__file__).parent / "nifi_data"


def resource(name: str) -> bytes:
    """The bytes of a NiFi test resource, by its path under NiFi's src/test/resources."""
    return (RESOURCES / name).read_bytes()
