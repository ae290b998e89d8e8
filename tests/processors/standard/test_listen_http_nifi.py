"""NiFi's own ListenHTTP tests (TestListenHTTP.java), ported to the TestRunner.

NiFi's MockRecordParser becomes the real JsonTreeReader with its schema as Schema Text, the
records posted as JSON (its ``failAfter(2)``: malformed JSON at the third record); its
MockRecordWriter (no header, every value quoted) becomes the real CSVRecordSetWriter
without a header line, quoting all values. Each test starts the real listener on a free
port of 127.0.0.1 (Listening Port 0) and stops it; requests are sent with httpx, as
NiFi's tests send them with OkHttp.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Callable, Iterator

import httpx
import pytest

from flowcore.flow.nifi.mapping import ANY, nifi_mapping
from flowcore.model import ProvenanceEventType
from flowcore.processor.registry import processor_class
from flowcore.testing import TestRunner
from flowcore.testing.mock_flowfile import MockFlowFile
from processors.standard.listen_http import ListenHTTP
from processors.standard.merge_content import package_v3_header
from tests.processors.record_processors.nifi_ports import avro_schema, json_reader, json_records

RunnerFactory = Callable[..., TestRunner]
HTTP_BASE_PATH = "basePath"
PORT_VARIABLE = "HTTP_PORT"
HTTP_SERVER_PORT_EL = "${" + PORT_VARIABLE + "}"
BASEPATH_VARIABLE = "HTTP_BASEPATH"
HTTP_SERVER_BASEPATH_EL = "${" + BASEPATH_VARIABLE + "}"
MULTIPART_ATTRIBUTE = "http.multipart.name"
APPLICATION_OCTET_STREAM = "application/octet-stream"


@pytest.fixture
def runner(make_runner: RunnerFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestRunner]:
    """NiFi's ``setup``: port 0 and the base path, also as environment variables; the
    server is shut down after the test."""
    monkeypatch.setenv(PORT_VARIABLE, "0")
    monkeypatch.setenv(BASEPATH_VARIABLE, HTTP_BASE_PATH)
    listener = make_runner("ListenHTTP")
    listener.set_property("Listening Port", "0")
    listener.set_property("Base Path", HTTP_BASE_PATH)
    yield listener
    listener.stop()


def start_web_server(runner: TestRunner) -> int:
    """NiFi's ``startWebServer``: run once without stopping; the listening port."""
    runner.run(1, stop_on_finish=False)
    processor = runner.processor
    assert isinstance(processor, ListenHTTP)
    assert processor.port is not None
    return processor.port


def build_url(port: int, base_path: str) -> str:
    return f"http://localhost:{port}/{base_path}"


def send_message(message: str | None, port: int, base_path: str, http_method: str) -> int:
    body = b"" if message is None else message.encode()
    response = httpx.request(
        http_method,
        build_url(port, base_path),
        content=body,
        headers={"Content-Type": APPLICATION_OCTET_STREAM},
        timeout=10,
    )
    return response.status_code


def start_web_server_and_send_messages(
    runner: TestRunner, messages: list[str | None], expected_status_code: int, http_method: str
) -> None:
    port = start_web_server(runner)
    for message in messages:
        status_code = send_message(message, port, HTTP_BASE_PATH, http_method)
        assert status_code == expected_status_code, "HTTP Status Code not matched"


def post_requests_received(runner: TestRunner, return_code: int) -> None:
    """NiFi's ``testPOSTRequestsReceived`` (plain HTTP)."""
    messages = ["payload 1", "", None, "payload 2"]
    start_web_server_and_send_messages(runner, messages, return_code, "POST")
    mock_flow_files = runner.get_flowfiles_for_relationship("success")
    if return_code < 400:  # Only if we actually expect success
        runner.assert_transfer_count("success", 4)
        mock_flow_files[0].assert_content_equals("payload 1")
        mock_flow_files[1].assert_content_equals("")
        mock_flow_files[2].assert_content_equals("")
        mock_flow_files[3].assert_content_equals("payload 2")


def test_nifi_post_requests_received_without_el(runner: TestRunner) -> None:
    """NiFi: TestListenHTTP.testPOSTRequestsReceivedWithoutEL."""
    runner.set_property("Base Path", HTTP_BASE_PATH)
    post_requests_received(runner, 200)


def test_nifi_post_requests_received_return_code_without_el(runner: TestRunner) -> None:
    """NiFi: TestListenHTTP.testPOSTRequestsReceivedReturnCodeWithoutEL."""
    runner.set_property("Base Path", HTTP_BASE_PATH)
    runner.set_property("Return Code", "204")
    post_requests_received(runner, 204)


def test_nifi_post_requests_received_with_el(runner: TestRunner) -> None:
    """NiFi: TestListenHTTP.testPOSTRequestsReceivedWithEL."""
    runner.set_property("Listening Port", HTTP_SERVER_PORT_EL)
    runner.set_property("Base Path", HTTP_SERVER_BASEPATH_EL)
    runner.assert_valid()
    post_requests_received(runner, 200)


def test_nifi_post_requests_return_code_received_with_el(runner: TestRunner) -> None:
    """NiFi: TestListenHTTP.testPOSTRequestsReturnCodeReceivedWithEL."""
    runner.set_property("Listening Port", HTTP_SERVER_PORT_EL)
    runner.set_property("Base Path", HTTP_SERVER_BASEPATH_EL)
    runner.set_property("Return Code", "204")
    runner.assert_valid()
    post_requests_received(runner, 204)


def test_nifi_max_thread_pool_size_too_low(runner: TestRunner) -> None:
    """NiFi: TestListenHTTP.testMaxThreadPoolSizeTooLow."""
    runner.set_property("Base Path", HTTP_BASE_PATH)
    runner.set_property("Maximum Thread Pool Size", "7")
    runner.assert_not_valid()


def test_nifi_max_thread_pool_size_too_high(runner: TestRunner) -> None:
    """NiFi: TestListenHTTP.testMaxThreadPoolSizeTooHigh."""
    runner.set_property("Base Path", HTTP_BASE_PATH)
    runner.set_property("Maximum Thread Pool Size", "1001")
    runner.assert_not_valid()


def test_nifi_max_thread_pool_size_ok_lower_bound(runner: TestRunner) -> None:
    """NiFi: TestListenHTTP.testMaxThreadPoolSizeOkLowerBound."""
    runner.set_property("Base Path", HTTP_BASE_PATH)
    runner.set_property("Maximum Thread Pool Size", "8")
    runner.assert_valid()


def test_nifi_max_thread_pool_size_ok_upper_bound(runner: TestRunner) -> None:
    """NiFi: TestListenHTTP.testMaxThreadPoolSizeOkUpperBound."""
    runner.set_property("Base Path", HTTP_BASE_PATH)
    runner.set_property("Maximum Thread Pool Size", "1000")
    runner.assert_valid()


def test_nifi_max_thread_pool_size_specified_in_the_property_is_set_in_the_server_instance(
    runner: TestRunner,
) -> None:
    """NiFi: TestListenHTTP.testMaxThreadPoolSizeSpecifiedInThePropertyIsSetInTheServerInstance."""
    max_thread_pool_size = 201
    runner.set_property("Base Path", HTTP_BASE_PATH)
    runner.set_property("Maximum Thread Pool Size", str(max_thread_pool_size))
    start_web_server(runner)
    processor = runner.processor
    assert isinstance(processor, ListenHTTP)
    assert processor.max_threads == max_thread_pool_size


def test_nifi_post_content_encoding_gzip_accepted(runner: TestRunner) -> None:
    """NiFi: TestListenHTTP.testPostContentEncodingGzipAccepted."""
    runner.set_property("Base Path", HTTP_BASE_PATH)
    runner.set_property("Return Code", "204")
    port = start_web_server(runner)
    message = "String"
    compressed = gzip.compress(message.encode())
    response = httpx.post(
        build_url(port, HTTP_BASE_PATH),
        content=compressed,
        headers={"Content-Type": APPLICATION_OCTET_STREAM, "Content-Encoding": "gzip"},
        timeout=10,
    )
    assert response.is_success
    runner.assert_transfer_count("success", 1)
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals(message)


def test_nifi_options_not_allowed(runner: TestRunner) -> None:
    """NiFi: TestListenHTTP.testOptionsNotAllowed."""
    start_web_server_and_send_messages(runner, ["payload 1"], 405, "OPTIONS")


def test_nifi_options_not_allowed_on_non_base_path(runner: TestRunner) -> None:
    """NiFi: TestListenHTTP.testOptionsNotAllowedOnNonBasePath."""
    port = start_web_server(runner)
    status_code = send_message("payload 1", port, "randomPath", "OPTIONS")
    assert status_code == 405, "HTTP Status Code not matched"


def test_nifi_trace_not_allowed(runner: TestRunner) -> None:
    """NiFi: TestListenHTTP.testTraceNotAllowed."""
    start_web_server_and_send_messages(runner, ["payload 1"], 405, "TRACE")


def test_nifi_trace_not_allowed_on_non_base_path(runner: TestRunner) -> None:
    """NiFi: TestListenHTTP.testTraceNotAllowedOnNonBasePath."""
    port = start_web_server(runner)
    status_code = send_message("payload 1", port, "randomPath", "TRACE")
    assert status_code == 405, "HTTP Status Code not matched"


def _imported(name: str) -> tuple[str, str]:
    """What importing a NiFi ListenHTTP with property ``name`` makes of it."""
    mapping = nifi_mapping("org.apache.nifi.processors.standard.ListenHTTP", "processor")
    assert mapping is not None
    key = mapping.aliases.get(name, name)
    for descriptor in processor_class(mapping.flowcore_type).property_descriptors:
        if key in (descriptor.name, descriptor.label):
            return ("property", descriptor.label)
    if key in mapping.ignored:
        value = mapping.ignored[key]
        return ("dropped", "any value" if value == ANY else value)
    return ("unsupported", name)


def test_nifi_migrate_properties() -> None:
    """NiFi: TestListenHTTP.testMigrateProperties (a NiFi flow with the old or the new
    names imports alike)."""
    expected_renamed = {
        "health-check-port": "Listening Port for Health Check Requests",
        "Authorized DN Pattern": "Authorized Subject DN Pattern",
        "authorized-issuer-dn-pattern": "Authorized Issuer DN Pattern",
        "multipart-request-max-size": "Multipart Request Max Size",
        "multipart-read-buffer-size": "Multipart Read Buffer Size",
        "client-authentication": "Client Authentication",
        "max-thread-pool-size": "Maximum Thread Pool Size",
        "record-reader": "Record Reader",
        "record-writer": "Record Writer",
        "HTTP Headers to receive as Attributes (Regex)": "HTTP Headers for Attributes",
    }
    for old_name, new_name in expected_renamed.items():
        assert _imported(old_name) == _imported(new_name)
        assert _imported(old_name)[0] != "unsupported"
    for name in (
        "Multipart Request Max Size",
        "Multipart Read Buffer Size",
        "Maximum Thread Pool Size",
        "HTTP Headers for Attributes",
        "Record Reader",
        "Record Writer",
    ):
        assert _imported(name) == ("property", name)


def _find_flow_file(flow_files: list[MockFlowFile], attribute_value: str) -> MockFlowFile:
    for flow_file in flow_files:
        if flow_file.get_attribute(MULTIPART_ATTRIBUTE) == attribute_value:
            return flow_file
    raise AssertionError(MULTIPART_ATTRIBUTE)


def test_nifi_multipart_form_data_request(runner: TestRunner) -> None:
    """NiFi: TestListenHTTP.testMultipartFormDataRequest."""
    runner.set_property("Base Path", HTTP_BASE_PATH)
    runner.set_property("Return Code", "200")
    runner.set_property("Multipart Read Buffer Size", "10 b")
    port = start_web_server(runner)

    file1 = b"Hello\nWorld\n"
    file2 = b'{ "name":"John", "age":30 }\n'
    response = httpx.post(
        build_url(port, HTTP_BASE_PATH),
        data={"p1": "v1", "p2": "v2"},
        files={
            "file1": ("my-file-text.txt", file1, "text/plain"),
            "file2": ("my-file-data.json", file2, "application/json"),
            "file3": ("my-file-binary.bin", os.urandom(100), "application/octet-stream"),
        },
        timeout=10,
    )
    assert response.is_success, f"Unexpected code: {response.status_code}, body: {response.text}"

    runner.assert_all_flowfiles_transferred("success", 5)
    flow_files = runner.get_flowfiles_for_relationship("success")
    # Part fragments are not processed in the order we submitted them.
    mff = _find_flow_file(flow_files, "p1")
    mff.assert_attribute_equals("http.multipart.name", "p1")
    mff.assert_attribute_exists("http.multipart.size")
    mff.assert_attribute_equals("http.multipart.fragments.sequence.number", "1")
    mff.assert_attribute_equals("http.multipart.fragments.total.number", "5")
    mff.assert_attribute_exists("http.headers.multipart.Content-Disposition")

    mff = _find_flow_file(flow_files, "p2")
    mff.assert_attribute_equals("http.multipart.name", "p2")
    mff.assert_attribute_exists("http.multipart.size")
    mff.assert_attribute_exists("http.multipart.fragments.sequence.number")
    mff.assert_attribute_equals("http.multipart.fragments.total.number", "5")
    mff.assert_attribute_exists("http.headers.multipart.Content-Disposition")

    for name, filename, content_type in (
        ("file1", "my-file-text.txt", "text/plain"),
        ("file2", "my-file-data.json", "application/json"),
        ("file3", "my-file-binary.bin", "application/octet-stream"),
    ):
        mff = _find_flow_file(flow_files, name)
        mff.assert_attribute_equals("http.multipart.name", name)
        mff.assert_attribute_equals("http.multipart.filename", filename)
        mff.assert_attribute_equals("http.headers.multipart.Content-Type", content_type)
        mff.assert_attribute_exists("http.multipart.size")
        mff.assert_attribute_exists("http.multipart.fragments.sequence.number")
        mff.assert_attribute_equals("http.multipart.fragments.total.number", "5")
        mff.assert_attribute_exists("http.headers.multipart.Content-Disposition")
    _find_flow_file(flow_files, "file1").assert_content_equals(file1)
    _find_flow_file(flow_files, "file2").assert_content_equals(file2)


def test_nifi_large_http_request_header(runner: TestRunner) -> None:
    """NiFi: TestListenHTTP.testLargeHTTPRequestHeader."""
    runner.set_property("Request Header Maximum Size", "16 KB")
    large_header_value = "A" * (9 * 1024)
    port = start_web_server(runner)
    response = httpx.head(
        build_url(port, HTTP_BASE_PATH), headers={"Large-Header": large_header_value}
    )
    assert response.status_code == 200, "Expected 200 response code with large header."


def test_nifi_flow_file_package_restores_filenames(runner: TestRunner) -> None:
    """NiFi: TestListenHTTP.testFlowFilePackageRestoresFilenames."""
    runner.set_property("Base Path", HTTP_BASE_PATH)
    runner.set_property("Return Code", "204")
    port = start_web_server(runner)

    # Create FFv3 package containing two FlowFiles with filenames "file0" and "file1"
    data = b"content does not matter"
    package = b"".join(
        package_v3_header({"filename": f"file{i}"}, len(data)) + data for i in range(2)
    )
    response = httpx.post(
        build_url(port, HTTP_BASE_PATH),
        content=package,
        headers={
            "Content-Type": "application/flowfile-v3",
            "filename": "data.flowfilev3",
            "uuid": "dummy-uuid",
        },
        timeout=10,
    )
    assert response.is_success

    # Confirm FFv3 package is unpacked and each FlowFile carries the proper filename
    runner.assert_transfer_count("success", 2)
    for i in range(2):
        flow_file = runner.get_flowfiles_for_relationship("success")[i]
        flow_file.assert_attribute_equals("filename", f"file{i}")

    provenance_events = runner.get_provenance_events()
    assert len(provenance_events) == 2
    for provenance_event in provenance_events:
        assert provenance_event.event_type == ProvenanceEventType.RECEIVE
        assert provenance_event.source_system_flowfile_id == "urn:nifi:dummy-uuid"


def setup_record_reader_test(runner: TestRunner) -> None:
    """NiFi's ``setupRecordReaderTest``: a reader of id, name and code, and a writer."""
    schema = avro_schema([("id", "int"), ("name", "string"), ("code", "long")])
    runner.add_controller_service("mockRecordParser", "JsonTreeReader", json_reader(schema))
    runner.set_property("Record Reader", "mockRecordParser")
    runner.set_property("Base Path", HTTP_BASE_PATH)
    runner.add_controller_service(
        "mockRecordWriter",
        "CSVRecordSetWriter",
        {"Include Header Line": "false", "Quote Mode": "ALL"},
    )
    runner.set_property("Record Writer", "mockRecordWriter")


RECORDS = json_records(
    ["id", "name", "code"],
    (1, "rec1", 101),
    (2, "rec2", 102),
    (3, "rec3", 103),
    (4, "rec4", 104),
)


def test_nifi_post_requests_received_with_record_reader(runner: TestRunner) -> None:
    """NiFi: TestListenHTTP.testPOSTRequestsReceivedWithRecordReader."""
    setup_record_reader_test(runner)
    expected_message = '"1","rec1","101"\n"2","rec2","102"\n"3","rec3","103"\n"4","rec4","104"\n'
    start_web_server_and_send_messages(runner, [RECORDS], 200, "POST")
    runner.assert_transfer_count("success", 1)
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals(expected_message)


def test_nifi_return400_when_invalid_post_request_sent_with_record_reader(
    runner: TestRunner,
) -> None:
    """NiFi: TestListenHTTP.testReturn400WhenInvalidPOSTRequestSentWithRecordReader."""
    setup_record_reader_test(runner)
    fail_after_two = RECORDS[: RECORDS.index('{"id": 3')] + "{not json"
    start_web_server_and_send_messages(runner, [fail_after_two], 400, "POST")
    runner.assert_transfer_count("success", 0)
