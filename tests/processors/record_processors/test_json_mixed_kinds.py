"""A JSON field with values of more than one kind is read, not refused, as NiFi does.

NiFi infers a CHOICE (a number or a text...) and keeps each value as it is: a JSON writer
writes each record's own text, a CSV writer prints each value."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
LINES = '{"id":1,"v":5}\n{"id":2,"v":"x"}\n{"id":3,"v":{"c":true}}\n{"id":4}\n'
ARRAY = '[{"id":1,"v":5},{"id":2,"v":"x"},{"id":3,"v":{"c":true}},{"id":4}]'


@pytest.mark.parametrize("content", [LINES, ARRAY], ids=["lines", "array"])
def test_json_to_json_keeps_each_value(make_runner: RunnerFactory, content: str) -> None:
    runner = make_runner(
        "ConvertRecord", reader_type="JsonTreeReader", writer_type="JsonRecordSetWriter"
    )
    runner.enqueue(content)
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    assert out.text() == ARRAY
    out.assert_attribute_equals("record.count", "4")


@pytest.mark.parametrize("content", [LINES, ARRAY], ids=["lines", "array"])
def test_json_to_csv_prints_each_value(make_runner: RunnerFactory, content: str) -> None:
    runner = make_runner("ConvertRecord", reader_type="JsonTreeReader")
    runner.enqueue(content)
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    assert out.text() == 'id,v\n1,5\n2,x\n3,"{""c"":true}"\n4,\n'


def test_a_malformed_line_still_fails_with_its_reason(make_runner: RunnerFactory) -> None:
    runner = make_runner("ConvertRecord", reader_type="JsonTreeReader")
    runner.enqueue('{"id":1,"v":5}\n{"id":2,"v":"x"}\n{"id":3,\n')
    runner.run()
    (failed,) = runner.get_flowfiles_for_relationship("failure")
    assert "malformed record" in failed.attributes["record.error.message"]


def test_json_with_nested_values_to_csv(make_runner: RunnerFactory) -> None:
    runner = make_runner("ConvertRecord", reader_type="JsonTreeReader")
    runner.enqueue('{"id":1,"a":{"x":1},"l":[1,2]}\n{"id":2,"a":{"x":2},"l":[]}\n')
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    assert out.text() == 'id,a,l\n1,"{""x"":1}","[1, 2]"\n2,"{""x"":2}",[]\n'
