"""Lookup services: entries, file formats, reload on change by the injected clock."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from flowcore.errors import ConfigurationError
from flowcore.testing import TestRunner
from processors.record.lookup import (
    LookupService,
    PropertiesFileLookupService,
    SimpleCsvFileLookupService,
    SimpleKeyValueLookupService,
    parse_properties,
)


def _runner(tmp_path: Path) -> TestRunner:
    from flowcore.settings import EngineSettings

    return TestRunner("UpdateAttribute", settings=EngineSettings(data_dir=tmp_path / "data"))


def _touch_later(path: Path, text: str) -> None:
    before = path.stat().st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(before + 5_000_000_000, before + 5_000_000_000))


def test_key_value_entries(tmp_path: Path) -> None:
    runner = _runner(tmp_path)
    service = runner.add_controller_service(
        "kv", SimpleKeyValueLookupService, {"a": "1", "b": "two"}
    )
    assert isinstance(service, LookupService)
    assert service.required_keys == frozenset({"key"})
    assert service.lookup({"key": "a"}) == "1"
    assert service.lookup({"key": "b"}) == "two"
    assert service.lookup({"key": "c"}) is None
    assert service.lookup({"key": " "}) is None
    assert service.lookup({}) is None


def test_properties_file(tmp_path: Path) -> None:
    file = tmp_path / "t.properties"
    file.write_text("# comment\n! also\na=1\nb : two\nc three\nlong = x\\\n   y\nesc=\\u0041\\t\n")
    runner = _runner(tmp_path)
    service = runner.add_controller_service(
        "p", PropertiesFileLookupService, {"Properties File": str(file)}
    )
    assert isinstance(service, PropertiesFileLookupService)
    assert service.table == {"a": "1", "b": "two", "c": "three", "long": "xy", "esc": "A\t"}


def test_parse_properties_escaped_separator() -> None:
    assert parse_properties("a\\=b=c\n") == {"a=b": "c"}


def test_csv_file_reloads_when_changed_after_the_watch_interval(tmp_path: Path) -> None:
    file = tmp_path / "t.csv"
    file.write_text("k,v,other\nx,1,a\ny,2,b\n")
    runner = _runner(tmp_path)
    service = runner.add_controller_service(
        "csv",
        SimpleCsvFileLookupService,
        {"CSV File": str(file), "Lookup Key Column": "k", "Lookup Value Column": "v"},
    )
    assert service.lookup({"key": "x"}) == "1"  # type: ignore[attr-defined]
    _touch_later(file, "k,v,other\nx,10,a\nz,3,c\n")
    assert service.lookup({"key": "x"}) == "1"  # type: ignore[attr-defined]
    runner.advance_time(30)
    assert service.lookup({"key": "x"}) == "10"  # type: ignore[attr-defined]
    assert service.lookup({"key": "y"}) is None  # type: ignore[attr-defined]


def test_csv_tab_format_and_duplicates(tmp_path: Path) -> None:
    file = tmp_path / "t.tsv"
    file.write_text("k\tv\nx\t1\nx\t2\n")
    runner = _runner(tmp_path)
    service = runner.add_controller_service(
        "csv",
        SimpleCsvFileLookupService,
        {
            "CSV File": str(file),
            "CSV Format": "TDF",
            "Lookup Key Column": "k",
            "Lookup Value Column": "v",
        },
    )
    assert service.lookup({"key": "x"}) == "2"  # type: ignore[attr-defined]
    with pytest.raises(ConfigurationError, match="Duplicate lookup key encountered: x"):
        runner.add_controller_service(
            "strict",
            SimpleCsvFileLookupService,
            {
                "CSV File": str(file),
                "CSV Format": "TDF",
                "Lookup Key Column": "k",
                "Lookup Value Column": "v",
                "Ignore Duplicates": "false",
            },
        )


def test_csv_missing_file_is_invalid(tmp_path: Path) -> None:
    runner = _runner(tmp_path)
    with pytest.raises(ConfigurationError, match="does not exist"):
        runner.add_controller_service(
            "csv",
            SimpleCsvFileLookupService,
            {
                "CSV File": str(tmp_path / "none.csv"),
                "Lookup Key Column": "k",
                "Lookup Value Column": "v",
            },
        )


def test_csv_failed_reload_keeps_table_and_fails_lookup(tmp_path: Path) -> None:
    from processors.record.lookup import LookupFailureError

    file = tmp_path / "t.csv"
    file.write_text("k,v\nx,1\n")
    runner = _runner(tmp_path)
    service = runner.add_controller_service(
        "csv",
        SimpleCsvFileLookupService,
        {"CSV File": str(file), "Lookup Key Column": "k", "Lookup Value Column": "v"},
    )
    _touch_later(file, "k,v\n,1\n")
    runner.advance_time(31)
    with pytest.raises(LookupFailureError, match="Empty lookup key"):
        service.lookup({"key": "x"})  # type: ignore[attr-defined]
    assert service.table == {"x": "1"}  # type: ignore[attr-defined]


def test_services_without_user_defined_properties_reject_unknown_ones(tmp_path: Path) -> None:
    file = tmp_path / "t.properties"
    file.write_text("a=1\n")
    runner = _runner(tmp_path)
    with pytest.raises(ConfigurationError, match="'extra' is not a supported property"):
        runner.add_controller_service(
            "p", PropertiesFileLookupService, {"Properties File": str(file), "extra": "x"}
        )
