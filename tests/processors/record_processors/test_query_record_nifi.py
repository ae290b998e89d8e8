"""NiFi's TestQueryRecord, ported. NiFi's ArrayListRecordReader (Record objects built in
the test) becomes the real JsonTreeReader given the same records as JSON, with their
schema as Avro Schema Text; its ArrayListRecordWriter (records kept in memory) becomes
the JsonRecordSetWriter, one line per object, whose records are compared.
MockRecordParser is the JsonTreeReader with the mock's schema; MockRecordWriter with a
quoted header line is the CSVRecordSetWriter with Quote Mode ALL (its header line is the
result's column names), MockRecordWriter(null) the CSV writer without a header line.

QueryRecord runs SQL on DuckDB: NiFi's RPATH functions are not available
(docs/processors/query_record.md), so the tests that call them run the same query
written with DuckDB's access to nested values (``person.name``, ``list_filter``,
``map['key']``), checking the same records come out."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping
from typing import Any

import fastavro

from flowcore.testing import MockFlowFile, TestRunner
from tests.processors.record_processors.nifi_ports import (
    avro_schema,
    json_reader,
    json_records,
    migrated,
)

RunnerFactory = Callable[..., TestRunner]
REL_NAME = "success"
ROUTE = "QueryRecord.Route"
QUOTED = {"Quote Mode": "ALL"}
NO_HEADER = {"Include Header Line": "false"}

NAMED_PERSON = {
    "type": "record",
    "name": "namedPerson",
    "fields": [{"name": "name", "type": "string"}],
}
PERSON = {
    "type": "record",
    "name": "person",
    "fields": [
        {"name": "name", "type": "string"},
        {"name": "age", "type": "int"},
        {"name": "favoriteColors", "type": {"type": "array", "items": "string"}},
        {"name": "dob", "type": {"type": "int", "logicalType": "date"}},
        {"name": "dobTimestamp", "type": "long"},
        {"name": "joinDate", "type": "string"},
        {"name": "weight", "type": "double"},
        {"name": "height", "type": "double"},
        {"name": "mother", "type": NAMED_PERSON},
    ],
}
HIERARCHICAL = json.dumps(
    {
        "type": "record",
        "name": "hierarchical",
        "fields": [
            {"name": "person", "type": PERSON},
            {"name": "favoriteThings", "type": {"type": "map", "values": "string"}},
        ],
    }
)
ADDRESS = {
    "type": "record",
    "name": "address",
    "fields": [
        {"name": "streetNumber", "type": "int"},
        {"name": "street", "type": "string"},
        {"name": "apartment", "type": ["null", "int"]},
        {"name": "city", "type": "string"},
        {"name": "state", "type": "string"},
        {"name": "country", "type": "string"},
        {"name": "label", "type": "string"},
    ],
}
HIERARCHICAL_ARRAY = json.dumps(
    {
        "type": "record",
        "name": "personWithAddresses",
        "fields": [
            {"name": "name", "type": "string"},
            {"name": "age", "type": "int"},
            {"name": "title", "type": "string"},
            {
                "name": "jobLevel",
                "type": {"type": "enum", "name": "JobLevel", "symbols": ["IC1", "IC2", "IC3"]},
            },
            {"name": "height", "type": "double"},
            {"name": "addresses", "type": {"type": "array", "items": ADDRESS}},
        ],
    }
)
TAGGED = json.dumps(
    {
        "type": "record",
        "name": "tagged",
        "fields": [
            {"name": "id", "type": "string"},
            {"name": "tags", "type": {"type": "array", "items": "string"}},
        ],
    }
)


def hierarchical_record() -> dict[str, Any]:
    """NiFi's createHierarchicalRecord, as JSON."""
    return {
        "person": {
            "name": "John Doe",
            "age": 30,
            "favoriteColors": ["red", "green"],
            "dob": "2018-02-04",
            "dobTimestamp": 1517739655000,
            "joinDate": "2018-02-04",
            "weight": 180.8,
            "height": 60.5,
            "mother": {"name": "Jane Doe"},
        },
        "favoriteThings": {
            "sport": "basketball",
            "color": "green",
            "roses": "raindrops",
            "kittens": "whiskers",
        },
    }


def hierarchical_array_record() -> dict[str, Any]:
    """NiFi's createHierarchicalArrayRecord, as JSON (home address first)."""
    work = {
        "streetNumber": 4820,
        "street": "My Street",
        "apartment": None,
        "city": "New York City",
        "state": "NY",
        "country": "USA",
        "label": "work",
    }
    home = {
        "streetNumber": 327,
        "street": "Small Street",
        "apartment": 302,
        "city": "Los Angeles",
        "state": "CA",
        "country": "USA",
        "label": "home",
    }
    return {
        "name": "John Doe",
        "age": 30,
        "height": 60.5,
        "title": "Software Engineer",
        "jobLevel": "IC2",
        "addresses": [home, work],
    }


def tagged_record(id_: str, *tags: str) -> dict[str, Any]:
    return {"id": id_, "tags": list(tags)}


def records_runner(make_runner: RunnerFactory, schema: str, sql: str) -> TestRunner:
    """ArrayListRecordReader/Writer: records of ``schema`` as JSON in, JSON lines out."""
    runner = make_runner(
        "QueryRecord",
        reader_type="JsonTreeReader",
        reader=json_reader(schema),
        writer_type="JsonRecordSetWriter",
        writer={"Output Grouping": "One Line Per Object"},
    )
    runner.set_property(REL_NAME, sql)
    return runner


def written(runner: TestRunner) -> list[dict[str, Any]]:
    """The records written to ``success`` (one FlowFile, routed as NiFi routes it)."""
    runner.assert_transfer_count(REL_NAME, 1)
    out = runner.get_flowfiles_for_relationship(REL_NAME)[0]
    out.assert_attribute_equals(ROUTE, REL_NAME)
    return [json.loads(line) for line in out.text().splitlines() if line]


def run_records(
    make_runner: RunnerFactory, schema: str, sql: str, records: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    runner = records_runner(make_runner, schema, sql)
    runner.enqueue(json.dumps(records))
    runner.run()
    return written(runner)


def mock_runner(
    make_runner: RunnerFactory,
    fields: list[tuple[str, Any]],
    rows: list[tuple[Any, ...]],
    queries: Mapping[str, str],
    writer: Mapping[str, str] = QUOTED,
) -> TestRunner:
    """MockRecordParser (``fields``, ``rows``) and a MockRecordWriter (``writer``), the
    rows enqueued."""
    runner = make_runner(
        "QueryRecord",
        reader_type="JsonTreeReader",
        reader=json_reader(avro_schema(fields)),
        writer=dict(writer),
    )
    for name, sql in queries.items():
        runner.set_property(name, sql)
    runner.enqueue(json_records([name for name, _ in fields], *rows))
    return runner


def only(runner: TestRunner, relationship: str) -> MockFlowFile:
    runner.assert_transfer_count(relationship, 1)
    out = runner.get_flowfiles_for_relationship(relationship)[0]
    out.assert_attribute_equals(ROUTE, relationship)
    return out


def test_nifi_record_path_functions(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testRecordPathFunctions."""
    sql = (
        "SELECT person.name AS name, person.age AS age, person.name AS nameObj,"
        " person.age AS ageObj, person.favoriteColors AS colors,"
        " [person.name, person.mother.name] AS names, person.dob AS dob,"
        " person.dobTimestamp AS dobTimestamp, CAST(person.joinDate AS DATE) AS joinTime,"
        " person.weight AS weight FROM FLOWFILE"
    )
    runner = records_runner(make_runner, HIERARCHICAL, sql)
    runner.enqueue(json.dumps([hierarchical_record()]))
    runner.run()
    output = written(runner)
    only(runner, "original")
    assert len(output) == 1
    record = output[0]
    assert record["name"] == "John Doe"
    assert record["nameObj"] == "John Doe"
    assert record["age"] == 30
    assert record["ageObj"] == 30
    assert record["colors"] == ["red", "green"]
    assert record["names"] == ["John Doe", "Jane Doe"]
    # a date as the JSON writer writes it without a Date Format: epoch milliseconds
    assert record["joinTime"] == 1517702400000  # 2018-02-04
    assert record["weight"] == 180.8


def test_nifi_record_path_in_aggregate(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testRecordPathInAggregate."""
    records = []
    for i in range(100):
        record = hierarchical_record()
        record["person"]["name"] = f"Person {i}"
        record["person"]["age"] = i
        records.append(record)
    sql = (
        "SELECT person.name AS name FROM FLOWFILE"
        " WHERE person.age > (SELECT AVG(person.age) FROM FLOWFILE)"
    )
    output = run_records(make_runner, HIERARCHICAL, sql, records)
    assert [r["name"] for r in output] == [f"Person {i}" for i in range(50, 100)]


def test_nifi_record_path_with_array(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testRecordPathWithArray."""
    sql = (
        "SELECT title, name FROM FLOWFILE"
        " WHERE list_filter(addresses, lambda a: a.label = 'home')[1].state <>"
        " list_filter(addresses, lambda a: a.label = 'work')[1].state"
    )
    output = run_records(make_runner, HIERARCHICAL_ARRAY, sql, [hierarchical_array_record()])
    assert output == [{"title": "Software Engineer", "name": "John Doe"}]


def test_nifi_collection_functions_with_array(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testCollectionFunctionsWithArray."""
    sql = "SELECT title, name, jobLevel FROM FLOWFILE WHERE CARDINALITY(addresses) > 1"
    output = run_records(make_runner, HIERARCHICAL_ARRAY, sql, [hierarchical_array_record()])
    assert output == [{"title": "Software Engineer", "name": "John Doe", "jobLevel": "IC2"}]


def test_nifi_collection_functions_without_cast_failure(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testCollectionFunctionsWithoutCastFailure."""
    second = hierarchical_array_record()
    second["height"] = 30
    sql = "SELECT title, name, sum(height) as height_total FROM FLOWFILE GROUP BY title, name"
    output = run_records(
        make_runner, HIERARCHICAL_ARRAY, sql, [hierarchical_array_record(), second]
    )
    # NiFi's height is a CHOICE of double and int, summed by Calcite as a decimal
    # (90.500000000); here the field is a double and so is its sum.
    assert output == [{"title": "Software Engineer", "name": "John Doe", "height_total": 90.5}]


def test_nifi_collection_functions_with_cast_choice(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testCollectionFunctionsWithCastChoice."""
    sql = (
        "SELECT title, name, sum(CAST(height AS DOUBLE)) as height_total_double,"
        " sum(CAST(height AS REAL)) as height_total_float FROM FLOWFILE GROUP BY title, name"
    )
    record = hierarchical_array_record()
    output = run_records(make_runner, HIERARCHICAL_ARRAY, sql, [record, record])
    assert output == [
        {
            "title": "Software Engineer",
            "name": "John Doe",
            "height_total_double": 121.0,
            "height_total_float": 121.0,
        }
    ]


def test_nifi_collection_functions_with_cast_choice_with_ints(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testCollectionFunctionsWithCastChoiceWithInts."""
    sql = (
        "SELECT title, name, sum(CAST(height AS INT)) as height_total_int,"
        " sum(CAST(height AS BIGINT)) as height_total_long FROM FLOWFILE GROUP BY title, name"
    )
    record = hierarchical_array_record()
    record["height"] = 30
    output = run_records(make_runner, HIERARCHICAL_ARRAY, sql, [record, record])
    assert output == [
        {
            "title": "Software Engineer",
            "name": "John Doe",
            "height_total_int": 60,
            "height_total_long": 60,
        }
    ]


def tagged_records() -> list[dict[str, Any]]:
    return [
        tagged_record("1", "a", "d", "g"),
        tagged_record("2", "b", "e"),
        tagged_record("3", "c", "f", "h"),
    ]


def test_nifi_collection_functions_with_where_clause(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testCollectionFunctionsWithWhereClause."""
    sql = (
        "SELECT id, tags FROM FLOWFILE CROSS JOIN UNNEST(FLOWFILE.tags) AS f(tag)"
        " WHERE tag IN ('a','b')"
    )
    output = run_records(make_runner, TAGGED, sql, tagged_records())
    assert output == [{"id": "1", "tags": ["a", "d", "g"]}, {"id": "2", "tags": ["b", "e"]}]


def test_nifi_array_column_with_index(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testArrayColumnWithIndex."""
    sql = 'SELECT id, tags[1] as first, tags[2] as "second", tags[len(tags)] as last FROM FLOWFILE'
    output = run_records(make_runner, TAGGED, sql, tagged_records())
    assert output == [
        {"id": "1", "first": "a", "second": "d", "last": "g"},
        {"id": "2", "first": "b", "second": "e", "last": "e"},
        {"id": "3", "first": "c", "second": "f", "last": "h"},
    ]


def ny_record() -> dict[str, Any]:
    record = hierarchical_array_record()
    for address in record["addresses"]:
        address["state"] = "NY"
    return record


def test_nifi_compare_results_of_two_record_paths_against_array(
    make_runner: RunnerFactory,
) -> None:
    """NiFi TestQueryRecord.testCompareResultsOfTwoRecordPathsAgainstArray."""
    sql = (
        "SELECT title, name FROM FLOWFILE"
        " WHERE list_filter(addresses, lambda a: a.label = 'home')[1].state ="
        " list_filter(addresses, lambda a: a.label = 'work')[1].state"
    )
    output = run_records(make_runner, HIERARCHICAL_ARRAY, sql, [ny_record()])
    assert output == [{"title": "Software Engineer", "name": "John Doe"}]


def test_nifi_select_order_respected(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testSelectOrderRespected."""
    names = ["ArticleCode", "ProductCode", "ArticleName", "ProductName", "Country"]
    schema = avro_schema([(name, "string") for name in names])
    sql = "SELECT ArticleCode, ArticleName, ProductCode, ProductName, Country FROM FLOWFILE"
    runner = records_runner(make_runner, schema, sql)
    runner.enqueue(json_records(names, ("12345", "10101", "Credit Card", "Porduct Credit", "RO")))
    runner.run()
    output = written(runner)
    assert len(output) == 1
    assert list(output[0].items()) == [
        ("ArticleCode", "12345"),
        ("ArticleName", "Credit Card"),
        ("ProductCode", "10101"),
        ("ProductName", "Porduct Credit"),
        ("Country", "RO"),
    ]


def test_nifi_union_all_with_projection(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testUnionAllWithProjection."""
    fields: list[tuple[str, Any]] = [
        ("employeeId", "string"),
        ("email", "string"),
        ("englishTrainingTime", "int"),
        ("englishLastOverallProficiencyLevel", "string"),
        ("frenchTrainingTime", "int"),
        ("frenchLastOverallProficiencyLevel", "string"),
    ]
    sql = """
        (
          SELECT employeeId,
                 email,
                 'en' AS lovCode,
                 CAST(englishTrainingTime AS INTEGER) AS timeSpent,
                 englishLastOverallProficiencyLevel AS proficiencyLevel
          FROM FLOWFILE
          WHERE CAST(englishTrainingTime AS INTEGER) <> 0
        ) UNION ALL (
          SELECT employeeId,
                 email,
                 'fr' AS lovCode,
                 CAST(frenchTrainingTime AS INTEGER) AS timeSpent,
                 frenchLastOverallProficiencyLevel AS proficiencyLevel
          FROM FLOWFILE
          WHERE CAST(frenchTrainingTime AS INTEGER) <> 0
        )
        """
    runner = records_runner(make_runner, avro_schema(fields), sql)
    row = ("1234", "xxx.yyyy@zzzz.com", 114828, "B2.1", 406, None)
    runner.enqueue(json_records([name for name, _ in fields], row))
    runner.run()
    output = written(runner)
    assert len(output) == 2
    by_code = {record["lovCode"]: record for record in output}
    assert by_code["en"] == {
        "employeeId": "1234",
        "email": "xxx.yyyy@zzzz.com",
        "lovCode": "en",
        "timeSpent": 114828,
        "proficiencyLevel": "B2.1",
    }
    assert by_code["fr"] == {
        "employeeId": "1234",
        "email": "xxx.yyyy@zzzz.com",
        "lovCode": "fr",
        "timeSpent": 406,
        "proficiencyLevel": None,
    }


def test_nifi_record_path_with_array_and_only_one_element_matching_r_path(
    make_runner: RunnerFactory,
) -> None:
    """NiFi TestQueryRecord.testRecordPathWithArrayAndOnlyOneElementMatchingRPath."""
    sql = (
        "SELECT title, name FROM FLOWFILE"
        " WHERE list_filter(addresses, lambda a: a.state = 'NY')[1].state = 'NY'"
    )
    output = run_records(make_runner, HIERARCHICAL_ARRAY, sql, [hierarchical_array_record()])
    assert output == [{"title": "Software Engineer", "name": "John Doe"}]


def test_nifi_like_with_record_path(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testLikeWithRecordPath."""
    sql = (
        "SELECT title, name FROM FLOWFILE"
        " WHERE list_filter(addresses, lambda a: a.state = 'NY')[1].state LIKE 'N%'"
    )
    output = run_records(make_runner, HIERARCHICAL_ARRAY, sql, [hierarchical_array_record()])
    assert output == [{"title": "Software Engineer", "name": "John Doe"}]


def test_nifi_record_path_with_map(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testRecordPathWithMap."""
    sql = (
        "SELECT favoriteThings['sport'] AS sport, person.name AS nameObj FROM FLOWFILE"
        " WHERE favoriteThings['color'] = 'green'"
    )
    output = run_records(make_runner, HIERARCHICAL, sql, [hierarchical_record()])
    assert output == [{"sport": "basketball", "nameObj": "John Doe"}]


def test_nifi_stream_closed_when_bad_data(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testStreamClosedWhenBadData."""
    runner = make_runner(
        "QueryRecord",
        reader_type="JsonTreeReader",
        reader=json_reader(avro_schema([("name", "string"), ("age", "int")])),
        writer=QUOTED,
    )
    runner.set_property(REL_NAME, "select name, age from FLOWFILE WHERE name <> ''")
    # MockRecordParser.failAfter(0): the first record cannot be read.
    runner.enqueue('[{"name": ')
    runner.run()
    runner.assert_transfer_count("failure", 1)


NAME_AGE: list[tuple[str, Any]] = [("name", "string"), ("age", "int")]


def test_nifi_simple(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testSimple."""
    runner = mock_runner(
        make_runner,
        NAME_AGE,
        [("Tom", 49)],
        {REL_NAME: "select name, age from FLOWFILE WHERE name <> ''"},
    )
    runner.run(2)
    only(runner, REL_NAME).assert_content_equals('"name","age"\n"Tom","49"\n')


def test_nifi_nullable(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testNullable."""
    rows = [("Tom", 49), ("Alice", None), (None, 36)]
    runner = mock_runner(make_runner, NAME_AGE, rows, {REL_NAME: "select name, age from FLOWFILE"})
    runner.run(2)
    only(runner, REL_NAME).assert_content_equals('"name","age"\n"Tom","49"\n"Alice",\n,"36"\n')


def test_nifi_parse_failure(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testParseFailure."""
    runner = mock_runner(
        make_runner,
        NAME_AGE,
        [("Tom", 49)],
        {REL_NAME: "select name, age from FLOWFILE WHERE name <> ''"},
    )
    runner.run(2)
    only(runner, REL_NAME).assert_content_equals('"name","age"\n"Tom","49"\n')


def test_nifi_no_records_input(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testNoRecordsInput."""
    runner = make_runner(
        "QueryRecord",
        reader={"Schema Access Strategy": "infer-schema"},
        writer=QUOTED,
    )
    runner.set_property(REL_NAME, "select name from FLOWFILE WHERE age > 23")
    runner.set_property("Include Zero Record FlowFiles", "true")
    runner.enqueue("name,age\n")
    runner.run()
    # MockRecordWriter writes its header line for an empty result; the CSV writer writes
    # the result's column names.
    only(runner, REL_NAME).assert_content_equals('"name"\n')


def test_nifi_transform_calc(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testTransformCalc."""
    fields: list[tuple[str, Any]] = [
        ("ID", "int"),
        ("AMOUNT1", "float"),
        ("AMOUNT2", "float"),
        ("AMOUNT3", "float"),
    ]
    rows = [
        (8, 10.05, 15.45, 89.99),
        (100, 20.25, 25.25, 45.25),
        (105, 20.05, 25.05, 45.05),
        (200, 34.05, 25.05, 75.05),
    ]
    runner = mock_runner(
        make_runner,
        fields,
        rows,
        {REL_NAME: "select ID, AMOUNT1+AMOUNT2+AMOUNT3 as TOTAL from FLOWFILE where ID=100"},
    )
    runner.run()
    only(runner, REL_NAME).assert_content_equals('"ID","TOTAL"\n"100","90.75"\n')


def test_nifi_handling_with_invalid_schema(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testHandlingWithInvalidSchema."""
    fields: list[tuple[str, Any]] = [
        ("name", "string"),
        ("favorite_color", "string"),
        ("address", "string"),
    ]
    runner = mock_runner(
        make_runner,
        fields,
        [("Tom", "blue", None), ("Jerry", "red", None)],
        {
            "rel1": "select * from FLOWFILE where address IS NOT NULL",
            "rel2": "select name, CAST(favorite_color AS DOUBLE) AS num from FLOWFILE",
            "rel3": "select * from FLOWFILE where address IS NOT NULL",
        },
    )
    runner.set_property("Include Zero Record FlowFiles", "false")
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    runner.get_flowfiles_for_relationship("failure")[0].assert_attribute_equals(ROUTE, "failure")


def test_nifi_aggregate_function(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testAggregateFunction."""
    runner = mock_runner(
        make_runner,
        [("name", "string"), ("points", "int")],
        [("Tom", 1), ("Jerry", 2), ("Tom", 99)],
        {
            REL_NAME: "select name, sum(points) as points from FLOWFILE GROUP BY name"
            " ORDER BY points DESC"
        },
    )
    runner.run()
    only(runner, REL_NAME).assert_content_equals('"name","points"\n"Tom","100"\n"Jerry","2"\n')


def test_nifi_null_value_in_single_field(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testNullValueInSingleField."""
    runner = mock_runner(
        make_runner,
        [("name", "string"), ("points", "int")],
        [("Tom", 1), ("Jerry", None), ("Tom", None), ("Jerry", 3)],
        {
            REL_NAME: "select points from FLOWFILE",
            "count": "select count(*) as c from flowfile where points is null",
        },
        NO_HEADER,
    )
    runner.run()
    only(runner, REL_NAME).assert_content_equals("1\n\n\n3\n")
    only(runner, "count").assert_content_equals("2\n")


def test_nifi_column_names(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testColumnNames."""
    fields: list[tuple[str, Any]] = [("name", "string"), ("points", "int"), ("greeting", "string")]
    runner = records_runner(
        make_runner, avro_schema(fields), "select *, greeting AS FAV_GREETING from FLOWFILE"
    )
    rows = [("Tom", 1, "Hello"), ("Jerry", 2, "Hi"), ("Tom", 99, "Howdy")]
    runner.enqueue(json_records([name for name, _ in fields], *rows))
    runner.run()
    # NiFi's test writer checks the result set's column names.
    assert [list(record) for record in written(runner)] == [
        ["name", "points", "greeting", "FAV_GREETING"]
    ] * 3


def test_nifi_returns_no_result_with_array_column(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testReturnsNoResultWithArrayColumn."""
    runner = make_runner(
        "QueryRecord",
        reader_type="JsonTreeReader",
        reader={"Schema Access Strategy": "infer-schema"},
        writer_type="JsonRecordSetWriter",
    )
    runner.set_property(REL_NAME, "SELECT * from FLOWFILE WHERE status = 'failure'")
    runner.set_property("Include Zero Record FlowFiles", "true")
    runner.enqueue('{"status": "starting","myArray": [{"foo": "foo"}]}')
    runner.run()
    only(runner, REL_NAME).assert_content_equals("[]")


def test_nifi_migrate_properties() -> None:
    """NiFi TestQueryRecord.testMigrateProperties."""
    renamed = {
        "record-reader": "Record Reader",
        "record-writer": "Record Writer",
        "include-zero-record-flowfiles": "Include Zero Record FlowFiles",
        "dbf-default-precision": "Default Decimal Precision",
        "dbf-default-scale": "Default Decimal Scale",
    }
    for old, new in renamed.items():
        assert migrated("QueryRecord", old) == new


def test_nifi_avro_union_fixed_sizes_uses_matching_fixed_size(make_runner: RunnerFactory) -> None:
    """NiFi TestQueryRecord.testAvroUnionFixedSizesUsesMatchingFixedSize."""
    schema = {
        "type": "record",
        "name": "Foo",
        "fields": [
            {
                "name": "bar",
                "type": [
                    {"type": "fixed", "name": "Bytes4", "size": 4},
                    {"type": "fixed", "name": "Bytes8", "size": 8},
                ],
            }
        ],
    }
    content = io.BytesIO()
    fastavro.writer(content, fastavro.parse_schema(schema), [{"bar": ("Bytes8", bytes(range(8)))}])
    text = json.dumps(schema)
    runner = make_runner(
        "QueryRecord",
        reader_type="AvroReader",
        reader={"Schema Access Strategy": "schema-text-property", "Schema Text": text},
        writer_type="AvroRecordSetWriter",
        writer={"Schema Access Strategy": "schema-text-property", "Schema Text": text},
    )
    runner.set_property(REL_NAME, "SELECT * FROM FLOWFILE")
    runner.enqueue(content.getvalue())
    runner.run()
    runner.assert_transfer_count("failure", 0)
    out = runner.get_flowfiles_for_relationship(REL_NAME)
    assert len(out) == 1
    (record,) = list(fastavro.reader(io.BytesIO(out[0].content)))
    assert record["bar"] == bytes(range(8))
