"""MergeRecord merging by key (issue 6), through the TestRunner with CSV in and out."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import processors.merge
import processors.record  # registers the record services
from flowcore.settings import EngineSettings, RecordMergerSettings
from flowcore.testing import TestRunner
from flowcore.testing.mock_flowfile import MockFlowFile

EXAMPLES = "processors.merge.mergers.examples"


def keyed(runner: TestRunner, **properties: str) -> TestRunner:
    runner.set_property("Record Key Field(s)", "id")
    for name, value in properties.items():
        runner.set_property(name.replace("_", " "), value)
    return runner


def merge_all(runner: TestRunner, *contents: str) -> MockFlowFile:
    """Enqueue the contents, run until the bin merges on an empty trigger; the one output."""
    for content in contents:
        runner.enqueue(content)
    runner.run(2)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("original", len(contents))
    return runner.get_flowfiles_for_relationship("merged")[0]


def joins(runner: TestRunner) -> list[str | None]:
    return [e.details for e in runner.get_provenance_events() if e.event_type == "JOIN"]


@pytest.fixture
def custom_runner(tmp_path: Path) -> Iterator[TestRunner]:
    settings = EngineSettings(
        data_dir=tmp_path, record_mergers=RecordMergerSettings(allowed_custom_modules=[EXAMPLES])
    )
    with TestRunner("MergeRecord", settings=settings) as runner:
        runner.add_controller_service("reader", "CSVReader", {"Treat First Line as Header": "true"})
        runner.add_controller_service("writer", "CSVRecordSetWriter", {})
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        yield runner


# -- merge modes ----------------------------------------------------------------------------


def test_commit_time_is_inferred_without_ordering_and_keys_keep_first_arrival_order(
    runner: TestRunner,
) -> None:
    keyed(runner)
    out = merge_all(runner, "id,v\nb,1\na,2\nb,3\n", "id,v\nc,4\na,5\n")
    out.assert_content_equals("id,v\nb,3\na,5\nc,4\n")
    out.assert_attribute_equals("record.count", "3")
    out.assert_attribute_equals("merge.record.count.in", "5")
    out.assert_attribute_equals("merge.record.deletes", "0")
    out.assert_attribute_equals("merge.engine", "local")
    out.assert_attribute_equals("merge.count", "2")
    out.assert_attribute_equals("merge.completion.reason", "Bin is full enough")
    assert joins(runner) == ["Records Merged due to: Bin is full enough"]
    events = [e for e in runner.get_provenance_events() if e.event_type == "JOIN"]
    originals = runner.get_flowfiles_for_relationship("original")
    assert sorted(events[0].parent_uuids) == sorted(o.uuid for o in originals)
    assert events[0].child_uuids == [out.uuid]


def test_event_time_is_inferred_with_ordering_and_ties_go_to_the_later_arrival(
    runner: TestRunner,
) -> None:
    keyed(runner, **{"Ordering Field(s)": "ts"})
    out = merge_all(runner, "id,ts,v\n1,5,a\n1,3,b\n2,1,x\n", "id,ts,v\n1,5,c\n2,1,y\n1,4,d\n")
    out.assert_content_equals("id,ts,v\n1,5,c\n2,1,y\n")


def test_explicit_commit_time_ignores_ordering(runner: TestRunner) -> None:
    keyed(runner, **{"Ordering Field(s)": "ts", "Record Merge Mode": "COMMIT_TIME_ORDERING"})
    out = merge_all(runner, "id,ts,v\n1,5,a\n1,3,b\n")
    out.assert_content_equals("id,ts,v\n1,3,b\n")


def test_several_key_and_ordering_fields(runner: TestRunner) -> None:
    runner.set_property("Record Key Field(s)", "k1, k2")
    runner.set_property("Ordering Field(s)", "major,minor")
    out = merge_all(
        runner,
        "k1,k2,major,minor,v\na,1,1,9,p\na,2,1,1,q\na,1,2,0,r\na,1,1,10,s\na,2,1,1,t\n",
    )
    # (2,0) > (1,10) lexicographically; (a,2) ties on (1,1) -> the later arrival.
    out.assert_content_equals("k1,k2,major,minor,v\na,1,2,0,r\na,2,1,1,t\n")


# -- deletes --------------------------------------------------------------------------------

CDC = "id,ts,op,v\n"


def test_delete_without_ordering_always_wins_and_anything_later_resurrects(
    runner: TestRunner,
) -> None:
    keyed(runner, **{"Ordering Field(s)": "ts", "Operation Field": "op"})
    out = merge_all(
        runner,
        CDC + "1,10,I,a\n2,10,I,b\n3,10,I,c\n",
        CDC + "1,,D,\n2,,D,\n3,,D,\n2,1,I,again\n",
    )
    # 1 and 3: a commit-time delete wins over ts 10; 2: a later insert with ts 1 wins.
    out.assert_content_equals(CDC + "2,1,I,again\n")
    out.assert_attribute_equals("merge.record.deletes", "2")
    out.assert_attribute_equals("record.count", "1")


def test_stale_update_and_stale_delete_are_ignored(runner: TestRunner) -> None:
    keyed(runner, **{"Ordering Field(s)": "ts", "Operation Field": "op"})
    out = merge_all(runner, CDC + "1,10,I,a\n2,10,I,b\n", CDC + "1,5,U,old\n2,9,D,\n")
    out.assert_content_equals(CDC + "1,10,I,a\n2,10,I,b\n")


def test_delete_with_ordering_then_reinsert(runner: TestRunner) -> None:
    keyed(runner, **{"Ordering Field(s)": "ts", "Operation Field": "op"})
    out = merge_all(
        runner,
        CDC + "1,5,I,a\n1,7,D,\n1,6,U,stale\n2,5,I,b\n2,7,D,\n2,7,I,tie\n",
    )
    # Key 1 stays deleted (6 < 7); key 2 comes back (a tie goes to the later arrival).
    out.assert_content_equals(CDC + "2,7,I,tie\n")


def test_update_before_counts_as_a_delete_and_tombstones_keep_it(runner: TestRunner) -> None:
    keyed(
        runner,
        **{
            "Ordering Field(s)": "ts",
            "Operation Field": "op",
            "Delete Handling": "Keep Tombstones",
        },
    )
    out = merge_all(runner, CDC + "1,5,I,a\n2,5,I,b\n1,6,-U,a\n2,3,D,x\n3,1,D,y\n")
    out.assert_content_equals(CDC + "1,6,-U,a\n2,5,I,b\n3,1,D,y\n")
    out.assert_attribute_equals("merge.record.deletes", "2")
    out.assert_attribute_equals("record.count", "3")
    out.assert_attribute_equals("merge.record.count.in", "5")


def test_commit_time_deletes_always_apply(runner: TestRunner) -> None:
    keyed(runner, **{"Record Merge Mode": "COMMIT_TIME_ORDERING", "Operation Field": "op"})
    out = merge_all(runner, CDC + "1,10,I,a\n2,10,I,b\n1,1,D,\n2,1,D,\n2,0,I,back\n")
    out.assert_content_equals(CDC + "2,0,I,back\n")


def test_is_deleted_field(runner: TestRunner) -> None:
    keyed(runner, **{"Ordering Field(s)": "ts", "Is Deleted Field": "_hoodie_is_deleted"})
    out = merge_all(
        runner,
        "id,ts,_hoodie_is_deleted,v\n1,1,false,a\n2,1,false,b\n1,2,true,a\n2,0,true,b\n",
    )
    out.assert_content_equals("id,ts,_hoodie_is_deleted,v\n2,1,false,b\n")


def test_custom_delete_marker_pair(runner: TestRunner) -> None:
    keyed(
        runner,
        **{
            "Ordering Field(s)": "ts",
            "Delete Marker Field": "status",
            "Delete Marker Value": "GONE",
        },
    )
    out = merge_all(runner, "id,ts,status\n1,1,ok\n1,2,GONE\n2,1,ok\n2,2,gone\n")
    out.assert_content_equals("id,ts,status\n2,2,gone\n")


@pytest.mark.parametrize(
    ("given", "missing"),
    [
        ("Delete Marker Field", "Delete Marker Value"),
        ("Delete Marker Value", "Delete Marker Field"),
    ],
)
def test_half_a_delete_marker_pair_is_invalid(runner: TestRunner, given: str, missing: str) -> None:
    keyed(runner, **{given: "x"})
    assert runner.validation_errors() == [
        f"'{missing}' is invalid because <{missing}> must be set when <{given}> is set"
    ]


def test_null_ordering_compares_as_zero_with_numbers(runner: TestRunner) -> None:
    keyed(runner, **{"Ordering Field(s)": "ts"})
    out = merge_all(runner, "id,ts,v\n1,-1,a\n2,1,b\n", "id,ts,v\n1,,c\n2,,d\n")
    out.assert_content_equals("id,ts,v\n1,,c\n2,1,b\n")


def test_null_ordering_sorts_before_strings(runner: TestRunner) -> None:
    keyed(runner, **{"Ordering Field(s)": "ver"})
    out = merge_all(runner, "id,ver,v\n1,x,a\n2,,b\n", "id,ver,v\n1,,c\n2,a,d\n")
    # A string beats the default (Hudi would throw a ClassCastException comparing them).
    out.assert_content_equals("id,ver,v\n1,x,a\n2,a,d\n")


def _typed_reader(runner: TestRunner, ts_type: str) -> None:
    schema = {
        "type": "record",
        "name": "r",
        "fields": [
            {"name": "id", "type": "string"},
            {"name": "ts", "type": ["null", ts_type]},
            {"name": "op", "type": ["null", "string"]},
        ],
    }
    runner.add_controller_service(
        "typed",
        "CSVReader",
        {
            "Treat First Line as Header": "true",
            "Schema Access Strategy": "Use 'Schema Text' Property",
            "Schema Text": json.dumps(schema),
        },
    )
    runner.set_property("Record Reader", "typed")


@pytest.mark.parametrize(("ts_type", "expected"), [("int", ""), ("long", "1,5,I\n")])
def test_an_int_zero_is_the_default_ordering_but_a_long_zero_is_not(
    runner: TestRunner, ts_type: str, expected: str
) -> None:
    _typed_reader(runner, ts_type)
    keyed(runner, **{"Ordering Field(s)": "ts", "Operation Field": "op"})
    out = merge_all(runner, "id,ts,op\n1,5,I\n1,0,D\n")
    # Java: Integer 0 equals DEFAULT_ORDERING_VALUE (a commit-time delete), Long 0 does not.
    out.assert_content_equals("id,ts,op\n" + expected)


# -- partial updates ------------------------------------------------------------------------

FULL = "id,ts,name,price,tags\n1,10,apple,2.5,fruit\n"


def test_keep_values_javadoc_example_across_schemas(runner: TestRunner) -> None:
    keyed(runner, **{"Ordering Field(s)": "ts", "Partial Update Mode": "KEEP_VALUES"})
    out = merge_all(runner, FULL, "id,ts,price\n1,16,2.75\n")
    out.assert_content_equals("id,ts,name,price,tags\n1,16,apple,2.75,fruit\n")


def test_keep_values_present_null_wins_and_late_record_fills_absent_fields(
    runner: TestRunner,
) -> None:
    keyed(runner, **{"Ordering Field(s)": "ts", "Partial Update Mode": "KEEP_VALUES"})
    out = merge_all(
        runner,
        "id,ts,price\n1,20,3.5\n2,1,1.5\n",
        "id,ts,name,price\n1,10,apple,2.5\n2,2,,1.25\n",
    )
    # Key 1: ts 20 stays the base; its absent name comes from the late record.
    # Key 2: the newer record's present null name wins.
    out.assert_content_equals("id,ts,price,name\n1,20,3.5,apple\n2,2,1.25,\n")


def test_fill_defaults_does_not_take_values_from_the_older_record(runner: TestRunner) -> None:
    keyed(runner, **{"Ordering Field(s)": "ts", "Partial Update Mode": "FILL_DEFAULTS"})
    out = merge_all(runner, FULL, "id,ts,price\n1,16,2.75\n")
    out.assert_content_equals("id,ts,name,price,tags\n1,16,,2.75,\n")


def test_ignore_defaults_takes_null_fields_from_the_older_record(runner: TestRunner) -> None:
    keyed(runner, **{"Ordering Field(s)": "ts", "Partial Update Mode": "IGNORE_DEFAULTS"})
    out = merge_all(runner, FULL, "id,ts,name,price,tags\n1,16,,2.75,juicy\n")
    out.assert_content_equals("id,ts,name,price,tags\n1,16,apple,2.75,juicy\n")


def test_ignore_markers(runner: TestRunner) -> None:
    keyed(
        runner,
        **{
            "Ordering Field(s)": "ts",
            "Partial Update Mode": "IGNORE_MARKERS",
            "Partial Update Marker": "__unavailable",
        },
    )
    out = merge_all(runner, FULL, "id,ts,name,price,tags\n1,16,__unavailable,2.75,\n")
    out.assert_content_equals("id,ts,name,price,tags\n1,16,apple,2.75,\n")


def test_ignore_markers_needs_a_marker(runner: TestRunner) -> None:
    keyed(runner, **{"Partial Update Mode": "IGNORE_MARKERS"})
    assert runner.validation_errors() == [
        "'Partial Update Marker' is invalid because <Partial Update Marker> must be set when "
        "<Partial Update Mode> is IGNORE_MARKERS"
    ]


def test_deletes_bypass_partial_merging(runner: TestRunner) -> None:
    keyed(
        runner,
        **{
            "Ordering Field(s)": "ts",
            "Operation Field": "op",
            "Partial Update Mode": "KEEP_VALUES",
        },
    )
    out = merge_all(
        runner,
        "id,ts,op,name,price\n1,10,I,apple,2.5\n2,10,I,pear,1.5\n",
        "id,ts,op\n1,12,D\n",
        "id,ts,op,price\n1,16,U,2.75\n2,16,U,1.75\n",
    )
    # Key 1 is re-inserted after its delete: nothing comes from before the delete.
    out.assert_content_equals("id,ts,op,name,price\n1,16,U,,2.75\n2,16,U,pear,1.75\n")


# -- CUSTOM ---------------------------------------------------------------------------------


def test_custom_merger_returning_a_delete(custom_runner: TestRunner) -> None:
    keyed(
        custom_runner,
        **{
            "Record Merge Mode": "CUSTOM",
            "Custom Record Merger Class": f"{EXAMPLES}:QuantityMerger",
            "Operation Field": "op",
        },
    )
    out = merge_all(custom_runner, "id,qty,op\na,5,I\nb,1,I\na,-5,U\nb,2,U\n")
    out.assert_content_equals("id,qty,op\nb,3,U\n")
    out.assert_attribute_equals("merge.record.deletes", "1")


def test_custom_merger_delete_kept_as_tombstone_gets_the_marker(
    custom_runner: TestRunner,
) -> None:
    keyed(
        custom_runner,
        **{
            "Record Merge Mode": "CUSTOM",
            "Custom Record Merger Class": f"{EXAMPLES}.QuantityMerger",
            "Operation Field": "op",
            "Delete Handling": "Keep Tombstones",
        },
    )
    out = merge_all(custom_runner, "id,qty,op\na,5,I\nb,1,I\na,-5,U\n")
    out.assert_content_equals("id,qty,op\na,0,D\nb,1,I\n")


def test_custom_merger_sees_deletes_itself(custom_runner: TestRunner) -> None:
    keyed(
        custom_runner,
        **{
            "Record Merge Mode": "CUSTOM",
            "Custom Record Merger Class": f"{EXAMPLES}:KeepFirstMerger",
            "Operation Field": "op",
        },
    )
    out = merge_all(custom_runner, "id,qty,op\na,5,I\na,1,D\n")
    out.assert_content_equals("id,qty,op\na,5,I\n")


def test_custom_merger_module_not_allowed(runner: TestRunner) -> None:
    keyed(
        runner,
        **{
            "Record Merge Mode": "CUSTOM",
            "Custom Record Merger Class": f"{EXAMPLES}:QuantityMerger",
        },
    )
    assert runner.validation_errors() == [
        f"'Custom Record Merger Class' validated against '{EXAMPLES}:QuantityMerger' is "
        f"invalid because module '{EXAMPLES}' is not allowed for custom record mergers; add "
        "it to the setting record_mergers.allowed_custom_modules"
    ]


def test_custom_mode_needs_a_class(runner: TestRunner) -> None:
    keyed(runner, **{"Record Merge Mode": "CUSTOM"})
    assert runner.validation_errors() == [
        "'Custom Record Merger Class' is invalid because <Custom Record Merger Class> must be "
        "set when <Record Merge Mode> is CUSTOM"
    ]


def test_custom_merger_breaking_the_contract_fails_the_bin(
    custom_runner: TestRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    from processors.merge.mergers import examples

    monkeypatch.setattr(examples.KeepFirstMerger, "merge", lambda self, o, n, c: None)
    keyed(
        custom_runner,
        **{
            "Record Merge Mode": "CUSTOM",
            "Custom Record Merger Class": f"{EXAMPLES}:KeepFirstMerger",
        },
    )
    custom_runner.enqueue("id,v\na,1\n")
    custom_runner.enqueue("id,v\na,2\n")
    custom_runner.run(2)
    custom_runner.assert_transfer_count("merged", 0)
    failed = custom_runner.get_flowfiles_for_relationship("failure")
    assert len(failed) == 2
    reason = failed[0].attributes["merge.failure.reason"]
    assert reason.startswith("MergerContractError: KeepFirstMerger returned None for key 'a'")
    assert joins(custom_runner) == []


# -- bins, schemas, failures ------------------------------------------------------------------


def test_type_conflict_fails_only_that_flowfile(runner: TestRunner) -> None:
    keyed(runner)
    runner.enqueue("id,v\n1,2\n")
    bad = runner.enqueue("id,v\n1,x\n")
    runner.enqueue("id,w\n2,y\n")
    runner.run(2)
    failed = runner.get_flowfiles_for_relationship("failure")
    assert [f.uuid for f in failed] == [bad.uuid]
    failed[0].assert_attribute_equals(
        "merge.failure.reason", "field 'v' has type string here but int64 in the bin"
    )
    out = runner.get_flowfiles_for_relationship("merged")
    assert len(out) == 1
    out[0].assert_content_equals("id,v,w\n1,2,\n2,,y\n")


@pytest.mark.parametrize("engine", ["local", "spark"])
def test_records_the_engine_or_the_writer_cannot_take_fail_the_bin_with_the_reason(
    engine: str,
) -> None:
    # JSON in, CSV out with a writer schema whose "v" is a long: a nested record cannot
    # be one. With a struct as the Operation Field the merge itself fails, before Spark
    # would be started.
    with TestRunner("MergeRecord") as runner:
        runner.add_controller_service("reader", "JsonTreeReader", {})
        schema = (
            '{"type":"record","name":"r","fields":[{"name":"id","type":"long"},'
            '{"name":"v","type":"long"}]}'
        )
        runner.add_controller_service(
            "writer",
            "CSVRecordSetWriter",
            {"Schema Access Strategy": "schema-text-property", "Schema Text": schema},
        )
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        keyed(runner, Merge_Engine=engine)
        runner.enqueue('{"id": 1, "v": {"x": 1}}\n')
        runner.enqueue('{"id": 2, "v": {"x": 2}}\n')
        runner.run(2)
        runner.assert_transfer_count("merged", 0)
        reasons = {
            f.attributes["merge.failure.reason"]
            for f in runner.get_flowfiles_for_relationship("failure")
        }
        assert len(runner.get_flowfiles_for_relationship("failure")) == 2
        (reason,) = reasons
        if engine == "local":
            assert reason.startswith("cannot write the merged records: ")
        runner.assert_queue_empty()

        runner.clear_transfer_state()
        runner.set_property("Operation Field", "v")
        runner.enqueue('{"id": 3, "v": {"x": 1}}\n')
        runner.run(2)
        (failed,) = runner.get_flowfiles_for_relationship("failure")
        assert failed.attributes["merge.failure.reason"]
        runner.assert_queue_empty()


def test_null_or_missing_key_fails_the_flowfile(runner: TestRunner) -> None:
    keyed(runner)
    runner.enqueue("id,v\n1,2\n,3\n")
    runner.enqueue("name,v\n1,2\n")
    runner.run(2)
    reasons = [
        f.attributes["merge.failure.reason"]
        for f in runner.get_flowfiles_for_relationship("failure")
    ]
    assert reasons == [
        "record key field 'id' is null in record 1",
        "record key field 'id' is not in the schema",
    ]
    runner.assert_transfer_count("merged", 0)


def test_record_thresholds_count_input_records(runner: TestRunner) -> None:
    keyed(runner, **{"Maximum Number of Records": "3"})
    runner.enqueue("id,v\n1,a\n1,b\n")
    runner.enqueue("id,v\n1,c\n1,d\n")
    runner.run(1, stop_on_finish=False)
    out = runner.get_flowfiles_for_relationship("merged")
    assert len(out) == 1
    out[0].assert_content_equals("id,v\n1,d\n")
    out[0].assert_attribute_equals("merge.completion.reason", "Bin is full")
    out[0].assert_attribute_equals("merge.record.count.in", "4")
    assert joins(runner) == ["Records Merged due to: Bin is full"]


def test_bins_by_correlation_attribute_only(runner: TestRunner) -> None:
    keyed(runner, **{"Correlation Attribute Name": "table"})
    runner.enqueue("id,v\n1,a\n", {"table": "t1"})
    runner.enqueue("id,w\n1,b\n", {"table": "t2"})
    runner.enqueue("id,x\n1,c\n", {"table": "t1"})
    runner.run(2)
    out = runner.get_flowfiles_for_relationship("merged")
    contents = sorted(o.content.decode() for o in out)
    assert contents == ["id,v,x\n1,,c\n", "id,w\n1,b\n"]


def test_keyed_properties_need_a_key(runner: TestRunner) -> None:
    runner.set_property("Ordering Field(s)", "ts")
    runner.set_property("Partial Update Mode", "KEEP_VALUES")
    assert runner.validation_errors() == [
        "'Ordering Field(s)' is invalid because <Ordering Field(s)> requires "
        "<Record Key Field(s)> to be set",
        "'Partial Update Mode' is invalid because <Partial Update Mode> requires "
        "<Record Key Field(s)> to be set",
    ]
    runner.remove_property("Ordering Field(s)")
    runner.set_property("Partial Update Mode", "NONE")
    runner.set_property("Merge Engine", "auto")  # the defaults themselves are fine
    runner.assert_valid()
    runner.set_property("Delete Handling", "Keep Tombstones")
    runner.set_property("Merge Engine", "spark")
    assert runner.validation_errors() == [
        "'Delete Handling' is invalid because <Delete Handling> requires "
        "<Record Key Field(s)> to be set",
        "'Merge Engine' is invalid because <Merge Engine> requires <Record Key Field(s)> to be set",
    ]


def test_without_a_key_records_are_concatenated_as_before(runner: TestRunner) -> None:
    out = merge_all(runner, "id,v\n1,a\n", "id,v\n1,b\n")
    out.assert_content_equals("id,v\n1,a\n1,b\n")
    out.assert_attribute_not_exists("merge.engine")
    out.assert_attribute_not_exists("merge.record.count.in")


def test_everything_deleted_writes_an_empty_record_set(runner: TestRunner) -> None:
    keyed(runner, **{"Operation Field": "op"})
    out = merge_all(runner, "id,op\n1,I\n1,D\n")
    out.assert_content_equals("id,op\n")
    out.assert_attribute_equals("record.count", "0")
    out.assert_attribute_equals("merge.record.deletes", "1")


def test_imports_register_processor() -> None:
    assert processors.merge.MergeRecord.__name__ == "MergeRecord"


def test_a_bad_writer_schema_from_attributes_fails_the_keyed_bin_with_its_reason(
    runner: TestRunner,
) -> None:
    """The writer's Schema Text comes from ``${avro.schema}``: a bad one sends the bin to
    failure with the reason, instead of rolling it back to fail again on every trigger."""
    runner.add_controller_service(
        "schema_writer",
        "CSVRecordSetWriter",
        {"Schema Access Strategy": "schema-text-property", "Schema Text": "${avro.schema}"},
    )
    runner.set_property("Record Writer", "schema_writer")
    keyed(runner)
    runner.enqueue("id,v\na,1\n", {"avro.schema": "{not a schema"})
    runner.enqueue("id,v\na,2\n", {"avro.schema": "{not a schema"})
    runner.run(2)
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("failure", 2)
    runner.assert_queue_empty()
    for failed in runner.get_flowfiles_for_relationship("failure"):
        assert "cannot write the merged records" in failed.attributes["merge.failure.reason"]
