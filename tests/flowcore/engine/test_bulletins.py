"""Bulletins: the bounded ring, its file, and what a running node turns into bulletins."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from flowcore.clock import ManualClock
from flowcore.engine.bulletins import BULLETIN_FILE, BulletinBoard, read_bulletins
from flowcore.engine.node import Node
from flowcore.engine.scheduler import DeterministicScheduler
from flowcore.flow import parse_flow
from flowcore.processor import ProcessContext, Processor, Relationship, processor
from flowcore.session import ProcessSession
from flowcore.settings import EngineSettings


@processor("BulletinTestFailing")
class Failing(Processor):
    """Raises on every trigger: the engine rolls back and reports the error."""

    relationships: ClassVar[list[Relationship]] = [Relationship("success")]

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is not None:
            raise ValueError(f"cannot handle {flowfile.uuid}")


# -- the board ------------------------------------------------------------------------------


def test_the_ring_keeps_the_newest_and_pages_with_after_and_limit(tmp_path: Path) -> None:
    clock = ManualClock(1_000)
    board = BulletinBoard(clock, None, capacity=3)
    for n in range(5):
        clock.advance(0.01)
        board.add("WARNING", "Log Message", "PutFile", "put", "put", f"message {n}")

    kept = board.list()
    assert [b.id for b in kept] == [2, 3, 4]
    assert [b.time_ms for b in kept] == [1_030, 1_040, 1_050]
    assert [b.id for b in board.list(after=2)] == [3, 4]
    assert [b.id for b in board.list(limit=1)] == [4]
    assert board.list(after=4) == []


def test_the_file_survives_a_restart_and_stays_bounded(tmp_path: Path) -> None:
    path = tmp_path / BULLETIN_FILE
    board = BulletinBoard(ManualClock(), path, capacity=2)
    for n in range(5):  # the fifth append rewrites the file down to the newest two
        board.add("ERROR", "Log Message", "PutFile", "put", "put", f"m{n}")

    assert len(path.read_text().splitlines()) <= 4
    with path.open("a") as out:
        out.write('{"id": 9, "torn')  # a crash mid-write leaves half a line
    again = BulletinBoard(ManualClock(), path, capacity=2)

    assert [b.message for b in again.list()] == ["m3", "m4"]
    assert again.add("ERROR", "Log Message", "PutFile", "put", "put", "m5").id == 5
    assert [b.id for b in read_bulletins(path)][-3:] == [3, 4, 5]


# -- a running node -------------------------------------------------------------------------


@pytest.fixture
def make_node(tmp_path: Path) -> Iterator[Any]:
    nodes: list[Node] = []

    def build(flow: dict[str, Any], clock: ManualClock) -> Node:
        settings = EngineSettings.model_validate({"data_dir": tmp_path / "data"})
        node = Node.from_flow(settings, parse_flow(flow), clock)
        nodes.append(node)
        return node

    yield build
    for node in nodes:
        node.close()


def test_a_processor_error_becomes_a_bulletin(make_node: Any) -> None:
    clock = ManualClock(5_000)
    node = make_node(
        {
            "flow": {
                "name": "failing",
                "processors": {
                    "gen": {"type": "GenerateFlowFile", "schedule": {"max_runs": 1}},
                    "broken": {"type": "BulletinTestFailing", "auto_terminate": ["success"]},
                },
                "connections": [{"from": "gen", "relationships": ["success"], "to": "broken"}],
            }
        },
        clock,
    )
    DeterministicScheduler(node).run_once()

    (bulletin,) = node.bulletins.list()
    assert bulletin.level == "ERROR"
    assert (bulletin.component_id, bulletin.component_type) == ("broken", "BulletinTestFailing")
    assert bulletin.message.startswith("BulletinTestFailing[broken] failed to process: ")
    assert "cannot handle" in bulletin.message and "Traceback" not in bulletin.message
    assert bulletin.time_ms == 5_000


def test_failure_routing_with_a_reason_and_the_warning_become_bulletins(
    make_node: Any, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "taken.txt").write_text("already here")
    node = make_node(
        {
            "flow": {
                "name": "conflict",
                "processors": {
                    "gen": {
                        "type": "GenerateFlowFile",
                        "schedule": {"max_runs": 1},
                    },
                    "name": {"type": "UpdateAttribute", "properties": {"filename": "taken.txt"}},
                    "put": {
                        "type": "PutFile",
                        "properties": {
                            "Directory": str(out),
                            "Conflict Resolution Strategy": "fail",
                        },
                        "auto_terminate": ["success"],
                    },
                    "failed": {
                        "type": "Funnel",
                        "run_state": "STOPPED",
                        "auto_terminate": ["success"],
                    },
                },
                "connections": [
                    {"from": "gen", "relationships": ["success"], "to": "name"},
                    {"from": "name", "relationships": ["success"], "to": "put"},
                    {"from": "put", "relationships": ["failure"], "to": "failed"},
                ],
            }
        },
        ManualClock(),
    )
    DeterministicScheduler(node).run_until_idle()

    bulletins = node.bulletins.list()
    assert {b.component_id for b in bulletins} == {"put"}
    warning = [b for b in bulletins if b.category == "Log Message"]
    routed = [b for b in bulletins if b.category == "Routed to failure"]
    assert [b.level for b in warning] == ["WARNING"]
    assert "routing to failure" in warning[0].message
    assert len(routed) == 1 and routed[0].level == "ERROR"
    assert routed[0].component_type == "PutFile"
    assert "routed to failure" in routed[0].message and "taken.txt" in routed[0].message
    # The same bulletins are on disk for `flowcore bulletins` on the stopped node.
    node.close()
    on_disk = read_bulletins(tmp_path / "data" / BULLETIN_FILE)
    assert [b.id for b in on_disk] == [b.id for b in bulletins]


def test_a_repository_warning_becomes_a_bulletin(make_node: Any) -> None:
    node = make_node({"flow": {"name": "empty", "processors": {}}}, ManualClock(7))

    logging.getLogger("repos.duckdb_provenance.store").warning("provenance checkpoint failed")
    logging.getLogger("flowcore.session").warning("not about a component or repository")

    (bulletin,) = node.bulletins.list()
    assert bulletin.category == "Provenance Repository"
    assert bulletin.component_type == "FlowController"
    assert (bulletin.level, bulletin.message, bulletin.time_ms) == (
        "WARNING",
        "provenance checkpoint failed",
        7,
    )


def test_a_closed_node_stops_collecting(make_node: Any) -> None:
    node = make_node({"flow": {"name": "empty", "processors": {}}}, ManualClock())
    node.close()

    logging.getLogger("repos.lmdb_flowfile").warning("after close")

    assert node.bulletins.list() == []
