"""Import of NiFi flows using InvokeHTTP (NiFi 1 property names), DetectDuplicate and the
MapCacheClientService, which becomes an LmdbMapCacheService."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from flowcore.flow.nifi import import_nifi

FIXTURES = Path(__file__).parent / "fixtures"


def _flow_with(processors: list[dict[str, Any]], services: list[dict[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / "nested_groups.json").read_text("utf-8"))
    root = data["flowContents"]
    template = root["processors"][0]
    for spec in processors:
        processor = copy.deepcopy(template)
        processor.update(spec)
        processor["identifier"] = processor["instanceIdentifier"] = spec["name"]
        root["processors"].append(processor)
    service_template = root["controllerServices"][0]
    for spec in services:
        service = copy.deepcopy(service_template)
        service.update(spec)
        root["controllerServices"].append(service)
    return data


def test_invoke_http_nifi_1_names_and_map_cache_client_are_imported() -> None:
    data = _flow_with(
        [
            {
                "name": "Call",
                "type": "org.apache.nifi.processors.standard.InvokeHTTP",
                "properties": {
                    "HTTP Method": "POST",
                    "Remote URL": "http://127.0.0.1:9/${path}",
                    "Follow Redirects": "False",
                    "Attributes to Send": "x-.*",
                    "Use Chunked Encoding": "false",
                    "X-Header": "${h}",
                },
            },
            {
                "name": "Dedupe",
                "type": "org.apache.nifi.processors.standard.DetectDuplicate",
                "properties": {
                    "Cache Entry Identifier": "${hash.value}",
                    "Distributed Cache Service": "cache-id",
                },
            },
        ],
        [
            {
                "name": "Cache",
                "identifier": "cache-id",
                "instanceIdentifier": "cache-id",
                "type": "org.apache.nifi.distributed.cache.client.MapCacheClientService",
                "properties": {"Server Hostname": "localhost", "Server Port": "4557"},
            }
        ],
    )
    result = import_nifi(data)
    assert result.unsupported == []
    flow = result.document["flow"]
    call = flow["processors"]["Call"]
    assert call["type"] == "InvokeHTTP"
    assert call["properties"]["HTTP URL"] == "http://127.0.0.1:9/${path}"
    assert call["properties"]["Response Redirects Enabled"] == "False"
    assert call["properties"]["Request Header Attributes Pattern"] == "x-.*"
    assert call["properties"]["X-Header"] == "${h}"
    assert flow["controller_services"]["Cache"]["type"] == "LmdbMapCacheService"
    assert flow["processors"]["Dedupe"]["properties"]["Distributed Cache Service"] == "Cache"
