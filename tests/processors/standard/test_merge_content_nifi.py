"""NiFi's own MergeContent tests, ported to the TestRunner (NiFi's sleeps: the manual
clock; its resource files: ``nifi_data/``)."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from collections.abc import Callable, Mapping
from typing import Any

import fastavro

from flowcore.testing import TestRunner
from tests.processors.record_processors.nifi_ports import migrated
from tests.processors.standard.nifi_resources import RESOURCES, resource

RunnerFactory = Callable[..., TestRunner]

FRAGMENT_ID = "fragment.identifier"
FRAGMENT_INDEX = "fragment.index"
FRAGMENT_COUNT = "fragment.count"
MIME_TYPE = "mime.type"


def _create_flowfiles(runner: TestRunner) -> None:
    """NiFi's createFlowFiles: with ``fragment.index``, which bin packing must ignore."""
    attributes = {MIME_TYPE: "application/plain-text", FRAGMENT_INDEX: "1"}
    runner.enqueue("Hello", attributes)
    runner.enqueue(", ", attributes)
    runner.enqueue("World!", attributes)


def _enqueue_fragments(
    runner: TestRunner, parts: list[tuple[str, str]], attributes: dict[str, str]
) -> None:
    """Enqueue ``(content, fragment.index)`` pairs with the other attributes given."""
    for content, index in parts:
        runner.enqueue(content, {**attributes, FRAGMENT_INDEX: index})


PANAMA = [("A Man ", "1"), ("A Plan ", "2"), ("A Canal ", "3"), ("Panama", "4")]


def test_nifi_flow_file_larger_than_bin(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testFlowFileLargerThanBin."""
    runner = make_runner("MergeContent")
    runner.set_property("Merge Strategy", "Bin-Packing Algorithm")
    runner.set_property("Minimum Number of Entries", "2")
    runner.set_property("Maximum Number of Entries", "2")
    runner.set_property("Minimum Group Size", "1 KB")
    runner.set_property("Maximum Group Size", "5 KB")
    runner.enqueue(bytes(1026))  # fits in the bin's limits
    runner.enqueue(bytes(1024 * 6))  # larger than the bin's limit
    runner.run(2)  # a chance to make two bins (only the large one is full)
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("failure", 0)
    merged = runner.get_flowfiles_for_relationship("merged")[0]
    original = runner.get_flowfiles_for_relationship("original")[0]
    assert merged.uuid == original.get_attribute("merge.uuid")
    assert merged.size == 1024 * 6
    # the first FlowFile's bin goes back to the queue when the processor stops
    runner.assert_queue_not_empty()


def _avro_schema(name: str) -> Any:
    return fastavro.parse_schema(json.loads(resource(f"TestMergeContent/{name}")))


def _serialize_avro_record(
    schema: Any, record: dict[str, Any], metadata: Mapping[str, str] | None = None
) -> bytes:
    """NiFi's serializeAvroRecord: a data file of one record, with the metadata given."""
    out = io.BytesIO()
    fastavro.writer(out, schema, [record], metadata=dict(metadata or {}))
    return out.getvalue()


def _generic_record_map(data: bytes, key: str) -> dict[str, dict[str, Any]]:
    """NiFi's getGenericRecordMap: the merged data file's records by ``key``."""
    return {str(record[key]): record for record in fastavro.reader(io.BytesIO(data))}  # type: ignore[index]


def _avro_runner(make_runner: RunnerFactory, metadata_strategy: str | None = None) -> TestRunner:
    runner = make_runner("MergeContent")
    runner.set_property("Maximum Number of Entries", "3")
    runner.set_property("Minimum Number of Entries", "3")
    runner.set_property("Merge Format", "Avro")
    if metadata_strategy is not None:
        runner.set_property("Metadata Strategy", metadata_strategy)
    return runner


USERS = [
    {"name": "Alyssa", "favorite_number": 256, "favorite_color": None},
    {"name": "Ben", "favorite_number": 7, "favorite_color": "red"},
    {"name": "John", "favorite_number": 5, "favorite_color": "blue"},
]
USER_METADATA = [
    {"test_metadata1": "Test 1"},
    {"test_metadata1": "Test 2"},  # a value that does not match
    {"test_metadata1": "Test 1", "test_metadata2": "Test"},  # a key of its own
]


def _merge_users_with_metadata(make_runner: RunnerFactory, strategy: str) -> TestRunner:
    runner = _avro_runner(make_runner, strategy)
    schema = _avro_schema("user.avsc")
    for user, metadata in zip(USERS, USER_METADATA, strict=True):
        runner.enqueue(_serialize_avro_record(schema, user, metadata))
    runner.run()
    runner.assert_queue_empty()
    return runner


def test_nifi_simple_avro_concat(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testSimpleAvroConcat."""
    runner = _avro_runner(make_runner)
    schema = _avro_schema("user.avsc")
    for user in USERS:
        runner.enqueue(_serialize_avro_record(schema, user))
    runner.run()
    runner.assert_queue_empty()
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 3)
    bundle = runner.get_flowfiles_for_relationship("merged")[0]
    bundle.assert_attribute_equals(MIME_TYPE, "application/avro-binary")
    users = _generic_record_map(bundle.content, "name")
    assert set(users) == {"Alyssa", "Ben", "John"}


def test_nifi_avro_concat_with_different_schemas(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testAvroConcatWithDifferentSchemas."""
    runner = _avro_runner(make_runner)
    user, place = _avro_schema("user.avsc"), _avro_schema("place.avsc")
    runner.enqueue(_serialize_avro_record(user, USERS[0]))
    runner.enqueue(_serialize_avro_record(place, {"name": "Some Place"}))
    runner.enqueue(_serialize_avro_record(user, USERS[2]))
    runner.run()
    runner.assert_queue_empty()
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("failure", 1)
    runner.assert_transfer_count("original", 3)
    bundle = runner.get_flowfiles_for_relationship("merged")[0]
    bundle.assert_attribute_equals(MIME_TYPE, "application/avro-binary")
    assert set(_generic_record_map(bundle.content, "name")) == {"Alyssa", "John"}
    failure = runner.get_flowfiles_for_relationship("failure")[0]
    assert set(_generic_record_map(failure.content, "name")) == {"Some Place"}


def test_nifi_avro_concat_with_different_metadata_do_not_merge(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestMergeContent.testAvroConcatWithDifferentMetadataDoNotMerge."""
    runner = _merge_users_with_metadata(make_runner, "Do Not Merge Uncommon Metadata")
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("failure", 2)
    runner.assert_transfer_count("original", 3)
    bundle = runner.get_flowfiles_for_relationship("merged")[0]
    bundle.assert_attribute_equals(MIME_TYPE, "application/avro-binary")
    assert set(_generic_record_map(bundle.content, "name")) == {"Alyssa"}


def test_nifi_avro_concat_with_different_metadata_ignore(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testAvroConcatWithDifferentMetadataIgnore."""
    runner = _merge_users_with_metadata(make_runner, "Ignore Metadata")
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 3)
    bundle = runner.get_flowfiles_for_relationship("merged")[0]
    bundle.assert_attribute_equals(MIME_TYPE, "application/avro-binary")
    assert set(_generic_record_map(bundle.content, "name")) == {"Alyssa", "Ben", "John"}


def test_nifi_avro_concat_with_different_metadata_use_first(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testAvroConcatWithDifferentMetadataUseFirst."""
    runner = _merge_users_with_metadata(make_runner, "Use First Metadata")
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 3)
    bundle = runner.get_flowfiles_for_relationship("merged")[0]
    bundle.assert_attribute_equals(MIME_TYPE, "application/avro-binary")
    assert set(_generic_record_map(bundle.content, "name")) == {"Alyssa", "Ben", "John"}


def test_nifi_avro_concat_with_different_metadata_keep_common(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestMergeContent.testAvroConcatWithDifferentMetadataKeepCommon."""
    runner = _merge_users_with_metadata(make_runner, "Keep Only Common Metadata")
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("failure", 1)
    runner.assert_transfer_count("original", 3)
    bundle = runner.get_flowfiles_for_relationship("merged")[0]
    bundle.assert_attribute_equals(MIME_TYPE, "application/avro-binary")
    assert set(_generic_record_map(bundle.content, "name")) == {"Alyssa", "John"}


def test_nifi_simple_binary_concat(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testSimpleBinaryConcat."""
    runner = make_runner("MergeContent")
    runner.set_property("Max Bin Age", "1 sec")
    runner.set_property("Merge Format", "Binary Concatenation")
    _create_flowfiles(runner)
    runner.run(2)
    runner.assert_queue_empty()
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 3)
    bundle = runner.get_flowfiles_for_relationship("merged")[0]
    bundle.assert_content_equals(b"Hello, World!")
    bundle.assert_attribute_equals(MIME_TYPE, "application/plain-text")
    for original in runner.get_flowfiles_for_relationship("original"):
        assert original.get_attribute("merge.uuid") == bundle.uuid


def test_nifi_simple_binary_concat_single_bin(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testSimpleBinaryConcatSingleBin."""
    runner = make_runner("MergeContent")
    runner.set_property("Max Bin Age", "1 sec")
    runner.set_property("Merge Format", "Binary Concatenation")
    runner.set_property("Maximum Number of Bins", "1")
    _create_flowfiles(runner)
    runner.run(2)
    runner.assert_queue_empty()
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 3)
    bundle = runner.get_flowfiles_for_relationship("merged")[0]
    bundle.assert_content_equals("Hello, World!")
    bundle.assert_attribute_equals(MIME_TYPE, "application/plain-text")


def _concat_with(make_runner: RunnerFactory, **delimiters: str) -> TestRunner:
    runner = make_runner("MergeContent")
    runner.set_property("Max Bin Age", "1 sec")
    runner.set_property("Merge Format", "Binary Concatenation")
    for name, value in delimiters.items():
        runner.set_property(name.replace("_", " "), value)
    return runner


def _assert_one_bundle(runner: TestRunner, content: bytes, originals: int = 3) -> None:
    runner.assert_queue_empty()
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", originals)
    bundle = runner.get_flowfiles_for_relationship("merged")[0]
    bundle.assert_content_equals(content)


def test_nifi_simple_binary_concat_with_text_delimiters(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testSimpleBinaryConcatWithTextDelimiters."""
    runner = _concat_with(
        make_runner, Delimiter_Strategy="Text", Header="@", Demarcator="#", Footer="$"
    )
    _create_flowfiles(runner)
    runner.run(2)
    _assert_one_bundle(runner, b"@Hello#, #World!$")
    runner.get_flowfiles_for_relationship("merged")[0].assert_attribute_equals(
        MIME_TYPE, "application/plain-text"
    )


def test_nifi_simple_binary_concat_with_text_delimiters_header_only(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestMergeContent.testSimpleBinaryConcatWithTextDelimitersHeaderOnly."""
    runner = _concat_with(make_runner, Delimiter_Strategy="Text", Header="@")
    _create_flowfiles(runner)
    runner.run(2)
    _assert_one_bundle(runner, b"@Hello, World!")
    runner.get_flowfiles_for_relationship("merged")[0].assert_attribute_equals(
        MIME_TYPE, "application/plain-text"
    )


def test_nifi_simple_binary_concat_with_file_delimiters(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testSimpleBinaryConcatWithFileDelimiters (NiFi's paths
    relative to its module: under ``nifi_data/``)."""
    runner = _concat_with(
        make_runner,
        Delimiter_Strategy="Filename",
        Header="${header}",
        Demarcator="${demarcator}",
        Footer="${footer}",
    )
    attributes = {
        MIME_TYPE: "application/plain-text",
        "header": str(RESOURCES / "TestMergeContent/head"),
        "demarcator": str(RESOURCES / "TestMergeContent/demarcate"),
        "footer": str(RESOURCES / "TestMergeContent/foot"),
    }
    runner.enqueue(b"Hello", attributes)
    runner.enqueue(b", ", attributes)
    runner.enqueue(b"World!", attributes)
    runner.run(2)
    _assert_one_bundle(runner, b"(|)Hello***, ***World!___")
    runner.get_flowfiles_for_relationship("merged")[0].assert_attribute_equals(
        MIME_TYPE, "application/plain-text"
    )


def test_nifi_simple_binary_concat_no_delimiters(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testSimpleBinaryConcatNoDelimiters."""
    runner = _concat_with(
        make_runner,
        Delimiter_Strategy="Do Not Use Delimiters",
        Header="aHeader",  # set, to check they are not used
        Demarcator="; ",
        Footer="aFooter",
    )
    attributes = {MIME_TYPE: "application/plain-text"}
    for text in ("First", "Second", "Third"):
        runner.enqueue(text, attributes)
    runner.run(2)
    _assert_one_bundle(runner, b"FirstSecondThird")
    runner.get_flowfiles_for_relationship("merged")[0].assert_attribute_equals(
        MIME_TYPE, "application/plain-text"
    )


def test_nifi_text_delimiters_validation(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testTextDelimitersValidation."""
    runner = _concat_with(
        make_runner, Delimiter_Strategy="Text", Header="", Demarcator="", Footer=""
    )
    results = runner.validation_errors()
    assert len(results) == 3, results
    for result in results:
        assert "cannot be empty" in result


def test_nifi_file_delimiters_validation(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testFileDelimitersValidation."""
    does_not_exist = str(RESOURCES / "TestMergeContent/does_not_exist")
    runner = _concat_with(
        make_runner,
        Delimiter_Strategy="Filename",
        Header=does_not_exist,
        Demarcator=does_not_exist,
        Footer=does_not_exist,
    )
    results = runner.validation_errors()
    assert len(results) == 3, results
    for result in results:
        assert f"is invalid because File {does_not_exist} does not exist" in result


def test_nifi_mime_type_is_octet_stream_if_conflicting_with_binary_concat(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestMergeContent.testMimeTypeIsOctetStreamIfConflictingWithBinaryConcat."""
    runner = _concat_with(make_runner)
    _create_flowfiles(runner)
    runner.enqueue(b"", {MIME_TYPE: "application/zip"})
    runner.run(2)
    _assert_one_bundle(runner, b"Hello, World!", originals=4)
    runner.get_flowfiles_for_relationship("merged")[0].assert_attribute_equals(
        MIME_TYPE, "application/octet-stream"
    )


def test_nifi_oldest_bin_is_expired(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testOldestBinIsExpired."""
    runner = make_runner("MergeContent")
    runner.set_property("Max Bin Age", "1 day")
    runner.set_property("Maximum Number of Bins", "50")
    runner.set_property("Minimum Number of Entries", "10")
    runner.set_property("Maximum Number of Entries", "10")
    runner.set_property("Merge Format", "Binary Concatenation")
    runner.set_property("Correlation Attribute Name", "correlationId")
    for i in range(49):
        for _ in range(5):
            runner.enqueue(b"", {"correlationId": str(i)})
    runner.run()
    runner.assert_queue_not_empty()  # the bins' sessions rolled back
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 0)
    runner.clear_transfer_state()

    # one trigger without stopping: the 49 bins are made; then a FlowFile without a
    # correlation id (bin 50) and one with a new id, which makes the 51st: the oldest
    # bin is merged
    runner.run(1, stop_on_finish=False, initialize=True)
    runner.enqueue(b"", {})
    runner.enqueue(b"", {"correlationId": "abc"})
    runner.run()
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 5)


def test_nifi_simple_binary_concat_waits_for_min(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testSimpleBinaryConcatWaitsForMin."""
    runner = make_runner("MergeContent")
    runner.set_property("Merge Format", "Binary Concatenation")
    runner.set_property("Minimum Group Size", "20 KB")
    _create_flowfiles(runner)
    runner.run()
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 0)


def test_nifi_zip(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testZip."""
    runner = make_runner("MergeContent")
    runner.set_property("Max Bin Age", "1 sec")
    runner.set_property("Merge Format", "ZIP")
    _create_flowfiles(runner)
    runner.run(2)
    runner.assert_queue_empty()
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 3)
    bundle = runner.get_flowfiles_for_relationship("merged")[0]
    with zipfile.ZipFile(io.BytesIO(bundle.content)) as archive:
        parts = [archive.read(info) for info in archive.infolist()]
    assert parts == [b"Hello", b", ", b"World!"]
    bundle.assert_attribute_equals(MIME_TYPE, "application/zip")


def test_nifi_zip_exception(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testZipException."""
    runner = make_runner("MergeContent")
    runner.set_property("Max Bin Age", "1 sec")
    runner.set_property("Merge Format", "ZIP")
    attributes = {MIME_TYPE: "application/plain-text", "filename": "duplicate-filename.txt"}
    for text in ("Hello", ", ", "World!"):
        runner.enqueue(text, attributes)
    runner.run(2)
    runner.assert_queue_empty()
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("failure", 2)
    runner.assert_transfer_count("original", 3)


def test_nifi_tar(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testTar."""
    runner = make_runner("MergeContent")
    runner.set_property("Max Bin Age", "1 sec")
    runner.set_property("Merge Format", "TAR")
    long_name = "AReally" + "Long" + "g" * 92 + "FileName"
    names = ["AShortFileName", "ALongerrrFileName", long_name]
    for name, text in zip(names, ("Hello", ", ", "World!"), strict=True):
        runner.enqueue(text, {MIME_TYPE: "application/plain-text", "filename": name})
    runner.run(2)
    runner.assert_queue_empty()
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 3)
    bundle = runner.get_flowfiles_for_relationship("merged")[0]
    with tarfile.open(fileobj=io.BytesIO(bundle.content)) as archive:
        entries = [
            (member.name, archive.extractfile(member).read())  # type: ignore[union-attr]
            for member in archive.getmembers()
        ]
    assert entries == [
        ("AShortFileName", b"Hello"),
        ("ALongerrrFileName", b", "),
        (long_name, b"World!"),
    ]
    bundle.assert_attribute_equals(MIME_TYPE, "application/tar")


def test_nifi_flow_file_stream(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testFlowFileStream."""
    runner = make_runner("MergeContent")
    runner.set_property("Max Bin Age", "1 sec")
    runner.set_property("Minimum Number of Entries", "2")
    runner.set_property("Maximum Number of Entries", "2")
    runner.set_property("Merge Format", "FlowFile Stream, v3")
    attributes = {"path": "folder"}
    runner.enqueue(resource("TestUnpackContent/folder/cal.txt"), attributes)
    runner.enqueue(resource("TestUnpackContent/folder/date.txt"), attributes)
    runner.run()
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 2)
    merged = runner.get_flowfiles_for_relationship("merged")[0]
    merged.assert_attribute_equals(MIME_TYPE, "application/flowfile-v3")


def _defragment(make_runner: RunnerFactory, max_bin_age: str | None = "1 min") -> TestRunner:
    runner = make_runner("MergeContent")
    runner.set_property("Merge Strategy", "Defragment")
    if max_bin_age is not None:
        runner.set_property("Max Bin Age", max_bin_age)
    return runner


def test_nifi_defragment(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testDefragment."""
    runner = _defragment(make_runner)
    _enqueue_fragments(runner, PANAMA, {FRAGMENT_ID: "1", FRAGMENT_COUNT: "4"})
    runner.run()
    runner.assert_transfer_count("merged", 1)
    assembled = runner.get_flowfiles_for_relationship("merged")[0]
    assembled.assert_content_equals(b"A Man A Plan A Canal Panama")


def test_nifi_defragment_with_fragment_count_on_last_fragment_only(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestMergeContent.testDefragmentWithFragmentCountOnLastFragmentOnly."""
    runner = _defragment(make_runner)
    _enqueue_fragments(runner, PANAMA[:3], {FRAGMENT_ID: "1"})
    _enqueue_fragments(runner, PANAMA[3:], {FRAGMENT_ID: "1", FRAGMENT_COUNT: "4"})
    runner.run()
    runner.assert_transfer_count("merged", 1)
    assembled = runner.get_flowfiles_for_relationship("merged")[0]
    assembled.assert_content_equals(b"A Man A Plan A Canal Panama")


def test_nifi_defragment_with_fragment_count_on_middle_fragment(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestMergeContent.testDefragmentWithFragmentCountOnMiddleFragment."""
    runner = _defragment(make_runner)
    fragment_id = "Fragment Id"
    runner.enqueue(b"Fragment 1 without count ", {FRAGMENT_ID: fragment_id, FRAGMENT_INDEX: "1"})
    runner.enqueue(
        b"Fragment 2 with count ",
        {FRAGMENT_ID: fragment_id, FRAGMENT_INDEX: "2", FRAGMENT_COUNT: "3"},
    )
    runner.enqueue(b"Fragment 3 without count", {FRAGMENT_ID: fragment_id, FRAGMENT_INDEX: "3"})
    runner.run()
    runner.assert_transfer_count("merged", 1)
    assembled = runner.get_flowfiles_for_relationship("merged")[0]
    assembled.assert_content_equals(
        b"Fragment 1 without count Fragment 2 with count Fragment 3 without count"
    )


def test_nifi_defragment_with_different_fragment_counts(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testDefragmentWithDifferentFragmentCounts."""
    runner = _defragment(make_runner)
    fragment_id = "Fragment Id"
    runner.enqueue(
        b"Fragment 1 with count ",
        {FRAGMENT_ID: fragment_id, FRAGMENT_INDEX: "1", FRAGMENT_COUNT: "2"},
    )
    runner.enqueue(
        b"Fragment 2 with count ",
        {FRAGMENT_ID: fragment_id, FRAGMENT_INDEX: "2", FRAGMENT_COUNT: "3"},
    )
    runner.enqueue(b"Fragment 3 without count", {FRAGMENT_ID: fragment_id, FRAGMENT_INDEX: "3"})
    runner.run()
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("failure", 3)
    runner.assert_transfer_count("original", 0)


def test_nifi_defragment_duplicate_fragment(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testDefragmentDuplicateFragment."""
    runner = _defragment(make_runner, "1 sec")
    attributes = {FRAGMENT_ID: "1", FRAGMENT_COUNT: "4"}
    # a duplicate of the second fragment
    _enqueue_fragments(runner, [PANAMA[0], PANAMA[1], PANAMA[1], *PANAMA[2:]], attributes)
    runner.run(1, stop_on_finish=False)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("merged", 1)
    assembled = runner.get_flowfiles_for_relationship("merged")[0]
    assembled.assert_content_equals(b"A Man A Plan A Canal Panama")

    runner.clear_transfer_state()
    runner.advance_time(1.1)
    runner.run()
    runner.assert_transfer_count("failure", 1)
    runner.assert_transfer_count("merged", 0)


def test_nifi_defragment_with_too_many_fragments(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testDefragmentWithTooManyFragments."""
    runner = _defragment(make_runner, None)
    runner.set_property("Maximum Number of Entries", "3")
    _enqueue_fragments(runner, PANAMA, {FRAGMENT_ID: "1", FRAGMENT_COUNT: "4"})
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("merged", 1)
    assembled = runner.get_flowfiles_for_relationship("merged")[0]
    assembled.assert_content_equals(b"A Man A Plan A Canal Panama")


def test_nifi_defragment_with_too_few_fragments(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testDefragmentWithTooFewFragments."""
    runner = _defragment(make_runner, "2 secs")
    _enqueue_fragments(runner, PANAMA, {FRAGMENT_ID: "1", FRAGMENT_COUNT: "5"})
    runner.run(1, stop_on_finish=False)
    runner.advance_time(3)
    runner.run(1)
    runner.assert_transfer_count("failure", 4)


def test_nifi_defragment_out_of_order(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testDefragmentOutOfOrder."""
    runner = _defragment(make_runner)
    parts = [PANAMA[0], PANAMA[2], PANAMA[3], PANAMA[1]]
    _enqueue_fragments(runner, parts, {FRAGMENT_ID: "1", FRAGMENT_COUNT: "4"})
    runner.run()
    runner.assert_transfer_count("merged", 1)
    assembled = runner.get_flowfiles_for_relationship("merged")[0]
    assembled.assert_content_equals(b"A Man A Plan A Canal Panama")
    for original in runner.get_flowfiles_for_relationship("original"):
        assert original.get_attribute("merge.uuid") == assembled.uuid


def test_nifi_defragment_multiple_mingled_segments(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testDefragmentMultipleMingledSegments."""
    runner = _defragment(make_runner)
    first = {FRAGMENT_ID: "1", FRAGMENT_COUNT: "4"}
    second = {FRAGMENT_ID: "TWO", FRAGMENT_COUNT: "3"}
    _enqueue_fragments(runner, PANAMA[:2], first)
    _enqueue_fragments(runner, [("No x ", "1"), ("in ", "2"), ("Nixon", "3")], second)
    _enqueue_fragments(runner, PANAMA[2:], first)
    runner.run(1)
    runner.assert_transfer_count("merged", 2)
    merged = runner.get_flowfiles_for_relationship("merged")
    merged[0].assert_content_equals(b"A Man A Plan A Canal Panama")
    merged[1].assert_content_equals(b"No x in Nixon")


def test_nifi_defragment_old_style_attributes(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testDefragmentOldStyleAttributes."""
    runner = _defragment(make_runner)
    attributes = {
        "fragment.identifier": "1",
        "fragment.count": "4",
        "segment.original.filename": "originalfilename",
    }
    _enqueue_fragments(runner, PANAMA, attributes)
    runner.run()
    runner.assert_transfer_count("merged", 1)
    assembled = runner.get_flowfiles_for_relationship("merged")[0]
    assembled.assert_content_equals(b"A Man A Plan A Canal Panama")
    assembled.assert_attribute_equals("filename", "originalfilename")


def test_nifi_defragment_multiple_on_triggers(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testDefragmentMultipleOnTriggers."""
    runner = _defragment(make_runner, None)
    for part in PANAMA:
        _enqueue_fragments(runner, [part], {FRAGMENT_ID: "1", FRAGMENT_COUNT: "4"})
        runner.run()
    runner.assert_transfer_count("merged", 1)
    assembled = runner.get_flowfiles_for_relationship("merged")[0]
    assembled.assert_content_equals(b"A Man A Plan A Canal Panama")


def test_nifi_merge_based_on_correlation(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testMergeBasedOnCorrelation."""
    runner = make_runner("MergeContent")
    runner.set_property("Merge Strategy", "Bin-Packing Algorithm")
    runner.set_property("Max Bin Age", "1 min")
    runner.set_property("Correlation Attribute Name", "attr")
    runner.set_property("Maximum Number of Entries", "3")
    runner.set_property("Minimum Number of Entries", "1")
    runner.enqueue(b"A Man ", {"attr": "b"})
    runner.enqueue(b"A Plan ", {"attr": "b"})
    runner.enqueue(b"A Canal ", {"attr": "c"})
    runner.enqueue(b"Panama", {"attr": "b"})
    runner.run(2)
    runner.assert_transfer_count("merged", 2)
    merged = {
        ff.get_attribute("attr"): ff for ff in runner.get_flowfiles_for_relationship("merged")
    }
    assert set(merged) == {"b", "c"}
    merged["c"].assert_content_equals("A Canal ")
    merged["b"].assert_content_equals("A Man A Plan Panama")


def test_nifi_max_bin_age(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testMaxBinAge."""
    runner = make_runner("MergeContent")
    runner.set_property("Merge Strategy", "Bin-Packing Algorithm")
    runner.set_property("Max Bin Age", "2 sec")
    runner.set_property("Correlation Attribute Name", "attr")
    runner.set_property("Maximum Number of Entries", "500")
    runner.set_property("Minimum Number of Entries", "500")
    for _ in range(50):
        runner.enqueue(b"")
    runner.run(5, stop_on_finish=False)
    runner.assert_transfer_count("merged", 0)
    runner.clear_transfer_state()
    runner.advance_time(3)
    runner.run()
    runner.assert_transfer_count("merged", 1)


def test_nifi_bin_released_when_only_max_bin_age_condition_is_fulfilled(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestMergeContent.testBinReleasedWhenOnlyMaxBinAgeConditionIsFulfilled (its
    one-second polling within a 5 second timeout: the manual clock, a second a round)."""
    runner = make_runner("MergeContent")
    runner.set_property("Merge Strategy", "Bin-Packing Algorithm")
    runner.set_property("Max Bin Age", "2 sec")
    runner.set_property("Minimum Number of Entries", "10")
    for _ in range(5):
        runner.enqueue(b"")
        runner.run(1, stop_on_finish=False)
        if len(runner.get_flowfiles_for_relationship("merged")) == 1:
            break
        runner.advance_time(1)  # the bin not released yet: check again in a second
    runner.assert_transfer_count("merged", 1)


def _unique_and_common(make_runner: RunnerFactory, strategy: str) -> TestRunner:
    runner = make_runner("MergeContent")
    runner.set_property("Attribute Strategy", strategy)
    runner.set_property("Maximum Group Size", "2 B")
    runner.set_property("Minimum Group Size", "2 B")
    runner.enqueue(bytes(1), {"abc": "xyz", "xyz": "123", "hello": "good-bye"})
    runner.enqueue(bytes(1), {"abc": "xyz", "xyz": "321", "world": "aaa"})
    runner.run()
    runner.assert_transfer_count("merged", 1)
    return runner


def test_nifi_unique_attributes(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testUniqueAttributes."""
    runner = _unique_and_common(make_runner, "Keep All Unique Attributes")
    out = runner.get_flowfiles_for_relationship("merged")[0]
    out.assert_attribute_equals("abc", "xyz")
    out.assert_attribute_equals("hello", "good-bye")
    out.assert_attribute_equals("world", "aaa")
    out.assert_attribute_not_exists("xyz")


def test_nifi_common_attributes_only(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testCommonAttributesOnly."""
    runner = _unique_and_common(make_runner, "Keep Only Common Attributes")
    out = runner.get_flowfiles_for_relationship("merged")[0]
    out.assert_attribute_equals("abc", "xyz")
    out.assert_attribute_not_exists("hello")
    out.assert_attribute_not_exists("world")
    out.assert_attribute_not_exists("xyz")
    uuids = {ff.uuid for ff in runner.get_flowfiles_for_relationship("original")}
    uuids.add(out.uuid)
    assert len(uuids) == 3


def test_nifi_count_attribute(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testCountAttribute."""
    runner = _concat_with(make_runner)
    _create_flowfiles(runner)
    runner.run(2)
    _assert_one_bundle(runner, b"Hello, World!")
    bundle = runner.get_flowfiles_for_relationship("merged")[0]
    bundle.assert_attribute_equals("merge.count", "3")
    bundle.assert_attribute_exists("merge.bin.age")


def test_nifi_leaves_small_bin_unmerged(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testLeavesSmallBinUnmerged."""
    runner = make_runner("MergeContent")
    runner.set_property("Minimum Number of Entries", "5")
    runner.set_property("Maximum Number of Entries", "5")
    runner.set_property("Maximum Number of Bins", "3")
    for i in range(17):
        runner.enqueue(f"{i}\n")
    runner.run(5)
    runner.assert_transfer_count("merged", 3)
    runner.assert_transfer_count("original", 15)
    assert runner.queue_size == 2


def test_nifi_migrate_properties() -> None:
    """NiFi: TestMergeContent.testMigrateProperties (the NiFi flow import's renaming)."""
    expected = {
        "mergecontent-metadata-strategy": "Metadata Strategy",
        "Header File": "Header",
        "Footer File": "Footer",
        "Demarcator File": "Demarcator",
        "Maximum number of Bins": "Maximum Number of Bins",
    }
    assert {old: migrated("MergeContent", old) for old in expected} == expected


def _termination(make_runner: RunnerFactory, insertion: str) -> TestRunner:
    runner = make_runner("MergeContent")
    runner.set_property("Minimum Number of Entries", "10")
    runner.set_property("Maximum Number of Entries", "25")
    runner.set_property("Maximum Number of Bins", "3")
    runner.set_property("Bin Termination Check", "${termination:equals('true')}")
    runner.set_property("FlowFile Insertion Strategy", insertion)
    return runner


def _three_terminated_runs(runner: TestRunner) -> None:
    """5 FlowFiles, then one with ``termination`` true; three times."""
    index = 0
    for _ in range(3):
        for i in range(6):
            runner.enqueue(f"{index}\n", {"termination": "true"} if i == 5 else {})
            index += 1


def test_nifi_bin_termination_trigger_start_of_bin(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testBinTerminationTriggerStartOfBin."""
    runner = _termination(make_runner, "First in New Bin")
    _three_terminated_runs(runner)
    runner.run(2)
    runner.assert_transfer_count("merged", 3)
    # 17: the last FlowFile starts a new bin, not merged yet
    runner.assert_transfer_count("original", 17)
    merged = runner.get_flowfiles_for_relationship("merged")
    merged[0].assert_content_equals("0\n1\n2\n3\n4\n")
    merged[1].assert_content_equals("5\n6\n7\n8\n9\n10\n")
    merged[2].assert_content_equals("11\n12\n13\n14\n15\n16\n")
    merged[0].assert_attribute_equals("merge.reason", "BIN_TERMINATION_SIGNAL")


def test_nifi_bin_termination_trigger_end_of_bin(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testBinTerminationTriggerEndOfBin."""
    runner = _termination(make_runner, "Last in Bin")
    _three_terminated_runs(runner)
    runner.run(2)
    runner.assert_transfer_count("merged", 3)
    runner.assert_transfer_count("original", 18)  # the last FlowFile ended its bin
    merged = runner.get_flowfiles_for_relationship("merged")
    merged[0].assert_content_equals("0\n1\n2\n3\n4\n5\n")
    merged[1].assert_content_equals("6\n7\n8\n9\n10\n11\n")
    merged[2].assert_content_equals("12\n13\n14\n15\n16\n17\n")


def test_nifi_bin_termination_trigger_isolated(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testBinTerminationTriggerIsolated."""
    runner = _termination(make_runner, "Isolated")
    _three_terminated_runs(runner)
    runner.run(2)
    runner.assert_transfer_count("merged", 6)
    runner.assert_transfer_count("original", 18)
    merged = runner.get_flowfiles_for_relationship("merged")
    expected = [
        "0\n1\n2\n3\n4\n",
        "5\n",
        "6\n7\n8\n9\n10\n",
        "11\n",
        "12\n13\n14\n15\n16\n",
        "17\n",
    ]
    for flowfile, content in zip(merged, expected, strict=True):
        flowfile.assert_content_equals(content)


def test_nifi_termination_trigger_with_correlation_attribute(make_runner: RunnerFactory) -> None:
    """NiFi: TestMergeContent.testTerminationTriggerWithCorrelationAttribute."""
    runner = _termination(make_runner, "First in New Bin")
    runner.set_property("Correlation Attribute Name", "correlation")
    # '1' gets 0 and 1, '2' gets 2; '3' starts a new bin of '1', '4' another; ten more
    # fill the bin of '2' without a termination, leaving '4' in its bin
    terminating = {"termination": "true", "correlation": "1"}
    runner.enqueue("0\n", {"correlation": "1"})
    runner.enqueue("1\n", {"correlation": "1"})
    runner.enqueue("2\n", {"correlation": "2"})
    runner.enqueue("3\n", terminating)
    runner.enqueue("4\n", terminating)
    for i in range(10):
        runner.enqueue(f"{i}\n", {"correlation": "2"})
    runner.run(2)
    runner.assert_transfer_count("merged", 3)
    runner.assert_transfer_count("original", 14)
    merged = runner.get_flowfiles_for_relationship("merged")
    merged[0].assert_content_equals("0\n1\n")
    merged[1].assert_content_equals("3\n")
    merged[2].assert_content_equals("2\n0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n")
