"""The nifiapi objects on their own: state, property values, dependencies, the logger."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import pytest

from nifiapi.componentstate import Scope, StateManager
from nifiapi.logging import Logger
from nifiapi.properties import (
    DataUnit,
    ExpressionLanguageScope,
    PropertyDependency,
    PropertyDescriptor,
    PythonPropertyValue,
    StandardValidators,
    TimeUnit,
    dependencies_met,
)


class DictState:
    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def get(self) -> dict[str, str]:
        return dict(self.values)

    def set(self, values: Mapping[str, str]) -> None:
        self.values = dict(values)


class FakeEngine:
    def __init__(self) -> None:
        self.evaluated: list[str] = []

    def evaluate(self, name: str | None, value: str, attributes: Mapping[str, str]) -> str:
        self.evaluated.append(value)
        return value.replace("${a:toUpper()}", attributes.get("a", "").upper())

    def time_period_ms(self, value: str) -> float:
        return {"90 sec": 90_000.0, "1500 millis": 1500.0}[value]

    def data_size_bytes(self, value: str) -> float:
        return {"1 MB": 1024.0 * 1024.0}[value]

    def controller_service(self, identifier: str) -> Any:
        return ("service", identifier)


def test_state_replace_refuses_a_stale_map() -> None:
    manager = StateManager(DictState())
    empty = manager.getState(Scope.LOCAL)
    assert empty.getStateVersion() is None and empty.toMap() == {}
    assert manager.replace(empty, {"n": "1"}, Scope.LOCAL)
    stale = empty
    assert not manager.replace(stale, {"n": "9"}, Scope.CLUSTER)
    current = manager.getState(Scope.CLUSTER)  # one map for both scopes
    assert current.get("n") == "1" and current.getStateVersion() is not None
    assert manager.replace(current, {"n": "2"}, Scope.LOCAL)
    assert manager.getState(Scope.LOCAL).toMap() == {"n": "2"}
    manager.clear(Scope.LOCAL)
    assert manager.getState(Scope.LOCAL).toMap() == {}


def test_state_values_become_strings() -> None:
    backend = DictState()
    StateManager(backend).setState({"count": 3}, Scope.LOCAL)  # type: ignore[dict-item]
    assert backend.values == {"count": "3"}


def test_property_value_conversions() -> None:
    engine = FakeEngine()
    assert PythonPropertyValue("90 sec", engine).asTimePeriod(TimeUnit.MINUTES) == 1
    assert PythonPropertyValue("90 sec", engine).asTimePeriod(TimeUnit.SECONDS) == 90
    assert PythonPropertyValue("1500 millis", engine).asTimePeriod(TimeUnit.SECONDS) == 1
    assert PythonPropertyValue("1 MB", engine).asDataSize(DataUnit.KB) == 1024.0
    assert PythonPropertyValue("TRUE", engine).asBoolean() is True
    assert PythonPropertyValue("yes", engine).asBoolean() is False
    assert PythonPropertyValue(None, engine).asInteger() is None
    assert PythonPropertyValue("12", engine).asInteger() == 12
    assert PythonPropertyValue("2.5", engine).asFloat() == 2.5
    assert PythonPropertyValue("svc", engine).asControllerService() == ("service", "svc")
    with pytest.raises(ValueError):
        PythonPropertyValue("x", engine).asInteger()


def test_a_single_attribute_reference_is_read_directly() -> None:
    engine = FakeEngine()
    value = PythonPropertyValue("${name}", engine)
    assert value.isExpressionLanguagePresent()
    assert value.evaluateAttributeExpressions({"name": "n"}).getValue() == "n"
    assert value.evaluateAttributeExpressions({}).getValue() == ""  # missing: empty
    assert engine.evaluated == []
    complex_value = PythonPropertyValue("x-${a:toUpper()}", engine)
    assert complex_value.evaluateAttributeExpressions({"a": "b"}).getValue() == "x-B"
    plain = PythonPropertyValue("${a}", engine, el_supported=False)
    assert plain.evaluateAttributeExpressions({"a": "b"}) is plain


def test_descriptor_defaults_as_nifi() -> None:
    descriptor = PropertyDescriptor("Count", "how many", default_value=5)
    assert descriptor.defaultValue == "5"
    assert descriptor.validators == [StandardValidators.ALWAYS_VALID]
    assert descriptor.expressionLanguageScope is ExpressionLanguageScope.NONE
    assert descriptor.displayName is None


def test_dependencies() -> None:
    mode = PropertyDescriptor("Mode", "", default_value="a")
    extra = PropertyDescriptor("Extra", "", dependencies=[PropertyDependency(mode, "b", "c")])
    deeper = PropertyDescriptor("Deeper", "", dependencies=[PropertyDependency(extra)])
    assert not dependencies_met(extra, {})
    assert dependencies_met(extra, {"Mode": "c"})
    assert not dependencies_met(deeper, {"Mode": "a", "Extra": "x"})  # Extra is hidden
    assert dependencies_met(deeper, {"Mode": "b", "Extra": "x"})
    assert not dependencies_met(deeper, {"Mode": "b"})


def test_logger_fills_java_placeholders(caplog: pytest.LogCaptureFixture) -> None:
    logger = Logger(logging.getLogger("flowcore.processor.Test"))
    with caplog.at_level(logging.INFO, logger="flowcore.processor.Test"):
        logger.info("Read {} records from {}", 3, "a.json")
        logger.warn("plain", ValueError("boom"))
    assert caplog.messages == ["Read 3 records from a.json", "plain boom"]
