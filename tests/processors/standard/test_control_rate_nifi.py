"""NiFi's own ControlRate tests, ported to the TestRunner (NiFi's settable current time:
the runner's manual clock)."""

from __future__ import annotations

from collections.abc import Callable

from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]

ONE_SECOND_TIME_PERIOD = "1 s"
CURRENT_TIME_INCREMENT = 1100  # milliseconds, as NiFi's test
MAX_FLOW_FILES_PER_BATCH = 1000  # ControlRate's batch, as NiFi's

CRITERIA = "Rate Control Criteria"
MAX_RATE = "Maximum Rate"
MAX_DATA_RATE = "Maximum Data Rate"
MAX_COUNT_RATE = "Maximum FlowFile Rate"
TIME_PERIOD = "Time Duration"
GROUPING = "Grouping Attribute"
RATE_ATTRIBUTE = "Rate Controlled Attribute"


def _increment(runner: TestRunner, milliseconds: int = CURRENT_TIME_INCREMENT) -> None:
    runner.advance_time(milliseconds / 1000)


def _create_flowfile(runner: TestRunner, value: int) -> None:
    runner.enqueue(b"0123456789", {"count": str(value)})


def _create_flowfile_with_group(runner: TestRunner, group: str) -> None:
    runner.enqueue(b"", {"group": group})


def test_nifi_route_to_rate_exceeded(make_runner: RunnerFactory) -> None:
    """NiFi: TestControlRate.testRouteToRateExceeded."""
    runner = make_runner("ControlRate")
    runner.set_property("Rate Exceeded Strategy", "Route to 'rate exceeded'")
    runner.set_property(CRITERIA, "flowfile count")
    runner.set_property(MAX_RATE, "10")
    runner.set_property(TIME_PERIOD, "1 min")
    runner.set_property(GROUPING, "group")
    for i in range(100):
        runner.enqueue("", {"group": str(i)})
    for _ in range(25):
        runner.enqueue("", {"group": "50"})
    runner.run()
    # the first 100 go to success, as do the next 9 (a total of 10 for group '50')
    runner.assert_transfer_count("success", 109)
    runner.assert_transfer_count("rate exceeded", 16)
    for flowfile in runner.get_flowfiles_for_relationship("rate exceeded"):
        flowfile.assert_attribute_equals("group", "50")


def test_nifi_limit_exceeded_then_other_limit_not_exceeded(make_runner: RunnerFactory) -> None:
    """NiFi: TestControlRate.testLimitExceededThenOtherLimitNotExceeded."""
    runner = make_runner("ControlRate")
    runner.set_property(CRITERIA, "flowfile count")
    runner.set_property(MAX_RATE, "3")
    runner.set_property(TIME_PERIOD, "1 min")
    runner.set_property(GROUPING, "group")
    for _ in range(5):
        runner.enqueue("test data", {"group": "1"})
    runner.enqueue("test data", {"group": "2"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 4)
    output = runner.get_flowfiles_for_relationship("success")
    assert sum(1 for ff in output if ff.get_attribute("group") == "1") == 3
    assert sum(1 for ff in output if ff.get_attribute("group") == "2") == 1


def test_nifi_file_count_rate(make_runner: RunnerFactory) -> None:
    """NiFi: TestControlRate.testFileCountRate."""
    runner = make_runner("ControlRate")
    runner.set_property(CRITERIA, "flowfile count")
    runner.set_property(MAX_RATE, "3")
    runner.set_property(TIME_PERIOD, ONE_SECOND_TIME_PERIOD)
    for i in range(1, 5):
        runner.enqueue(f"test data {i}")
    runner.run(4, stop_on_finish=False)
    runner.assert_all_flowfiles_transferred("success", 3)
    runner.clear_transfer_state()

    runner.run(50, stop_on_finish=False)
    runner.assert_transfer_count("success", 0)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_not_empty()

    # 3 sent: after 1 second the 4th may go
    _increment(runner)
    runner.run(5)
    runner.assert_all_flowfiles_transferred("success", 1)
    runner.assert_queue_empty()


def test_nifi_file_count_with_grouping(make_runner: RunnerFactory) -> None:
    """NiFi: TestControlRate.testFileCountWithGrouping."""
    runner = make_runner("ControlRate")
    runner.set_property(CRITERIA, "flowfile count")
    runner.set_property(MAX_RATE, "2")
    runner.set_property(TIME_PERIOD, ONE_SECOND_TIME_PERIOD)
    runner.set_property(GROUPING, "group")
    for group in ("one", "two", "one", "two", "one", "two"):
        _create_flowfile_with_group(runner, group)
    runner.run(6, stop_on_finish=False)
    runner.assert_all_flowfiles_transferred("success", 4)
    runner.clear_transfer_state()

    runner.run(50, stop_on_finish=False)
    runner.assert_transfer_count("success", 0)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_not_empty()

    # 2 sent per group: after 1 second the remaining 1 per group may go
    _increment(runner)
    runner.run(2)
    runner.assert_all_flowfiles_transferred("success", 2)
    runner.assert_queue_empty()


def test_nifi_data_size_rate(make_runner: RunnerFactory) -> None:
    """NiFi: TestControlRate.testDataSizeRate."""
    runner = make_runner("ControlRate")
    runner.set_property(CRITERIA, "data rate")
    runner.set_property(MAX_RATE, "20 b")
    runner.set_property(TIME_PERIOD, ONE_SECOND_TIME_PERIOD)
    for i in range(1, 5):
        runner.enqueue(f"testdata {i}")
    runner.run(4, stop_on_finish=False)
    runner.assert_all_flowfiles_transferred("success", 2)
    runner.clear_transfer_state()

    runner.run(50, stop_on_finish=False)
    runner.assert_transfer_count("success", 0)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_not_empty()

    # 20 bytes sent: after 1 second 20 more may go
    _increment(runner)
    runner.run(2, stop_on_finish=False)
    runner.assert_all_flowfiles_transferred("success", 2)
    runner.assert_queue_empty()


def test_nifi_via_attribute(make_runner: RunnerFactory) -> None:
    """NiFi: TestControlRate.testViaAttribute."""
    runner = make_runner("ControlRate")
    runner.set_property(CRITERIA, "attribute value")
    runner.set_property(RATE_ATTRIBUTE, "count")
    runner.set_property(MAX_RATE, "20000")
    runner.set_property(TIME_PERIOD, ONE_SECOND_TIME_PERIOD)
    for value in (1000, 3000, 5000, 20000, 1000):
        _create_flowfile(runner, value)
    runner.run(5, stop_on_finish=False)
    runner.assert_all_flowfiles_transferred("success", 4)
    runner.clear_transfer_state()

    # 29,000 sent at 20,000 a second: another 20,000 may go after 1.45 seconds
    runner.run(50, stop_on_finish=False)
    runner.assert_transfer_count("success", 0)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_not_empty()
    _increment(runner, 1450)

    # more than the 1 second Time Duration, less than 1.45 seconds since the window
    runner.run(50, stop_on_finish=False)
    runner.assert_transfer_count("success", 0)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_not_empty()
    _increment(runner, 600)

    runner.run()
    runner.assert_transfer_count("success", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_empty()


def test_nifi_attribute_does_not_exist(make_runner: RunnerFactory) -> None:
    """NiFi: TestControlRate.testAttributeDoesNotExist."""
    runner = make_runner("ControlRate")
    runner.set_property(CRITERIA, "attribute value")
    runner.set_property(RATE_ATTRIBUTE, "no.such.attribute")
    runner.set_property(MAX_RATE, "20000")
    runner.set_property(TIME_PERIOD, ONE_SECOND_TIME_PERIOD)
    for value in (1000, 3000, 5000, 20000, 1000):
        _create_flowfile(runner, value)
    runner.run(5, stop_on_finish=False)
    # all to failure: the throttling attribute is not there
    runner.assert_all_flowfiles_transferred("failure", 5)
    runner.assert_transfer_count("success", 0)
    runner.assert_queue_empty()


def test_nifi_bad_attribute_rate(make_runner: RunnerFactory) -> None:
    """NiFi: TestControlRate.testBadAttributeRate."""
    runner = make_runner("ControlRate")
    runner.set_property(CRITERIA, "attribute value")
    runner.set_property(RATE_ATTRIBUTE, "count")
    runner.set_property(MAX_RATE, "20000")
    runner.set_property(TIME_PERIOD, ONE_SECOND_TIME_PERIOD)
    runner.enqueue(b"", {"count": "bad string"})
    runner.run()
    runner.assert_transfer_count("success", 0)
    runner.assert_transfer_count("failure", 1)
    runner.assert_queue_empty()


def test_nifi_batch_limit(make_runner: RunnerFactory) -> None:
    """NiFi: TestControlRate.testBatchLimit."""
    runner = make_runner("ControlRate")
    runner.set_property(CRITERIA, "flowfile count")
    runner.set_property(MAX_RATE, "5555")
    runner.set_property(TIME_PERIOD, ONE_SECOND_TIME_PERIOD)
    test_file_count = 1500
    for i in range(test_file_count):
        runner.enqueue(f"test data {i}")
    runner.run(1, stop_on_finish=False)
    runner.assert_all_flowfiles_transferred("success", MAX_FLOW_FILES_PER_BATCH)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_not_empty()
    assert runner.queue_size == test_file_count - MAX_FLOW_FILES_PER_BATCH

    runner.run(1, stop_on_finish=False)
    runner.assert_all_flowfiles_transferred("success", test_file_count)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_empty()


def test_nifi_non_existing_group_attribute(make_runner: RunnerFactory) -> None:
    """NiFi: TestControlRate.testNonExistingGroupAttribute."""
    runner = make_runner("ControlRate")
    runner.set_property(CRITERIA, "flowfile count")
    runner.set_property(MAX_RATE, "2")
    runner.set_property(TIME_PERIOD, ONE_SECOND_TIME_PERIOD)
    runner.set_property(GROUPING, "group")
    _create_flowfile_with_group(runner, "one")
    _create_flowfile(runner, 1)  # no group on this one
    _create_flowfile_with_group(runner, "one")
    _create_flowfile(runner, 2)  # no group on this one
    runner.run(4, stop_on_finish=False)
    runner.assert_all_flowfiles_transferred("success", 4)
    runner.assert_queue_empty()


def test_nifi_increase_data_rate(make_runner: RunnerFactory) -> None:
    """NiFi: TestControlRate.testIncreaseDataRate."""
    runner = make_runner("ControlRate")
    runner.set_property(CRITERIA, "data rate")
    runner.set_property(MAX_RATE, "11 B")
    runner.set_property(TIME_PERIOD, ONE_SECOND_TIME_PERIOD)
    for i in range(1, 7):
        runner.enqueue(f"test data {i}")
    runner.run(7, stop_on_finish=True)
    runner.assert_transfer_count("success", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_not_empty()

    # the rate raised after stopping: the count so far remains within the time period
    runner.set_property(MAX_RATE, "33 B")
    runner.run(7, stop_on_finish=False)
    runner.assert_transfer_count("success", 3)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_not_empty()

    _increment(runner)
    runner.run(7, stop_on_finish=False)
    runner.assert_transfer_count("success", 6)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_empty()


def test_nifi_increase_flow_file_rate(make_runner: RunnerFactory) -> None:
    """NiFi: TestControlRate.testIncreaseFlowFileRate."""
    runner = make_runner("ControlRate")
    runner.set_property(CRITERIA, "flowfile count")
    runner.set_property(MAX_RATE, "1")
    runner.set_property(TIME_PERIOD, ONE_SECOND_TIME_PERIOD)
    for i in range(1, 7):
        runner.enqueue(f"test data {i}")
    runner.run(7, stop_on_finish=True)
    runner.assert_transfer_count("success", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_not_empty()

    # the rate raised after stopping: the count so far remains within the time period
    runner.set_property(MAX_RATE, "3")
    runner.run(7, stop_on_finish=False)
    runner.assert_transfer_count("success", 3)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_not_empty()

    _increment(runner)
    runner.run(7, stop_on_finish=False)
    runner.assert_transfer_count("success", 6)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_empty()


def test_nifi_data_or_flow_file_count_limited_by_bytes(make_runner: RunnerFactory) -> None:
    """NiFi: TestControlRate.testDataOrFlowFileCountLimitedByBytes."""
    runner = make_runner("ControlRate")
    runner.set_property(CRITERIA, "data rate or flowfile count")
    runner.set_property(TIME_PERIOD, ONE_SECOND_TIME_PERIOD)
    runner.set_property(MAX_DATA_RATE, "22 B")  # the data rate throttles first
    runner.set_property(MAX_COUNT_RATE, "3")
    for i in range(1, 4):
        runner.enqueue(f"test data {i}")
    runner.run(4, stop_on_finish=False)
    runner.assert_all_flowfiles_transferred("success", 2)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_not_empty()
    runner.clear_transfer_state()

    runner.run(4, stop_on_finish=False)
    runner.assert_transfer_count("success", 0)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_not_empty()
    _increment(runner, 1500)
    runner.run(4, stop_on_finish=False)
    runner.assert_all_flowfiles_transferred("success", 1)
    runner.assert_queue_empty()


def test_nifi_data_or_flow_file_count_limited_by_count(make_runner: RunnerFactory) -> None:
    """NiFi: TestControlRate.testDataOrFlowFileCountLimitedByCount."""
    runner = make_runner("ControlRate")
    runner.set_property(CRITERIA, "data rate or flowfile count")
    runner.set_property(TIME_PERIOD, ONE_SECOND_TIME_PERIOD)
    runner.set_property(MAX_DATA_RATE, "44 B")  # more than all the FlowFiles queued
    runner.set_property(MAX_COUNT_RATE, "1")  # 1 FlowFile a second
    for i in range(1, 4):
        runner.enqueue(f"test data {i}")
    runner.run(1, stop_on_finish=False)
    runner.assert_transfer_count("success", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_not_empty()

    _increment(runner, 2000)
    runner.run(1, stop_on_finish=False)
    runner.assert_transfer_count("success", 2)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_not_empty()

    _increment(runner)
    runner.run(1, stop_on_finish=False)
    runner.assert_transfer_count("success", 3)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_empty()


def test_nifi_data_or_flow_file_count_limited_by_bytes_then_count(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestControlRate.testDataOrFlowFileCountLimitedByBytesThenCount."""
    runner = make_runner("ControlRate")
    runner.set_property(CRITERIA, "data rate or flowfile count")
    runner.set_property(TIME_PERIOD, ONE_SECOND_TIME_PERIOD)
    runner.set_property(MAX_DATA_RATE, "22 B")  # the data rate throttles first
    runner.set_property(MAX_COUNT_RATE, "5")
    for content in ("test data 1", "test data 2", "test data 3", "4", "5", "6", "7", "8"):
        runner.enqueue(content)
    runner.run(10, stop_on_finish=False)
    runner.assert_transfer_count("success", 2)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_not_empty()

    # after 1 second more may go, now limited by the FlowFile count
    _increment(runner, 1500)
    runner.run(1, stop_on_finish=False)
    runner.assert_transfer_count("success", 7)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_not_empty()

    _increment(runner)
    runner.run(1, stop_on_finish=False)
    runner.assert_transfer_count("success", 8)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_empty()


def test_nifi_validate(make_runner: RunnerFactory) -> None:
    """NiFi: TestControlRate.testValidate (``clearProperties``: a new runner)."""
    runner = make_runner("ControlRate")
    runner.set_property(CRITERIA, "data rate")
    runner.assert_not_valid()  # Maximum Rate not set
    runner.set_property(MAX_RATE, "1")
    runner.assert_not_valid()  # Maximum Rate not a data size
    runner.set_property(MAX_RATE, "1 MB")
    runner.assert_valid()
    runner.set_property(MAX_DATA_RATE, "1 MB")
    runner.assert_valid()  # Maximum Data Rate ignored
    runner.remove_property(MAX_RATE)
    runner.assert_not_valid()  # Maximum Rate required for this criteria

    runner = make_runner("ControlRate")
    runner.set_property(CRITERIA, "flowfile count")
    runner.assert_not_valid()
    runner.set_property(MAX_RATE, "1 MB")
    runner.assert_not_valid()  # not an integer
    runner.set_property(MAX_RATE, "1")
    runner.assert_valid()
    runner.set_property(MAX_COUNT_RATE, "1")
    runner.assert_valid()  # Maximum FlowFile Rate ignored
    runner.remove_property(MAX_RATE)
    runner.assert_not_valid()

    runner = make_runner("ControlRate")
    runner.set_property(CRITERIA, "attribute value")
    runner.set_property(RATE_ATTRIBUTE, "count")
    runner.assert_not_valid()
    runner.set_property(MAX_RATE, "1 MB")
    runner.assert_not_valid()  # not an integer
    runner.set_property(MAX_RATE, "1")
    runner.assert_valid()
    runner.set_property(MAX_COUNT_RATE, "1")
    runner.assert_valid()  # Maximum FlowFile Rate ignored
    runner.remove_property(MAX_RATE)
    runner.assert_not_valid()
    runner.set_property(MAX_RATE, "1")
    runner.remove_property(RATE_ATTRIBUTE)
    runner.assert_not_valid()  # Rate Controlled Attribute required for this criteria

    runner = make_runner("ControlRate")
    runner.set_property(CRITERIA, "data rate or flowfile count")
    runner.set_property(MAX_DATA_RATE, "1 MB")
    runner.set_property(MAX_COUNT_RATE, "1")
    runner.set_property(MAX_COUNT_RATE, "2")
    runner.assert_valid()  # both set
    runner.remove_property(MAX_COUNT_RATE)
    runner.assert_not_valid()
    runner.set_property(MAX_COUNT_RATE, "1")
    runner.remove_property(MAX_DATA_RATE)
    runner.assert_not_valid()
    runner.set_property(MAX_DATA_RATE, "1 MB")
    runner.set_property(MAX_RATE, "1 MB")
    runner.assert_valid()  # Maximum Rate ignored
