"""Unsupported: the stopped stand-in for a NiFi component flowcore lacks."""

from __future__ import annotations

from typing import cast

import pytest

from flowcore.clock import ManualClock
from flowcore.errors import ProcessException
from flowcore.processor.context import ProcessContext
from flowcore.processor.registry import processor_class
from flowcore.session import ProcessSession


def test_relationships_come_from_the_property() -> None:
    stub = processor_class("Unsupported")()

    names = [r.name for r in stub.get_relationships({"Relationships": "success, failure,"})]
    assert names == ["success", "failure"]
    assert stub.get_relationships({}) == []


def test_any_original_property_is_kept_without_expression_checks() -> None:
    stub = processor_class("Unsupported")()

    descriptor = stub.get_dynamic_property_descriptor("Script Body")
    assert descriptor is not None
    assert not descriptor.supports_expression_language


def test_it_refuses_to_run() -> None:
    stub = processor_class("Unsupported")()
    context = ProcessContext(
        component_id="Script",
        name="Script",
        descriptors={d.name: d for d in stub.property_descriptors},
        properties={"Component Type": "org.apache.nifi.processors.script.ExecuteScript"},
        clock=ManualClock(),
    )
    with pytest.raises(ProcessException, match=r"'Script' stands in for .*ExecuteScript"):
        stub.on_trigger(context, cast(ProcessSession, None))
