"""The data directory's identity: damaged, missing or foreign repositories refused at start
with nothing changed, ``flowcore repair`` then start losing nothing that still existed,
and no false refusal after a crash at any step of start-up.

Damage is done between runs to the real files (LMDB, DuckDB, content containers).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from flowcore.clock import ManualClock
from flowcore.engine import EnqueueItem, Node
from flowcore.engine import repair as repairing
from flowcore.engine.data_identity import (
    examine,
    probe_repositories,
    read_node_record,
)
from flowcore.errors import RepositoryDamagedError, RepositoryFullError
from flowcore.flow import parse_flow
from flowcore.repository import ProvenanceQuery
from flowcore.settings import EngineSettings

SettingsFactory = Callable[..., EngineSettings]
REPO_ROOT = Path(__file__).resolve().parents[3]
CHILD = Path(__file__).with_name("identity_child.py")


def port_flow() -> dict[str, Any]:
    """in -> (queued while ``tag`` is stopped) tag -> auto-terminated."""
    return {
        "flow": {
            "name": "identity",
            "input_ports": ["in"],
            "processors": {
                "tag": {
                    "type": "UpdateAttribute",
                    "properties": {"stage": "tagged"},
                    "run_state": "STOPPED",
                    "auto_terminate": ["success"],
                }
            },
            "connections": [{"from": "in", "to": "tag", "name": "incoming"}],
        }
    }


def open_node(settings: EngineSettings, clock: ManualClock) -> Node:
    return Node.from_flow(settings, parse_flow(port_flow()), clock)


def enqueue(settings: EngineSettings, clock: ManualClock, *payloads: bytes) -> None:
    node = open_node(settings, clock)
    try:
        node.enqueue("in", [EnqueueItem(p, {"name": p.decode()}) for p in payloads])
        node.index_provenance()
    finally:
        node.close()


def queued(node: Node) -> list[str]:
    """The names of the queued FlowFiles (their content may be another node's)."""
    return [r.flowfile.attributes["name"] for r in node.connections["incoming"].queue.listing()]


def event_ids(node: Node) -> list[int]:
    node.index_provenance()
    return sorted(e.event_id for e in node.provenance.search(ProvenanceQuery(limit=1000)))


def disk(data_dir: Path) -> dict[str, bytes]:
    """Every file's bytes (LMDB's lock file aside: it holds only the reader table)."""
    return {
        str(p.relative_to(data_dir)): p.read_bytes()
        for p in sorted(data_dir.rglob("*"))
        if p.is_file() and p.name != "lock.mdb"
    }


def data_mdb(settings: EngineSettings) -> Path:
    return settings.flowfile_repository_dir / "data.mdb"


def duckdb_file(settings: EngineSettings) -> Path:
    return settings.provenance_dir / "provenance.duckdb"


@pytest.fixture
def populated(settings: EngineSettings, clock: ManualClock) -> EngineSettings:
    """Three FlowFiles queued, their three RECEIVE events indexed (ids 0..2)."""
    enqueue(settings, clock, b"one", b"two", b"three")
    return settings


def other_node(settings_factory: SettingsFactory, tmp_path: Path, clock: ManualClock) -> Path:
    other = settings_factory(data_dir=tmp_path / "other")
    enqueue(other, clock, b"elsewhere")
    return other.data_dir


# -- damage ---------------------------------------------------------------------------


def delete_data_mdb(settings: EngineSettings, _: Path) -> None:
    data_mdb(settings).unlink()


def empty_data_mdb(settings: EngineSettings, _: Path) -> None:
    data_mdb(settings).write_bytes(b"")


def truncate_data_mdb(settings: EngineSettings, _: Path) -> None:
    path = data_mdb(settings)
    os.truncate(path, path.stat().st_size // 2)


def delete_duckdb(settings: EngineSettings, _: Path) -> None:
    for path in settings.provenance_dir.iterdir():
        path.unlink()


def garble_duckdb(settings: EngineSettings, _: Path) -> None:
    with open(duckdb_file(settings), "r+b") as handle:
        handle.seek(100)
        handle.write(b"\xa5" * 512)


def truncate_duckdb(settings: EngineSettings, _: Path) -> None:
    path = duckdb_file(settings)
    os.truncate(path, path.stat().st_size // 2)


def foreign_data_mdb(settings: EngineSettings, other: Path) -> None:
    shutil.copy(other / "flowfile_repository" / "data.mdb", data_mdb(settings))


def foreign_duckdb(settings: EngineSettings, other: Path) -> None:
    shutil.copy(other / "provenance_repository" / "provenance.duckdb", duckdb_file(settings))


def foreign_container(settings: EngineSettings, other: Path) -> None:
    name = "flowcore-container.json"
    shutil.copy(other / "content_repository" / name, settings.content_containers[0] / name)


DAMAGE: dict[str, tuple[Callable[[EngineSettings, Path], None], str, tuple[str, ...]]] = {
    "data.mdb deleted": (delete_data_mdb, "FlowFile", ("data.mdb is missing",)),
    "data.mdb emptied": (empty_data_mdb, "FlowFile", ("data.mdb is missing",)),
    "data.mdb truncated": (truncate_data_mdb, "FlowFile", ("damaged", "truncated")),
    "provenance.duckdb deleted": (delete_duckdb, "provenance", ("provenance.duckdb is missing",)),
    "DuckDB block garbled": (garble_duckdb, "provenance", ("damaged", "Corrupt")),
    "provenance.duckdb truncated": (truncate_duckdb, "provenance", ("damaged",)),
    "another node's data.mdb": (foreign_data_mdb, "FlowFile", ("another data directory",)),
    "another node's provenance": (foreign_duckdb, "provenance", ("another data directory",)),
    "another node's container": (foreign_container, "content", ("another data directory",)),
}


@pytest.mark.parametrize("case", list(DAMAGE))
def test_a_damaged_missing_or_foreign_repository_is_refused_and_nothing_changes(
    case: str,
    populated: EngineSettings,
    settings_factory: SettingsFactory,
    tmp_path: Path,
    clock: ManualClock,
) -> None:
    damage, repository, fragments = DAMAGE[case]
    damage(populated, other_node(settings_factory, tmp_path, clock))
    before = disk(populated.data_dir)

    with pytest.raises(RepositoryDamagedError) as refused:
        open_node(populated, clock)

    message = str(refused.value)
    assert refused.value.repository == repository
    for fragment in fragments:
        assert fragment in message
    assert f"flowcore repair --data-dir {populated.data_dir}" in message
    assert disk(populated.data_dir) == before


@pytest.mark.parametrize("case", list(DAMAGE))
def test_repair_then_start_keeps_what_still_existed_and_events_continue(
    case: str,
    populated: EngineSettings,
    settings_factory: SettingsFactory,
    tmp_path: Path,
    clock: ManualClock,
) -> None:
    damage, repository, _ = DAMAGE[case]
    damage(populated, other_node(settings_factory, tmp_path, clock))
    before = disk(populated.data_dir)
    planned = repairing.plan(populated, clock)
    assert planned.needed and planned.descriptions
    assert disk(populated.data_dir) == before  # planning changes nothing

    planned.apply()

    node = open_node(populated, clock)
    try:
        flowfile_repository_lost = case.startswith("data.mdb") or case == "another node's data.mdb"
        if flowfile_repository_lost:
            expected = ["elsewhere"] if case == "another node's data.mdb" else []
        else:
            expected = ["one", "two", "three"]
        assert sorted(queued(node)) == sorted(expected)
        known = event_ids(node)
        node.enqueue("in", [EnqueueItem(b"after repair")])
        after = event_ids(node)
        (new_event,) = set(after) - set(known)
        assert new_event > max([2, *known])  # indexed, never discarded below the mark
        if repository != "provenance":
            assert {0, 1, 2} <= set(known)  # provenance that existed is kept
    finally:
        node.close()
    assert repairing.plan(populated, clock).needed is False


def test_an_old_copy_of_data_mdb_is_refused_then_adopted_by_repair(
    populated: EngineSettings, clock: ManualClock, tmp_path: Path
) -> None:
    old = tmp_path / "old-data.mdb"
    shutil.copy(data_mdb(populated), old)
    enqueue(populated, clock, b"four")  # a later start: a new generation, events 3
    shutil.copy(old, data_mdb(populated))
    before = disk(populated.data_dir)

    with pytest.raises(RepositoryDamagedError, match="an older copy: generation 1") as refused:
        open_node(populated, clock)
    assert "already indexed through id 3" in str(refused.value)
    assert disk(populated.data_dir) == before

    repairing.plan(populated, clock).apply()
    node = open_node(populated, clock)
    try:
        assert sorted(queued(node)) == ["one", "three", "two"]
        node.enqueue("in", [EnqueueItem(b"five")])
        assert event_ids(node) == [0, 1, 2, 3, 4]
    finally:
        node.close()


def test_event_ids_below_the_indexed_mark_are_refused_within_one_generation(
    settings: EngineSettings, clock: ManualClock, tmp_path: Path
) -> None:
    node = open_node(settings, clock)
    copy = tmp_path / "copy.mdb"
    try:
        node.enqueue("in", [EnqueueItem(b"one")])
        node.index_provenance()
        node.checkpoint()
        shutil.copy(data_mdb(settings), copy)  # taken during the run: same generation
        node.enqueue("in", [EnqueueItem(b"two"), EnqueueItem(b"three")])
        node.index_provenance()
    finally:
        node.close()
    shutil.copy(copy, data_mdb(settings))

    with pytest.raises(RepositoryDamagedError, match="new events would be discarded"):
        open_node(settings, clock)


def test_a_fresh_data_directory_initialises_and_each_start_raises_the_generation(
    settings: EngineSettings, clock: ManualClock
) -> None:
    enqueue(settings, clock, b"one")
    first = read_node_record(settings.data_dir)
    assert first is not None and first.generation == 1 and not first.accepted
    enqueue(settings, clock, b"two")
    second = read_node_record(settings.data_dir)
    assert second is not None and (second.node_id, second.generation) == (first.node_id, 2)
    probes = probe_repositories(settings)
    assert [p.repository for p in probes] == ["FlowFile", "content", "provenance"]
    assert {p.identity for p in probes} == {probes[0].identity}
    assert probes[0].identity is not None and probes[0].identity.generation == 2
    assert examine(second, probes) == []


def test_a_data_directory_from_before_identities_is_adopted(
    populated: EngineSettings, clock: ManualClock
) -> None:
    strip_identities(populated)
    node = open_node(populated, clock)
    try:
        assert sorted(queued(node)) == ["one", "three", "two"]
    finally:
        node.close()
    assert read_node_record(populated.data_dir) is not None


def test_a_deleted_repository_is_refused_even_before_identities(
    populated: EngineSettings, clock: ManualClock
) -> None:
    strip_identities(populated)
    data_mdb(populated).unlink()
    with pytest.raises(RepositoryDamagedError, match=r"missing .* while the other repositories"):
        open_node(populated, clock)


def strip_identities(settings: EngineSettings) -> None:
    """Make the directory look as one written before identities existed."""
    import duckdb
    import lmdb

    (settings.data_dir / "node.json").unlink()
    (settings.content_containers[0] / "flowcore-container.json").unlink()
    env = lmdb.open(str(settings.flowfile_repository_dir), max_dbs=8)
    with env.begin(write=True) as txn:
        txn.delete(b"identity", db=env.open_db(b"meta", txn=txn))
    env.close()
    with duckdb.connect(str(duckdb_file(settings))) as database:
        database.execute("ALTER TABLE provenance_meta DROP COLUMN node_id")
        database.execute("ALTER TABLE provenance_meta DROP COLUMN generation")


def test_a_max_map_size_below_what_data_mdb_holds_is_refused_naming_the_setting(
    populated: EngineSettings, clock: ManualClock
) -> None:
    size = data_mdb(populated).stat().st_size
    small = populated.model_copy(
        update={
            "flowfile_repository": populated.flowfile_repository.model_copy(
                update={"map_size": f"{size // 2} B", "max_map_size": f"{size // 2} B"}
            )
        }
    )
    with pytest.raises(RepositoryFullError) as refused:
        open_node(small, clock)
    assert refused.value.setting == "flowfile_repository.max_map_size"


def test_a_new_content_container_in_the_settings_is_initialised(
    populated: EngineSettings, clock: ManualClock, tmp_path: Path
) -> None:
    containers = [populated.content_containers[0], tmp_path / "second"]
    wider = populated.model_copy(
        update={"content": populated.content.model_copy(update={"containers": containers})}
    )
    node = open_node(wider, clock)
    node.close()
    record = json.loads((tmp_path / "second" / "flowcore-container.json").read_text())
    assert record["container"] == 1
    shutil.rmtree(tmp_path / "second")
    with pytest.raises(RepositoryDamagedError, match=r"content container 1 .* is missing"):
        open_node(wider, clock)


# -- crashes during start-up ----------------------------------------------------------

PHASES = ["begun", "marked FlowFile", "marked content", "marked provenance", "finished"]


@pytest.mark.parametrize(
    ("phase", "durability"),
    [*((phase, "process") for phase in PHASES), ("marked content", "power")],
)
def test_a_kill_at_any_step_of_start_up_never_refuses_the_next_start(
    phase: str, durability: str, settings_factory: SettingsFactory, clock: ManualClock
) -> None:
    settings = settings_factory(durability=durability)
    enqueue(settings, clock, b"one", b"two")
    for _ in range(2):  # twice: the interrupted start-up after an interrupted one
        child = subprocess.run(
            [sys.executable, str(CHILD), str(settings.data_dir), durability, phase],
            capture_output=True,
            text=True,
            cwd=REPO_ROOT,
            env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"},
            check=False,
        )
        assert child.returncode == -9, child.stderr
    node = open_node(settings, clock)
    try:
        assert sorted(queued(node)) == ["one", "two"]
        node.enqueue("in", [EnqueueItem(b"three")])
        assert event_ids(node) == [0, 1, 2]
    finally:
        node.close()
    record = read_node_record(settings.data_dir)
    assert record is not None and not record.accepted
