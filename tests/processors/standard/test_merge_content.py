"""MergeContent: ported from NiFi's TestMergeContent (bin packing, defragment, formats)."""

from __future__ import annotations

import io
import re
import tarfile
import zipfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fastavro
import pytest

from flowcore.errors import ContentCorruptedError
from flowcore.model import ProvenanceEventType
from flowcore.session.content_errors import CONTENT_ERROR_REASON
from flowcore.testing import TestRunner
from processors.standard.merge_content import package_v3_header, unpackage_v3

RunnerFactory = Callable[..., TestRunner]


def _merge(make_runner: RunnerFactory, **properties: str) -> TestRunner:
    return make_runner("MergeContent", properties={"Max Bin Age": "1 sec", **properties})


def test_simple_binary_concat(make_runner: RunnerFactory) -> None:
    runner = _merge(make_runner)
    for text in ("Hello", ", ", "World!"):
        runner.enqueue(text, {"mime.type": "application/plain-text"})
    runner.run(2)
    runner.assert_queue_empty()
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("original", 3)
    merged = runner.get_flowfiles_for_relationship("merged")[0]
    merged.assert_content_equals("Hello, World!")
    merged.assert_attribute_equals("mime.type", "application/plain-text")
    merged.assert_attribute_equals("merge.count", "3")
    merged.assert_attribute_equals("merge.reason", "MIN_THRESHOLDS_REACHED")
    merged.assert_attribute_exists("merge.bin.age")
    for original in runner.get_flowfiles_for_relationship("original"):
        original.assert_attribute_equals("merge.uuid", merged.uuid)


def test_mime_types_that_differ_give_octet_stream(make_runner: RunnerFactory) -> None:
    runner = _merge(make_runner)
    runner.enqueue("a", {"mime.type": "text/plain"})
    runner.enqueue("b", {"mime.type": "text/csv"})
    runner.run(2)
    merged = runner.get_flowfiles_for_relationship("merged")[0]
    merged.assert_attribute_equals("mime.type", "application/octet-stream")


def test_text_delimiters(make_runner: RunnerFactory) -> None:
    runner = _merge(
        make_runner,
        **{"Delimiter Strategy": "Text", "Header": "@", "Demarcator": "#", "Footer": "$"},
    )
    for text in ("Hello", ", ", "World!"):
        runner.enqueue(text)
    runner.run(2)
    runner.get_flowfiles_for_relationship("merged")[0].assert_content_equals("@Hello#, #World!$")


def test_filename_delimiters(make_runner: RunnerFactory, tmp_path: Path) -> None:
    for name, text in (("header", "H:"), ("demarcator", "|"), ("footer", ":F")):
        (tmp_path / name).write_text(text)
    runner = _merge(
        make_runner,
        **{
            "Delimiter Strategy": "Filename",
            "Header": str(tmp_path / "header"),
            "Demarcator": str(tmp_path / "demarcator"),
            "Footer": str(tmp_path / "footer"),
        },
    )
    runner.enqueue("a")
    runner.enqueue("b")
    runner.run(2)
    runner.get_flowfiles_for_relationship("merged")[0].assert_content_equals("H:a|b:F")


def test_missing_delimiter_file_is_invalid(make_runner: RunnerFactory, tmp_path: Path) -> None:
    runner = _merge(
        make_runner, **{"Delimiter Strategy": "Filename", "Header": str(tmp_path / "none")}
    )
    runner.assert_not_valid()


def test_text_delimiters_evaluate_el_on_first(make_runner: RunnerFactory) -> None:
    runner = _merge(make_runner, **{"Delimiter Strategy": "Text", "Demarcator": "${sep}"})
    runner.enqueue("a", {"sep": ";"})
    runner.enqueue("b", {"sep": ","})
    runner.run(2)
    runner.get_flowfiles_for_relationship("merged")[0].assert_content_equals("a;b")


def test_max_entries_makes_several_bundles(make_runner: RunnerFactory) -> None:
    runner = _merge(make_runner, **{"Maximum Number of Entries": "2"})
    for text in "abcde":
        runner.enqueue(text)
    runner.run(2)
    merged = runner.get_flowfiles_for_relationship("merged")
    assert [m.content for m in merged] == [b"ab", b"cd", b"e"]
    assert [m.get_attribute("merge.reason") for m in merged] == [
        "MAX_ENTRIES_THRESHOLD_REACHED",
        "MAX_ENTRIES_THRESHOLD_REACHED",
        "MIN_THRESHOLDS_REACHED",
    ]


def test_max_group_size(make_runner: RunnerFactory) -> None:
    runner = _merge(make_runner, **{"Maximum Group Size": "4 B"})
    for text in ("aa", "bb", "cc"):
        runner.enqueue(text)
    runner.run(2)
    merged = runner.get_flowfiles_for_relationship("merged")
    assert [m.content for m in merged] == [b"aabb", b"cc"]
    assert merged[0].get_attribute("merge.reason") == "MAX_BYTES_THRESHOLD_REACHED"


def test_minimum_entries_waits_for_max_bin_age(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "MergeContent", properties={"Minimum Number of Entries": "5", "Max Bin Age": "5 sec"}
    )
    runner.enqueue("a")
    runner.enqueue("b")
    runner.run(1, stop_on_finish=False)
    runner.assert_transfer_count("merged", 0)
    assert runner.processor.next_wake_ms(runner.clock.now_ms()) == runner.clock.now_ms() + 5001
    runner.advance_time(5)
    runner.run(1, stop_on_finish=False, initialize=False)
    runner.assert_transfer_count("merged", 0)  # not older than 5 sec yet
    runner.advance_time(0.001)
    runner.run(1, initialize=False)
    merged = runner.get_flowfiles_for_relationship("merged")
    assert len(merged) == 1
    merged[0].assert_content_equals("ab")
    merged[0].assert_attribute_equals("merge.reason", "TIMEOUT")
    merged[0].assert_attribute_equals("merge.bin.age", "5001")


def test_minimum_group_size_not_met_keeps_bin(make_runner: RunnerFactory) -> None:
    runner = make_runner("MergeContent", properties={"Minimum Group Size": "1 KB"})
    runner.enqueue("small")
    runner.run(2, stop_on_finish=False)
    runner.assert_transfer_count("merged", 0)
    runner.stop()
    assert runner.queue_size == 1  # stopping rolls the bin back to the queue


def test_correlation_attribute(make_runner: RunnerFactory) -> None:
    runner = _merge(make_runner, **{"Correlation Attribute Name": "group"})
    runner.enqueue("a1", {"group": "a"})
    runner.enqueue("b1", {"group": "b"})
    runner.enqueue("a2", {"group": "a"})
    runner.run(2)
    contents = sorted(m.content for m in runner.get_flowfiles_for_relationship("merged"))
    assert contents == [b"a1a2", b"b1"]


def test_maximum_number_of_bins_evicts_oldest(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "MergeContent",
        properties={
            "Correlation Attribute Name": "group",
            "Maximum number of Bins": "1",
            "Minimum Number of Entries": "10",
        },
    )
    runner.enqueue("a", {"group": "a"})
    runner.enqueue("b", {"group": "b"})
    runner.run(1, stop_on_finish=False)
    merged = runner.get_flowfiles_for_relationship("merged")
    assert [m.content for m in merged] == [b"a"]
    merged[0].assert_attribute_equals("merge.reason", "BIN_MANAGER_FULL")
    runner.stop()


def test_keep_only_common_and_all_unique_attributes(make_runner: RunnerFactory) -> None:
    common = _merge(make_runner)
    unique = _merge(make_runner, **{"Attribute Strategy": "Keep All Unique Attributes"})
    for runner in (common, unique):
        runner.enqueue("a", {"same": "1", "differ": "x", "only.first": "y"})
        runner.enqueue("b", {"same": "1", "differ": "z"})
        runner.run(2)
    merged = common.get_flowfiles_for_relationship("merged")[0]
    merged.assert_attribute_equals("same", "1")
    merged.assert_attribute_not_exists("differ")
    merged.assert_attribute_not_exists("only.first")
    merged = unique.get_flowfiles_for_relationship("merged")[0]
    merged.assert_attribute_equals("same", "1")
    merged.assert_attribute_not_exists("differ")
    merged.assert_attribute_equals("only.first", "y")


def test_join_provenance(make_runner: RunnerFactory) -> None:
    runner = _merge(make_runner)
    parents = [runner.enqueue(t) for t in ("a", "b")]
    runner.run(2)
    merged = runner.get_flowfiles_for_relationship("merged")[0]
    joins = [e for e in runner.get_provenance_events() if e.event_type == ProvenanceEventType.JOIN]
    assert len(joins) == 1
    assert joins[0].flowfile_uuid == merged.uuid
    assert set(joins[0].parent_uuids) == {p.uuid for p in parents}


def test_avro_join_names_only_the_files_merged(make_runner: RunnerFactory) -> None:
    """NiFi's AvroMerge reports its JOIN with the merged files only: one left out for
    another schema is not a parent of the bundle (its copy goes to failure)."""
    runner = make_runner(
        "MergeContent",
        properties={
            "Merge Format": "Avro",
            "Minimum Number of Entries": "3",
            "Maximum Number of Entries": "3",
        },
    )
    user = fastavro.parse_schema(
        {"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}]}
    )
    place = fastavro.parse_schema(
        {"type": "record", "name": "Place", "fields": [{"name": "city", "type": "string"}]}
    )

    def data_file(schema: Any, record: dict[str, str]) -> bytes:
        out = io.BytesIO()
        fastavro.writer(out, schema, [record])
        return out.getvalue()

    kept = [runner.enqueue(data_file(user, {"name": n})) for n in ("Ann", "Bo")]
    other = runner.enqueue(data_file(place, {"city": "Oslo"}))
    runner.run()
    runner.assert_transfer_count("failure", 1)
    merged = runner.get_flowfiles_for_relationship("merged")[0]
    joins = [e for e in runner.get_provenance_events() if e.event_type == ProvenanceEventType.JOIN]
    assert [e.flowfile_uuid for e in joins] == [merged.uuid]
    assert set(joins[0].parent_uuids) == {f.uuid for f in kept}
    assert other.uuid not in joins[0].parent_uuids
    assert joins[0].attributes["merge.count"] == "3"


def test_flowfile_stream_v3(make_runner: RunnerFactory) -> None:
    runner = _merge(make_runner, **{"Merge Format": "FlowFile Stream, v3"})
    runner.enqueue("Hello", {"filename": "one", "k": "v"})
    runner.enqueue("World", {"filename": "two"})
    runner.run(2)
    merged = runner.get_flowfiles_for_relationship("merged")[0]
    merged.assert_attribute_equals("mime.type", "application/flowfile-v3")
    assert merged.get_attribute(
        "filename",
    ).endswith(".pkg")  # type: ignore[union-attr]
    unpacked = list(unpackage_v3(merged.content))
    assert [c for _, c in unpacked] == [b"Hello", b"World"]
    assert unpacked[0][0]["k"] == "v"
    assert unpacked[1][0]["filename"] == "two"


def test_flowfile_v3_header_bytes() -> None:
    """The exact bytes of FlowFilePackagerV3: magic, 2-byte lengths, 8-byte size."""
    assert package_v3_header({"a": "bc"}, 3) == (
        b"NiFiFF3" + b"\x00\x01" + b"\x00\x01a" + b"\x00\x02bc" + b"\x00" * 7 + b"\x03"
    )
    long_value = "x" * 70000
    header = package_v3_header({"k": long_value}, 0)
    assert header[7 + 2 + 3 : 7 + 2 + 3 + 6] == b"\xff\xff" + (70000).to_bytes(4, "big")


def test_tar_with_keep_path(make_runner: RunnerFactory) -> None:
    runner = _merge(make_runner, **{"Merge Format": "TAR", "Keep Path": "true"})
    runner.enqueue(
        "one",
        {
            "filename": "a.txt",
            "path": "./dir/",
            "tar.permissions": "600",
            "segment.original.filename": "x",
        },
    )
    runner.enqueue("two", {"filename": "b.txt"})
    runner.run(2)
    merged = runner.get_flowfiles_for_relationship("merged")[0]
    merged.assert_attribute_equals("mime.type", "application/tar")
    merged.assert_attribute_equals("filename", "x.tar")
    with tarfile.open(fileobj=io.BytesIO(merged.content)) as archive:
        names = archive.getnames()
        assert names == ["dir/a.txt", "b.txt"]
        assert archive.getmember("dir/a.txt").mode == 0o600
        extracted = archive.extractfile("b.txt")
        assert extracted is not None and extracted.read() == b"two"


def test_zip(make_runner: RunnerFactory) -> None:
    runner = _merge(make_runner, **{"Merge Format": "ZIP", "Compression Level": "9"})
    runner.enqueue("one" * 100, {"filename": "a.txt", "path": "./dir/"})
    runner.enqueue("two", {"filename": "b.txt"})
    runner.run(2)
    merged = runner.get_flowfiles_for_relationship("merged")[0]
    merged.assert_attribute_equals("mime.type", "application/zip")
    with zipfile.ZipFile(io.BytesIO(merged.content)) as archive:
        assert archive.namelist() == ["a.txt", "b.txt"]
        assert archive.read("a.txt") == b"one" * 100


def _fragment(
    runner: TestRunner, text: str, index: int, count: int | None, ident: str = "1"
) -> None:
    attributes = {"fragment.identifier": ident, "fragment.index": str(index)}
    if count is not None:
        attributes["fragment.count"] = str(count)
    runner.enqueue(text, attributes)


def test_defragment_orders_by_index(make_runner: RunnerFactory) -> None:
    runner = _merge(make_runner, **{"Merge Strategy": "Defragment"})
    _fragment(runner, "C", 3, 4)
    _fragment(runner, "A", 1, 4)
    _fragment(runner, "D", 4, 4)
    runner.run(1, stop_on_finish=False)
    runner.assert_transfer_count("merged", 0)
    _fragment(runner, "B", 2, 4)
    runner.run(1, initialize=False)
    merged = runner.get_flowfiles_for_relationship("merged")
    assert [m.content for m in merged] == [b"ABCD"]
    runner.assert_transfer_count("original", 4)


def test_defragment_with_differing_counts_fails(make_runner: RunnerFactory) -> None:
    runner = _merge(make_runner, **{"Merge Strategy": "Defragment"})
    _fragment(runner, "A", 1, 2)
    _fragment(runner, "B", 2, 3)
    _fragment(runner, "C", 3, 3)
    runner.run(2)
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("failure", 3)


def test_defragment_times_out_to_failure(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "MergeContent", properties={"Merge Strategy": "Defragment", "Max Bin Age": "10 sec"}
    )
    _fragment(runner, "A", 1, 3)
    _fragment(runner, "B", 2, 3)
    runner.run(1, stop_on_finish=False)
    runner.assert_transfer_count("failure", 0)
    runner.advance_time(10.001)
    runner.run(1, initialize=False)
    runner.assert_transfer_count("failure", 2)
    runner.assert_transfer_count("merged", 0)


def test_defragment_missing_index_fails(make_runner: RunnerFactory) -> None:
    runner = _merge(make_runner, **{"Merge Strategy": "Defragment"})
    runner.enqueue("A", {"fragment.identifier": "1", "fragment.count": "1"})
    runner.run(2)
    runner.assert_transfer_count("failure", 1)


def test_defragment_non_ascii_digit_index_fails_with_its_reason(make_runner: RunnerFactory) -> None:
    """'²' passes str.isdigit but is no Java integer: failure with the reason, not a crash."""
    runner = _merge(make_runner, **{"Merge Strategy": "Defragment"})
    runner.enqueue(
        "A", {"fragment.identifier": "1", "fragment.index": "\u00b2", "fragment.count": "1"}
    )
    runner.run(2)
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("failure", 1)
    reason = runner.get_flowfiles_for_relationship("failure")[0].attributes["merge.failure.reason"]
    assert "integer value for the fragment.index attribute" in reason
    runner.assert_queue_empty()


def test_min_greater_than_max_is_invalid(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "MergeContent",
        properties={"Minimum Number of Entries": "5", "Maximum Number of Entries": "2"},
    )
    runner.assert_not_valid()


def test_damaged_content_fails_alone_and_nothing_is_merged(make_runner: RunnerFactory) -> None:
    runner = make_runner(  # the claim is garbled on disk
        "MergeContent", properties={"Max Bin Age": "1 sec"}, repositories="durable"
    )
    runner.enqueue("good")
    damaged = runner.enqueue("bad content here")
    claim = damaged.flowfile.claim
    assert claim is not None
    resource = claim.resource
    directory = runner.settings.content_containers[int(resource.container)] / resource.section
    with (directory / resource.id).open("r+b") as handle:  # garble one byte on disk
        handle.seek(claim.offset + 3)
        byte = handle.read(1)
        handle.seek(claim.offset + 3)
        handle.write(bytes([byte[0] ^ 0x04]))
    with pytest.raises(ContentCorruptedError):
        runner.run(2)
    runner.assert_transfer_count("merged", 0)
    (failed,) = runner.get_flowfiles_for_relationship("failure")
    assert failed.get_attribute(CONTENT_ERROR_REASON) is not None
    assert runner.queue_size == 1  # the good FlowFile is back in the queue


def test_zip_duplicate_entry_name_sends_a_copy_to_failure(make_runner: RunnerFactory) -> None:
    runner = _merge(make_runner, **{"Merge Format": "ZIP"})
    runner.enqueue("one", {"filename": "same.txt"})
    runner.enqueue("two", {"filename": "same.txt"})
    runner.run(2)
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("original", 2)
    (failed,) = runner.get_flowfiles_for_relationship("failure")
    failed.assert_content_equals("two")
    merged = runner.get_flowfiles_for_relationship("merged")[0]
    with zipfile.ZipFile(io.BytesIO(merged.content)) as archive:
        assert archive.namelist() == ["same.txt"]
        assert archive.read("same.txt") == b"one"


def test_concurrent_tasks_merge_every_flowfile_once(
    make_runner: RunnerFactory, switching_often: None
) -> None:
    """The tasks share the bins; the interpreter switches threads every microsecond so
    that without a guard they interleave inside the binning (they did: FlowFiles lost
    from the bins, others merged twice)."""
    runner = _merge(
        make_runner, **{"Minimum Number of Entries": "3", "Maximum Number of Entries": "3"}
    )
    for n in range(600):
        runner.enqueue(f"<{n}>")
    runner.set_thread_count(4)
    runner.run(40)

    runner.assert_queue_empty()
    originals = runner.get_flowfiles_for_relationship("original")
    assert len({o.uuid for o in originals}) == len(originals) == 600
    merged = runner.get_flowfiles_for_relationship("merged")
    assert len(merged) == 200
    pieces = Counter(re.findall(r"<\d+>", "".join(m.content.decode() for m in merged)))
    assert pieces == Counter({f"<{n}>": 1 for n in range(600)})


def test_a_line_break_or_blank_is_a_delimiter(make_runner: RunnerFactory) -> None:
    """NiFi's validator refuses only the empty string: a Demarcator of "\\n" is the usual
    one-record-per-line merge."""
    runner = _merge(
        make_runner,
        **{"Delimiter Strategy": "Text", "Header": " ", "Demarcator": "\n", "Footer": "\r\n"},
    )
    runner.assert_valid()
    runner.enqueue("a")
    runner.enqueue("b")
    runner.run(2)
    runner.get_flowfiles_for_relationship("merged")[0].assert_content_equals(" a\nb\r\n")


def test_avro_bin_with_a_file_that_is_not_avro_goes_to_failure(make_runner: RunnerFactory) -> None:
    """A FlowFile that is not an Avro data file fails its bin whole; nothing is lost."""
    runner = make_runner(
        "MergeContent",
        properties={"Merge Format": "Avro", "Minimum Number of Entries": "2"},
    )
    runner.enqueue(b"not avro at all")
    runner.enqueue(b"nor this")
    runner.run(2)
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("failure", 2)
    for failed in runner.get_flowfiles_for_relationship("failure"):
        assert "is not an Avro data file" in (failed.get_attribute("merge.failure.reason") or "")
