"""What flowcore's NiFi flow import makes of a standard processor's NiFi properties."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flowcore.flow import parse_flow
from flowcore.flow.nifi import import_nifi

SNAPSHOT = Path(__file__).parents[2] / "flowcore" / "flow" / "nifi" / "fixtures" / "snapshot.json"


def imported_properties(simple_type: str, properties: dict[str, str]) -> dict[str, str]:
    """The properties flowcore keeps for NiFi's ``simple_type`` processor (of
    ``org.apache.nifi.processors.standard``) configured with ``properties``."""
    data: dict[str, Any] = json.loads(SNAPSHOT.read_text("utf-8"))
    [log] = [p for p in data["flowContents"]["processors"] if p["name"] == "Log"]
    log["type"] = f"org.apache.nifi.processors.standard.{simple_type}"
    log["properties"] = properties
    log["propertyDescriptors"] = {
        name: {"name": name, "displayName": name, "dynamic": False} for name in properties
    }
    log["autoTerminatedRelationships"] = []
    document = import_nifi(data).document
    parse_flow(document)
    imported: dict[str, str] = document["flow"]["processors"]["Log"]["properties"]
    return imported
