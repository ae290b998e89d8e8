"""JSON records passed through unchanged are written from their serialized form, as NiFi.

NiFi's JsonTreeReader keeps the text of each record's object and JsonRecordSetWriter
writes it as it is when the record's schema is the writer's: a field a record lacks stays
absent, ``3`` stays ``3`` in a double field, each record keeps its order of fields and its
explicit nulls; a record whose text holds scientific notation is written field by field.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
JSON = {"reader_type": "JsonTreeReader", "writer_type": "JsonRecordSetWriter"}

LINES = [
    '{"id":1,"price":2.5,"name":"a"}',
    '{"id":2,"name":"b"}',
    '{"name":"c","id":3,"price":3}',
    '{"id":4,"price":null,"name":"d"}',
]
"""Compact lines: each is written as it is."""


def _array(texts: list[str]) -> str:
    return "[" + ",".join(texts) + "]"


def test_convert_keeps_each_record_as_read(make_runner: RunnerFactory) -> None:
    runner = make_runner("ConvertRecord", **JSON)
    runner.enqueue("\n".join(LINES) + "\n")
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    assert out.text() == _array(LINES)
    out.assert_attribute_equals("record.count", "4")


def test_text_with_blanks_is_written_as_jackson_writes_it(make_runner: RunnerFactory) -> None:
    runner = make_runner("ConvertRecord", **JSON)
    runner.enqueue('{ "id" : 1,\t"tags": [ "x", "y" ], "s": "\\u0041\\/" }\r\n\n{"id":2}\n')
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    assert out.text() == '[{"id":1,"tags":["x","y"],"s":"A/"},{"id":2}]'


def test_scientific_notation_is_written_field_by_field(make_runner: RunnerFactory) -> None:
    # Jackson reads 1.5E-4 and 2.5e7 as doubles and would write them with an exponent:
    # NiFi then writes those records field by field (plain numbers), in the schema's order.
    runner = make_runner("ConvertRecord", **JSON)
    runner.enqueue('{"x":1.5,"id":1}\n{"id":2,"x":2.5e7}\n{"id":3}\n{"id":4,"x":1.5E-4}\n')
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    assert out.text() == ('[{"x":1.5,"id":1},{"x":25000000,"id":2},{"id":3},{"x":0.00015,"id":4}]')


def test_explicit_nulls_stay_when_nulls_are_suppressed(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "ConvertRecord", **JSON, writer={"Suppress Null Values": "Always Suppress"}
    )
    runner.enqueue('{"id":1,"v":null}\n{"id":2,"v":"x"}\n')
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    assert out.text() == '[{"id":1,"v":null},{"id":2,"v":"x"}]'


def test_one_line_per_object_and_arrays_in(make_runner: RunnerFactory) -> None:
    runner = make_runner("ConvertRecord", **JSON, writer={"Output Grouping": "One Line Per Object"})
    runner.enqueue('[{"id":1,"name":"a"},{"name":"b","id":2},{"id":3}]')
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    assert out.text() == '{"id":1,"name":"a"}\n{"name":"b","id":2}\n{"id":3}\n'


def test_pretty_print_writes_field_by_field(make_runner: RunnerFactory) -> None:
    runner = make_runner("ConvertRecord", **JSON, writer={"Pretty Print JSON": "true"})
    runner.enqueue('{"name":"b","id":2}\n')
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    assert out.text() == '[ {\n  "name" : "b",\n  "id" : 2\n} ]'


def test_fields_the_given_schema_lacks_leave_the_text(make_runner: RunnerFactory) -> None:
    schema = (
        '{"type":"record","name":"r","fields":[{"name":"id","type":"long"},'
        '{"name":"addr","type":{"type":"record","name":"a","fields":'
        '[{"name":"city","type":"string"}]}}]}'
    )
    runner = make_runner(
        "ConvertRecord",
        **JSON,
        reader={"Schema Access Strategy": "Use 'Schema Text' Property", "Schema Text": schema},
    )
    runner.enqueue('{"extra":true,"addr":{"zip":"9","city":"Oslo"},"id":1}\n')
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    assert out.text() == '[{"addr":{"city":"Oslo"},"id":1}]'


def test_a_writer_schema_of_its_own_writes_field_by_field(make_runner: RunnerFactory) -> None:
    schema = (
        '{"type":"record","name":"r","fields":[{"name":"id","type":["null","long"]},'
        '{"name":"name","type":["null","string"]},{"name":"n","type":["null","long"]}]}'
    )
    runner = make_runner(
        "ConvertRecord",
        **JSON,
        writer={"Schema Access Strategy": "Use 'Schema Text' Property", "Schema Text": schema},
    )
    runner.enqueue('{"name":"b","id":2}\n')
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    assert out.text() == '[{"id":2,"name":"b","n":null}]'


@pytest.mark.parametrize("batch_size", ["3", "65536"])
def test_many_blocks_keep_each_record_its_own_text(
    make_runner: RunnerFactory, batch_size: str
) -> None:
    # Over 1 MB: the lines are parsed block by block (and cut into Record Batch Size
    # batches); each record must still get its own line, blank lines between them.
    lines = [
        f'{{"name":"n{i}","id":{i}}}' if i % 5 == 0 else f'{{"id":{i},"name":"n{i}","x":{i % 7}}}'
        for i in range(60_000)
    ]
    content = "\n".join(line + ("\n\n" if i % 11 == 0 else "") for i, line in enumerate(lines))
    runner = make_runner("ConvertRecord", **JSON, reader={"Record Batch Size": batch_size})
    runner.enqueue(content + "\n")
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    assert out.text() == _array(lines)


def test_two_objects_on_a_line_are_written_field_by_field(make_runner: RunnerFactory) -> None:
    # The lines no longer tell the records apart: flowcore writes them field by field
    # (NiFi would write the second as read); no record takes another's text.
    runner = make_runner("ConvertRecord", **JSON)
    runner.enqueue('{"id":1,"name":"a"} {"name":"b","id":2}\n{"name":"c","id":3}\n')
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    assert out.text() == '[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"c"}]'


def test_split_record_writes_each_split_from_the_texts(make_runner: RunnerFactory) -> None:
    runner = make_runner("SplitRecord", {"Records Per Split": "3"}, **JSON)
    runner.enqueue("\n".join(LINES) + "\n")
    runner.enqueue('{"name":"e","id":5}\n')
    runner.run()
    splits = [f.text() for f in runner.get_flowfiles_for_relationship("splits")]
    assert splits == [_array(LINES[:3]), _array(LINES[3:]), '[{"name":"e","id":5}]']


def test_partition_record_writes_each_partition_from_the_texts(
    make_runner: RunnerFactory,
) -> None:
    runner = make_runner("PartitionRecord", {"kind": "/kind"}, **JSON)
    runner.enqueue(
        '{"kind":"x","id":1}\n{"id":2,"kind":"y"}\n{"kind":"x","id":3,"more":true}\n'
        '{"kind":"y","id":4}\n'
    )
    runner.run()
    outputs = {
        f.attributes["kind"]: f.text() for f in runner.get_flowfiles_for_relationship("success")
    }
    assert outputs == {
        "x": '[{"kind":"x","id":1},{"kind":"x","id":3,"more":true}]',
        "y": '[{"id":2,"kind":"y"},{"kind":"y","id":4}]',
    }


def test_merge_record_keeps_each_record_as_read() -> None:
    import processors.merge
    import processors.record  # noqa: F401

    contents = [
        '{"id":1,"price":2.5,"name":"a"}\n{"id":2,"name":"b"}\n',
        '{"id":3,"price":3.5,"name":"c"}\n{"name":"d","id":4,"price":4}\n',
        '{"id":5,"price":5.5,"name":"e"}\n',
        '[{"id":6,"price":6.5,"name":"f"}]',  # an array: read alone
    ]
    with TestRunner("MergeRecord") as runner:
        runner.add_controller_service("reader", "JsonTreeReader", {})
        runner.add_controller_service("writer", "JsonRecordSetWriter", {})
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        runner.set_property("Minimum Number of Records", "6")
        for content in contents:
            runner.enqueue(content)
        runner.run(2)
        (merged,) = runner.get_flowfiles_for_relationship("merged")
        lines = [line for content in contents[:3] for line in content.splitlines()]
        assert merged.text() == _array([*lines, contents[3][1:-1]])
        merged.assert_attribute_equals("record.count", "6")


def test_validate_record_writes_each_record_as_read(make_runner: RunnerFactory) -> None:
    # NiFi writes valid records with the validation schema (here the reader's, so each
    # record's text) and invalid ones with the record's own schema (its text too).
    schema = (
        '{"type":"record","name":"r","fields":[{"name":"id","type":"long"},'
        '{"name":"name","type":["null","string"]}]}'
    )
    runner = make_runner(
        "ValidateRecord",
        {
            "Schema Access Strategy": "schema-text-property",
            "Schema Text": schema,
            "Allow Extra Fields": "false",
        },
        **JSON,
    )
    runner.enqueue('{"name":"a","id":1}\n{"id":2}\n{"x":1,"id":4}\n')
    runner.run()
    (valid,) = runner.get_flowfiles_for_relationship("valid")  # another schema: by field
    assert valid.text() == '[{"id":1,"name":"a"},{"id":2,"name":null}]'
    (invalid,) = runner.get_flowfiles_for_relationship("invalid")
    assert invalid.text() == '[{"x":1,"id":4}]'
    runner2 = make_runner("ValidateRecord", **JSON)  # the reader's schema validates
    runner2.enqueue('{"name":"a","id":1}\n{"id":2}\n')
    runner2.run()
    (valid,) = runner2.get_flowfiles_for_relationship("valid")
    assert valid.text() == '[{"name":"a","id":1},{"id":2}]'


def test_suppress_missing_values(make_runner: RunnerFactory) -> None:
    # NiFi's third choice: a null is written, a field the record lacks is not (a record
    # read from JSON keeps its own fields; a CSV record has them all).
    props = {"Suppress Null Values": "Suppress Missing Values"}
    runner = make_runner("ConvertRecord", **JSON, writer=props)
    runner.enqueue('{"id":1,"v":null}\n{"id":2}\n')
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    assert out.text() == '[{"id":1,"v":null},{"id":2}]'
    csv = make_runner("ConvertRecord", writer_type="JsonRecordSetWriter", writer=props)
    csv.enqueue("id,v\n1,\n")
    csv.run()
    (out,) = csv.get_flowfiles_for_relationship("success")
    assert out.text() == '[{"id":1,"v":null}]'


@pytest.mark.parametrize(
    "writer",
    [
        {"Serialized JSON Input Handling": "Disabled"},
        {"Timestamp Representation": "Epoch Milliseconds"},
    ],
)
def test_writing_from_the_values(make_runner: RunnerFactory, writer: dict[str, str]) -> None:
    # NiFi's isUseSerializeForm: not when disabled, nor with another representation
    runner = make_runner("ConvertRecord", **JSON, writer=writer)
    runner.enqueue('{"id":1,"v":2.5}\n{"v":3,"id":2}\n')
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    assert out.text() == '[{"id":1,"v":2.5},{"id":2,"v":3.0}]'


def test_scientific_notation_allowed_keeps_the_text(make_runner: RunnerFactory) -> None:
    # NiFi checks for scientific notation only when it is not allowed; allowed, the
    # record's text is written, each double as Jackson writes it.
    runner = make_runner("ConvertRecord", **JSON, writer={"Allow Scientific Notation": "true"})
    runner.enqueue('{"x":1.5,"id":1}\n{"id":2,"x":2.5e7}\n{"id":3}\n{"id":4,"x":0.00015}\n')
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    assert out.text() == ('[{"x":1.5,"id":1},{"id":2,"x":2.5E7},{"id":3},{"id":4,"x":1.5E-4}]')


def test_update_record_keeps_the_text_of_records_it_leaves_as_they_were(
    make_runner: RunnerFactory,
) -> None:
    # NiFi's MapRecord drops a record's serialized form only when a value set on it
    # differs from the one it held: /b set to "x" leaves the first record as it was
    # (its 3 stays 3, its field order stays), the others are written field by field.
    runner = make_runner("UpdateRecord", {"/b": "x"}, **JSON)
    runner.enqueue('{"c":3,"a":1,"b":"x"}\n{"a":2,"b":"y","c":2.5}\n{"a":3,"c":4}\n')
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    assert out.text() == ('[{"c":3,"a":1,"b":"x"},{"c":2.5,"a":2,"b":"x"},{"c":4.0,"a":3,"b":"x"}]')


def test_lookup_record_keeps_the_text_of_records_it_leaves_as_they_were(
    make_runner: RunnerFactory,
) -> None:
    # The unmatched record is routed as it was read; the matched one whose sport is
    # already the looked-up value is unchanged too; the one given a new value is not.
    runner = make_runner(
        "LookupRecord",
        {
            "key": "/name",
            "Result RecordPath": "/sport",
            "Routing Strategy": "Route to 'matched' or 'unmatched'",
        },
        reader_type="JsonTreeReader",
        writer_type="JsonRecordSetWriter",
        writer={"Output Grouping": "One Line Per Object"},
    )
    runner.add_controller_service(
        "lookup", "SimpleKeyValueLookupService", {"ann": "Soccer", "bob": "Golf"}
    )
    runner.set_property("Lookup Service", "lookup")
    runner.enqueue(
        '{"sport":"Soccer","name":"ann","n":1}\n'
        '{"name":"bob","n":2.5,"sport":null}\n'
        '{"n":3,"name":"cy"}\n'
    )
    runner.run()
    (matched,) = runner.get_flowfiles_for_relationship("matched")
    (unmatched,) = runner.get_flowfiles_for_relationship("unmatched")
    assert matched.text() == (
        '{"sport":"Soccer","name":"ann","n":1}\n{"sport":"Golf","name":"bob","n":2.5}\n'
    )
    assert unmatched.text() == '{"n":3,"name":"cy"}\n'
