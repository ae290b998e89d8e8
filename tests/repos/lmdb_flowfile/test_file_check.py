"""data.mdb checked against its header before LMDB maps it; LMDB's open errors, the
identity record and the event id restart of the LMDB FlowFile repository."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from flowcore.clock import ManualClock
from flowcore.errors import RepositoryDamagedError, RepositoryFullError
from flowcore.model import FlowFile, ProvenanceEvent
from flowcore.repository import QueuedFlowFile, RepositoryUpdate
from flowcore.repository.identity import RepositoryIdentity
from flowcore.settings import EngineSettings
from repos.lmdb_flowfile.file_check import inspect
from repos.lmdb_flowfile.repository import LmdbFlowFileRepository

REPO_ROOT = Path(__file__).resolve().parents[3]
PAGE = 4096


def flowfile(ident: int) -> FlowFile:
    return FlowFile(
        id=ident,
        attributes={"uuid": f"uuid-{ident}", "filler": "x" * 200},
        claim=None,
        claim_offset=0,
        size=0,
        entry_date=0,
        lineage_start_date=0,
    )


def event(uuid: str) -> ProvenanceEvent:
    return ProvenanceEvent(
        event_time=1, event_type="CREATE", flowfile_uuid=uuid, component_id="c", component_type="T"
    )


@pytest.fixture
def filled(settings: EngineSettings) -> Path:
    """A closed repository of 2,000 FlowFiles and 5 journaled events; its data.mdb."""
    repo = LmdbFlowFileRepository(settings, ManualClock())
    repo.commit(
        RepositoryUpdate(
            puts=[QueuedFlowFile("q", i, flowfile(i)) for i in range(2000)],
            events=[event(f"uuid-{i}") for i in range(5)],
        )
    )
    repo.close()
    return settings.flowfile_repository_dir / "data.mdb"


def test_a_sound_file_reaches_the_last_page_its_header_names(filled: Path) -> None:
    state = inspect(filled)
    assert state.exists and state.page_size == PAGE
    assert state.used_bytes == filled.stat().st_size
    assert state.last_txnid >= 1


def test_an_absent_or_empty_file_is_reported_as_such(tmp_path: Path) -> None:
    assert not inspect(tmp_path / "data.mdb").exists
    (tmp_path / "data.mdb").write_bytes(b"")
    assert inspect(tmp_path / "data.mdb").empty


@pytest.mark.parametrize(
    ("keep", "reason"),
    [(100, "shorter than an LMDB header"), (PAGE + 10, "shorter than its two header pages")],
)
def test_a_file_cut_inside_its_header_is_refused(filled: Path, keep: int, reason: str) -> None:
    os.truncate(filled, keep)
    with pytest.raises(ValueError, match=reason):
        inspect(filled)


def test_a_file_cut_after_its_header_is_refused_with_both_sizes(filled: Path) -> None:
    size = filled.stat().st_size
    os.truncate(filled, size - PAGE)
    with pytest.raises(ValueError, match=f"{size - PAGE} bytes, but its header says .* {size}"):
        inspect(filled)


@pytest.mark.parametrize("page", [0, 1])
def test_an_overwritten_meta_page_is_refused(filled: Path, page: int) -> None:
    with open(filled, "r+b") as handle:
        handle.seek(page * PAGE)
        handle.write(b"\x5a" * 64)
    with pytest.raises(ValueError, match=f"header page {page} is not an LMDB meta page"):
        inspect(filled)


def test_opening_a_truncated_file_is_a_clear_error_not_sigbus(
    filled: Path, settings: EngineSettings
) -> None:
    os.truncate(filled, filled.stat().st_size // 2)
    program = (
        "import sys\n"
        "from pathlib import Path\n"
        "from flowcore.clock import ManualClock\n"
        "from flowcore.errors import RepositoryDamagedError\n"
        "from flowcore.settings import EngineSettings\n"
        "from repos.lmdb_flowfile.repository import LmdbFlowFileRepository\n"
        "try:\n"
        "    repo = LmdbFlowFileRepository(EngineSettings(data_dir=Path(sys.argv[1])), "
        "ManualClock())\n"
        "    repo.recover()\n"
        "except RepositoryDamagedError as exc:\n"
        "    print(exc)\n"
    )
    child = subprocess.run(
        [sys.executable, "-c", program, str(settings.data_dir)],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert child.returncode == 0, child.stderr
    assert "is damaged: it is truncated" in child.stdout
    assert f"flowcore repair --data-dir {settings.data_dir}" in child.stdout


def test_a_max_map_size_below_the_file_is_refused_naming_the_setting(
    filled: Path, settings_factory: Callable[..., EngineSettings]
) -> None:
    small = settings_factory(flowfile_repository={"map_size": "64 KB", "max_map_size": "64 KB"})
    with pytest.raises(
        RepositoryFullError, match=r"raise flowfile_repository\.max_map_size"
    ) as full:
        LmdbFlowFileRepository(small, ManualClock())
    assert full.value.setting == "flowfile_repository.max_map_size"


def test_a_map_size_below_the_file_opens_at_the_size_the_map_grew_to(
    filled: Path, settings_factory: Callable[..., EngineSettings]
) -> None:
    small = settings_factory(flowfile_repository={"map_size": "64 KB"})
    repo = LmdbFlowFileRepository(small, ManualClock())
    try:
        assert repo.recover().queues
    finally:
        repo.close()


def test_corrupted_pages_are_reported_as_damage(filled: Path, settings: EngineSettings) -> None:
    with open(filled, "r+b") as handle:
        handle.seek(2 * PAGE)
        handle.write(bytes(filled.stat().st_size - 2 * PAGE))  # every page but the metas
    with pytest.raises(RepositoryDamagedError, match="MDB_CORRUPTED") as damaged:
        repo = LmdbFlowFileRepository(settings, ManualClock())
        repo.recover()
    assert damaged.value.repository == "FlowFile"
    (probe,) = LmdbFlowFileRepository.probe(settings)
    assert probe.damaged is not None and "MDB_CORRUPTED" in probe.damaged


def test_probe_reads_identity_and_event_ids_without_changing_anything(
    filled: Path, settings: EngineSettings
) -> None:
    (probe,) = LmdbFlowFileRepository.probe(settings)
    assert (probe.identity, probe.holds_data) == (None, True)
    assert (probe.next_event_id, probe.journal_start) == (5, 0)
    repo = LmdbFlowFileRepository(settings, ManualClock())
    repo.write_identity(RepositoryIdentity("node-a", 7), durable=True)
    repo.close()
    before = filled.read_bytes()
    (probe,) = LmdbFlowFileRepository.probe(settings)
    assert probe.identity == RepositoryIdentity("node-a", 7)
    assert filled.read_bytes() == before


def test_probe_of_a_missing_file_creates_nothing(settings: EngineSettings) -> None:
    (probe,) = LmdbFlowFileRepository.probe(settings)
    assert probe.missing and not settings.flowfile_repository_dir.exists()


def test_restart_event_ids_drops_what_lies_below_and_continues_above(
    filled: Path, settings: EngineSettings, closing: Any
) -> None:
    assert LmdbFlowFileRepository.restart_event_ids(settings, 3) == 3
    repo = closing(LmdbFlowFileRepository(settings, ManualClock()))
    assert [e.event_id for e in repo.read_journal(-1, 100)] == [3, 4]
    receipt = repo.commit(RepositoryUpdate(events=[event("later")]))
    assert list(receipt.event_ids) == [5]
    repo.close()
    assert LmdbFlowFileRepository.restart_event_ids(settings, 10) == 3
    repo = closing(LmdbFlowFileRepository(settings, ManualClock()))
    assert repo.journal_size() == 0
    assert list(repo.commit(RepositoryUpdate(events=[event("next")])).event_ids) == [10]
