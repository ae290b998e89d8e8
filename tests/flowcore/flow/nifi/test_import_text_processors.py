"""NiFi flows with the text and content processors import as they are, NiFi 1 property
names and NiFi's stored allowable values included."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from flowcore.flow import parse_flow
from flowcore.flow.nifi import import_nifi

FIXTURES = Path(__file__).parent / "fixtures"


def _snapshot_with(log_type: str, properties: dict[str, str | None]) -> dict[str, Any]:
    """The snapshot fixture with its LogAttribute replaced by ``log_type``."""
    data: dict[str, Any] = json.loads((FIXTURES / "snapshot.json").read_text("utf-8"))
    data = copy.deepcopy(data)
    [log] = [p for p in data["flowContents"]["processors"] if p["name"] == "Log"]
    log["type"] = f"org.apache.nifi.processors.standard.{log_type}"
    log["properties"] = properties
    log["propertyDescriptors"] = {
        name: {"name": name, "displayName": name, "dynamic": name.startswith("dyn.")}
        for name in properties
    }
    log["autoTerminatedRelationships"] = []
    return data


def _imported(data: dict[str, Any]) -> dict[str, Any]:
    document = import_nifi(data).document
    parse_flow(document)  # the flow is valid for flowcore
    properties: dict[str, Any] = document["flow"]["processors"]["Log"]["properties"]
    return properties


def test_route_on_attribute_stored_strategy_value() -> None:
    properties = _imported(
        _snapshot_with(
            "RouteOnAttribute",
            {"Routing Strategy": "Route to 'match' if all match", "dyn.big": "${size:gt(1)}"},
        )
    )
    assert properties["Routing Strategy"] == "Route to 'match' if all match"


def test_replace_text_nifi_1_search_property() -> None:
    properties = _imported(
        _snapshot_with(
            "ReplaceText",
            {
                "Regular Expression": "(a)",
                "Replacement Value": "$1$1",
                "Replacement Strategy": "Regex Replace",
                "Evaluation Mode": "Line-by-Line",
            },
        )
    )
    assert properties["Search Value"] == "(a)"
    assert "Regular Expression" not in properties


def test_extract_text_and_attributes_to_json_renamed_properties() -> None:
    properties = _imported(
        _snapshot_with(
            "ExtractText",
            {"extract-text-enable-named-groups": "true", "dyn.kv": "(?<k>\\w+)=(?<v>\\w+)"},
        )
    )
    assert properties["Enable Named Groups"] == "true"
    assert properties["dyn.kv"] == "(?<k>\\w+)=(?<v>\\w+)"
    properties = _imported(_snapshot_with("AttributesToJSON", {"attributes-to-json-regex": "a.*"}))
    assert properties["Attributes Regular Expression"] == "a.*"
    properties = _imported(
        _snapshot_with(
            "CryptographicHashContent", {"hash_algorithm": "SHA-512", "fail_when_empty": "true"}
        )
    )
    assert properties == {"Hash Algorithm": "SHA-512", "Fail When Content Empty": "true"}
