"""The text NiFi writes for a JSON record read from a text, and the lines of JSON lines."""

from __future__ import annotations

import pyarrow as pa
import pytest

from processors.record.json_serialized import jackson_text, line_texts, with_serialized_forms

SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("x", pa.float64()),
        ("inner", pa.struct([("a", pa.int64())])),
        ("items", pa.list_(pa.struct([("b", pa.string())]))),
    ]
)


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ('{ "id" : 1 , "x" : 2.50 }', '{"id":1,"x":2.5}'),
        ('{"x":1E2,"id":-0}', '{"x":100.0,"id":0}'),
        ('{"x":0.001,"id":9999999.5}', '{"x":0.001,"id":9999999.5}'),
        ('{"id":1,"s":"x"}', '{"id":1}'),  # "s" is not in the schema: removed
        (
            '{"inner":{"a":1,"z":2},"items":[{"b":"x","c":1}],"id":1}',
            '{"inner":{"a":1},"items":[{"b":"x"}],"id":1}',
        ),
    ],
)
def test_jackson_text(text: str, written: str) -> None:
    assert jackson_text(text, SCHEMA) == written


def test_control_characters_are_escaped_in_upper_case() -> None:
    schema = pa.schema([("s", pa.string())])
    # a real control character, then an escaped backslash followed by "u001f" as text
    assert jackson_text('{"s":"\\u001f|\\\\u001f"}', schema) == '{"s":"\\u001F|\\\\u001f"}'


@pytest.mark.parametrize("value", ["1.0E-4", "0.000999", "1e7", "12345678.9", "-2.5E10"])
def test_scientific_notation_means_field_by_field(value: str) -> None:
    assert jackson_text(f'{{"x":{value}}}', SCHEMA) is None
    assert jackson_text(f'{{"items":[{{"b":"y"}}],"inner":{{"a":1}},"x":{value}}}', SCHEMA) is None


def test_unreadable_text_means_field_by_field() -> None:
    assert jackson_text('{"id":1}{"id":2}', SCHEMA) is None
    assert jackson_text("[1]", SCHEMA) is None


def test_line_texts_takes_non_blank_lines_in_order() -> None:
    found = line_texts(b'{"a":1}\n\n \t\n  {"a":2}\t\r\n{"a":3}\n{"a":4', limit=3)
    assert found is not None
    assert found.texts.to_pylist() == ['{"a":1}', '{"a":2}', '{"a":3}']
    assert found.used == len(b'{"a":1}\n\n \t\n  {"a":2}\t\r\n{"a":3}\n')


@pytest.mark.parametrize(
    "buffer",
    [
        b'{"a":1} {"a":2}\n',  # two objects on a line
        b'{"a":1,\n"b":2}\n',  # an object over two lines
        b'{"a":1}\n',  # fewer lines than asked for (limit 2)
    ],
)
def test_line_texts_refuses_lines_that_are_not_one_object(buffer: bytes) -> None:
    assert line_texts(buffer, limit=2) is None


def test_forms_replace_only_records_whose_text_differs() -> None:
    rendered = pa.array(['{"id":1,"x":null}', '{"id":2,"x":1.5}', '{"id":3,"x":null}'])
    forms = pa.array(['{"id":1}', '{"id":2,"x":1.5}', None])
    result = with_serialized_forms(rendered, forms, SCHEMA)
    assert result.to_pylist() == ['{"id":1}', '{"id":2,"x":1.5}', '{"id":3,"x":null}']


def test_blanks_between_tokens_go_and_blanks_in_texts_stay() -> None:
    from processors.record.json_serialized import _compacted

    forms = pa.array(['{"a": 1, "b": "x y"}', ' { "c" : [1, 2] }', '{"e": "q\\" , "}'])
    assert _compacted(forms).to_pylist() == [
        '{"a":1,"b":"x y"}',
        '{"c":[1,2]}',
        '{"e": "q\\" , "}',  # a backslash: left to the slow way, as it is
    ]


def test_forms_that_differ_by_blanks_only_are_the_rendering() -> None:
    rendered = pa.array(['{"a":1,"b":"x, y"}', '{"a":2,"b":"z"}'])
    forms = pa.array(['{"a": 1, "b": "x, y"}', '{ "a" : 2 , "b" : "z" }'])
    assert with_serialized_forms(rendered, forms, SCHEMA) is rendered


def test_a_written_time_is_not_compared_without_its_blanks() -> None:
    # A date or time is written in the writer's format, which may differ from the form
    # by a blank inside its text: the form is written then, not the rendering.
    schema = pa.schema([("t", pa.timestamp("ms"))])
    rendered = pa.array(['{"t":"2024-01-0110:00"}'])
    forms = pa.array(['{"t": "2024-01-01 10:00"}'])
    result = with_serialized_forms(rendered, forms, schema)
    assert result.to_pylist() == ['{"t":"2024-01-01 10:00"}']


def test_with_scientific_notation_allowed_doubles_are_written_as_jackson_does() -> None:
    text = '{"id":1,"x":1e-4,"inner":{"a":2.50}}'
    assert jackson_text(text, SCHEMA) is None
    assert jackson_text(text, SCHEMA, scientific=True) == '{"id":1,"x":1.0E-4,"inner":{"a":2.5}}'
