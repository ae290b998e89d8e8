"""With an inferred schema, text that looks like a date, time or timestamp stays text.

NiFi's readers infer a date, time or timestamp only when a Date, Time or Timestamp Format
is set (they are not offered for inference here), so ``2024-05-02`` passes through a
record processor as ``2024-05-02``, not ``2024-05-02 00:00:00``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
CSV = "id,at,day,clock\n1,2024-05-01T12:00:00,2024-05-01,12:30:00\n2,2024-05-02,2024-05-02,08:00\n"


def converted(make_runner: RunnerFactory, content: str, **services: str) -> str:
    """The one FlowFile ConvertRecord sends to success for ``content``."""
    runner = make_runner("ConvertRecord", **services)
    runner.enqueue(content)
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    return out.text()


def test_csv_through_convert_record_keeps_its_text(make_runner: RunnerFactory) -> None:
    assert converted(make_runner, CSV) == CSV


def test_csv_to_json_writes_the_text_as_strings(make_runner: RunnerFactory) -> None:
    assert converted(make_runner, CSV, writer_type="JsonRecordSetWriter") == (
        '[{"id":1,"at":"2024-05-01T12:00:00","day":"2024-05-01","clock":"12:30:00"},'
        '{"id":2,"at":"2024-05-02","day":"2024-05-02","clock":"08:00"}]'
    )


@pytest.mark.parametrize("reader_type", ["CSVReader", "JsonTreeReader"])
def test_many_flowfiles_read_together_keep_their_text(
    make_runner: RunnerFactory, reader_type: str
) -> None:
    # ConvertRecord reads a poll of small FlowFiles in one parse (the bulk path).
    runner = make_runner("ConvertRecord", reader_type=reader_type)
    for day in range(1, 9):
        if reader_type == "CSVReader":
            runner.enqueue(f"id,at\n{day},2024-05-0{day}T10:00:00\n{day + 10},2024-05-0{day}\n")
        else:
            runner.enqueue(
                f'{{"id":{day},"at":"2024-05-0{day}T10:00:00"}}\n'
                f'{{"id":{day + 10},"at":"2024-05-0{day}"}}\n'
            )
    runner.run()
    outputs = [f.text() for f in runner.get_flowfiles_for_relationship("success")]
    assert outputs == [
        f"id,at\n{day},2024-05-0{day}T10:00:00\n{day + 10},2024-05-0{day}\n" for day in range(1, 9)
    ]


def test_a_large_csv_streams_with_its_text(make_runner: RunnerFactory) -> None:
    # Over 1 MB: the types come from the first block, the rest streams with them.
    rows = [f"{i},2024-05-{1 + i % 28:02d}T10:{i % 60:02d}:00,x{i}" for i in range(60_000)]
    content = "id,at,name\n" + "\n".join(rows) + "\n"
    assert converted(make_runner, content) == content


def test_a_nan_or_an_infinity_makes_a_column_text(make_runner: RunnerFactory) -> None:
    # NiFi does not take NaN or Infinity for numbers: such a column is text, not a double
    # that the JSON writer could not write without scientific notation.
    runner = make_runner("ConvertRecord", writer_type="JsonRecordSetWriter")
    runner.enqueue("a,p,q\n1,NaN,2.5\n2,1.5,3\n")
    runner.enqueue("a,p,q\n3,-inf,2.5\n4,1.5,3\n")
    runner.run()
    outputs = [f.text() for f in runner.get_flowfiles_for_relationship("success")]
    assert outputs == [
        '[{"a":1,"p":"NaN","q":2.5},{"a":2,"p":"1.5","q":3.0}]',
        '[{"a":3,"p":"-inf","q":2.5},{"a":4,"p":"1.5","q":3.0}]',
    ]
    assert runner.get_flowfiles_for_relationship("failure") == []


@pytest.mark.parametrize(
    ("reader_type", "content"),
    [
        ("CSVReader", "id,n\n12345678901234567890,1\n-98765432109876543210,2\n"),
        (
            "JsonTreeReader",
            '{"id":12345678901234567890,"n":1}\n{"id":-98765432109876543210,"n":2}\n',
        ),
        (
            "JsonTreeReader",
            '[{"id":12345678901234567890,"n":1},{"id":-98765432109876543210,"n":2}]',
        ),
    ],
    ids=["csv", "json lines", "json array"],
)
def test_integers_beyond_long_keep_their_digits(
    make_runner: RunnerFactory, reader_type: str, content: str
) -> None:
    # pyarrow would take them for doubles (1.2345678901234567E19): NiFi keeps them
    # (CSV: as text, JSON: as BIGINT), and so does flowcore.
    assert (
        converted(make_runner, content, reader_type=reader_type)
        == "id,n\n12345678901234567890,1\n-98765432109876543210,2\n"
    )


# NiFi infers a number only for what Commons Lang's ``NumberUtils.isParsable`` accepts: an
# optional minus, digits, at most one point, not ending in one. pyarrow also reads an
# exponent (``1e-05``, as Python writes small floats), a leading plus and a trailing point
# as doubles, which the writers would then print as ``1.0E-5``, ``5.0`` and ``5.0``.
NOT_NIFI_NUMBERS = (
    "id,small,big,plus,dot,plain\n1,1e-05,1.5E3,+5,5.,2.5\n2,2.5e-07,-3E+2,+7,6.,3.5\n"
)


def test_a_number_nifi_does_not_parse_makes_a_column_text(make_runner: RunnerFactory) -> None:
    assert converted(make_runner, NOT_NIFI_NUMBERS) == NOT_NIFI_NUMBERS


def test_csv_to_json_writes_numbers_nifi_does_not_parse_as_strings(
    make_runner: RunnerFactory,
) -> None:
    assert converted(make_runner, NOT_NIFI_NUMBERS, writer_type="JsonRecordSetWriter") == (
        '[{"id":1,"small":"1e-05","big":"1.5E3","plus":"+5","dot":"5.","plain":2.5},'
        '{"id":2,"small":"2.5e-07","big":"-3E+2","plus":"+7","dot":"6.","plain":3.5}]'
    )


def test_many_flowfiles_read_together_each_read_as_alone(make_runner: RunnerFactory) -> None:
    # One FlowFile of the poll has an exponent: its column is text; the others' is a number.
    runner = make_runner("ConvertRecord", writer_type="JsonRecordSetWriter")
    for n in range(1, 9):
        runner.enqueue(f"id,p\n{n},{'1e3' if n == 4 else n + 0.5}\n")
    runner.run()
    outputs = [f.text() for f in runner.get_flowfiles_for_relationship("success")]
    assert outputs == [
        '[{"id":4,"p":"1e3"}]' if n == 4 else f'[{{"id":{n},"p":{n + 0.5}}}]' for n in range(1, 9)
    ]


def test_only_true_and_false_are_booleans(make_runner: RunnerFactory) -> None:
    # pyarrow also takes 1 and 0 for Booleans; NiFi only true and false, in any case. A
    # column of both (a CHOICE in NiFi) is text here, each value kept as written.
    content = "id,flag,mixed\n1,TRUE,1\n2,fAlSe,true\n3,true,0\n"
    assert converted(make_runner, content, writer_type="JsonRecordSetWriter") == (
        '[{"id":1,"flag":true,"mixed":"1"},{"id":2,"flag":false,"mixed":"true"},'
        '{"id":3,"flag":true,"mixed":"0"}]'
    )


def test_a_large_csv_with_such_a_number_after_its_first_block_makes_its_column_text(
    make_runner: RunnerFactory,
) -> None:
    # Over 1 MB the content is read twice, as NiFi reads it: a 1e5 deep in a column of
    # numbers makes the whole column text, each value passed through as written.
    rows = [f"{i},{i}.5" for i in range(120_000)]
    rows[-2] = "119998,1e5"
    content = "id,p\n" + "\n".join(rows) + "\n"
    assert converted(make_runner, content) == content
    as_json = converted(make_runner, content, writer_type="JsonRecordSetWriter")
    assert as_json.startswith('[{"id":0,"p":"0.5"},')
    assert '{"id":119998,"p":"1e5"}' in as_json


def test_a_large_csv_of_numbers_streams_unchanged(make_runner: RunnerFactory) -> None:
    rows = [f"{i},{i}.5,{-i}.25" for i in range(120_000)]
    content = "id,p,q\n" + "\n".join(rows) + "\n"
    assert converted(make_runner, content) == content


def test_a_large_csv_with_two_columns_of_one_name_streams_unchanged(
    make_runner: RunnerFactory,
) -> None:
    # Columns of the same name are typed by position, each value kept as written.
    rows = [f"{i}.5,{i}.25,x" for i in range(120_000)]
    content = "a,a,b\n" + "\n".join(rows) + "\n"
    assert converted(make_runner, content) == content


def test_a_large_csv_with_two_columns_of_one_name_and_two_kinds_reads_both_as_text(
    make_runner: RunnerFactory,
) -> None:
    # A type is given to a column by its name: two kinds under one name make both text.
    rows = [f"{i},w{i},{i}.5" for i in range(120_000)]
    content = "a,a,b\n" + "\n".join(rows) + "\n"
    assert converted(make_runner, content) == content
    as_json = converted(make_runner, content, writer_type="JsonRecordSetWriter")
    assert as_json.startswith('[{"a":"0","a":"w0","b":0.5},')


def test_two_columns_of_one_name_with_such_a_number_are_read(make_runner: RunnerFactory) -> None:
    assert converted(make_runner, "a,a,b\n1.5,+2,x\n") == "a,a,b\n1.5,+2,x\n"
