"""``repository_fault``: which errors a processor must let through instead of failing data."""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.csv as pa_csv

from flowcore.errors import (
    ContentCorruptedError,
    ContentNotFoundError,
    ProcessException,
    RepositoryFullError,
    RepositoryUnavailableError,
    repository_fault,
)


def full() -> RepositoryFullError:
    return RepositoryFullError("full", repository="content", setting="content.containers")


def test_repository_errors_are_faults_but_missing_content_is_not() -> None:
    error = full()
    assert repository_fault(error) is error
    unavailable = RepositoryUnavailableError("down", repository="content")
    assert repository_fault(unavailable) is unavailable
    assert repository_fault(ContentNotFoundError("gone")) is None
    assert repository_fault(ContentCorruptedError("damaged")) is None
    assert repository_fault(ValueError("bad data")) is None


def test_a_wrapped_fault_is_found_through_cause_and_context() -> None:
    error = full()
    try:
        try:
            raise error
        except RepositoryFullError as exc:
            raise OSError("write failed") from exc
    except OSError as wrapped:
        assert repository_fault(wrapped) is error
    try:
        try:
            raise error
        except RepositoryFullError:
            raise ProcessException("while writing")  # noqa: B904 - the implicit context
    except ProcessException as wrapped:
        assert repository_fault(wrapped) is error


def test_a_fault_raised_in_a_pyarrow_writers_sink_is_found() -> None:
    error = full()

    class Sink(io.RawIOBase):
        def writable(self) -> bool:
            return True

        def write(self, data: object, /) -> int:
            raise error

    table = pa.table({"a": [1, 2, 3]})
    try:
        with pa_csv.CSVWriter(Sink(), table.schema) as writer:
            writer.write_table(table)
    except Exception as exc:  # whatever pyarrow makes of it
        assert repository_fault(exc) is error
    else:
        raise AssertionError("the sink's error was swallowed")
