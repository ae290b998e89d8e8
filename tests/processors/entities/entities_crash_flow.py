"""A flow for the MergeEntities kill -9 test, importable by the test and run as the child.

``source`` (EntityChangeSource, defined here) emits FLOWFILES FlowFiles of entity changes,
one dataset each (A, B, C in turn), deterministically from their sequence number;
``merge`` (MergeEntities) resolves them BATCH at a time; ``merged`` waits in the
``emitted`` queue in front of a stopped funnel, so every entity ever emitted can be read
back; ``original`` is auto-terminated.

Run as ``python entities_crash_flow.py DATA_DIR [PHASE]``: it prints ``ready`` and runs
until killed (or, given a commit phase, exits hard at that phase of the 25th commit).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from flowcore.clock import Clock, SystemClock
from flowcore.engine import Node
from flowcore.flow import parse_flow
from flowcore.processor import (
    ProcessContext,
    Processor,
    Relationship,
    Scheduling,
    processor,
)
from flowcore.session import ProcessSession
from flowcore.settings import EngineSettings
from tests.crash_support import crash_after_commits, run_until_killed

FLOWFILES = 600
PER_FLOWFILE = 25
SEED = 20260521
DATASETS = "A a, B b, C c"
EQUALITY = '[["eq", "a.k", "b.k"], ["eq", "b.m", ["lower", "c.m"]]]'


def dataset_of(seq: int) -> str:
    return "ABC"[seq % 3]


def changes(seq: int) -> list[dict[str, Any]]:
    """The entities of FlowFile ``seq``: ids from a small pool, so they change and merge."""
    rng = random.Random(SEED * 1000 + seq)
    prefix = dataset_of(seq).lower()
    entities = []
    for _ in range(PER_FLOWFILE):
        entity: dict[str, Any] = {"_id": f"{prefix}{rng.randrange(60)}"}
        if rng.random() < 0.8:
            entity["k"] = rng.randrange(40)
        if rng.random() < 0.6:
            entity["m"] = rng.choice(["x", "X", "y", "Y", "z"]) + str(rng.randrange(8))
        if rng.random() < 0.1:
            entity["_deleted"] = True
        entities.append(entity)
    return entities


SUCCESS = Relationship("success", "Entity changes")


@processor("EntityChangeSource")
class EntityChangeSource(Processor):
    """Emits the test's entity FlowFiles, one per trigger; ``next`` in LOCAL state."""

    scheduling = Scheduling(input_required=False)
    relationships = (SUCCESS,)

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        state = session.get_state()
        seq = int(state.get("next", "0"))
        if seq >= FLOWFILES:
            context.yield_processor()
            return
        flowfile = session.create()
        flowfile = session.write(flowfile, json.dumps(changes(seq)).encode())
        flowfile = session.put_all_attributes(
            flowfile, {"dataset": dataset_of(seq), "seq": str(seq)}
        )
        session.transfer(flowfile, SUCCESS)
        session.set_state({"next": str(seq + 1)})


FLOW: dict[str, Any] = {
    "flow": {
        "name": "merge-entities-crash",
        "processors": {
            "source": {"type": "EntityChangeSource"},
            "merge": {
                "type": "MergeEntities",
                "properties": {"Datasets": DATASETS, "Equality": EQUALITY, "Batch Size": "4"},
                "auto_terminate": ["original", "failure"],
            },
            "hold": {"type": "Funnel", "run_state": "STOPPED", "auto_terminate": ["success"]},
        },
        "connections": [
            {"from": "source", "relationships": ["success"], "to": "merge", "name": "incoming"},
            {"from": "merge", "relationships": ["merged"], "to": "hold", "name": "emitted"},
        ],
    }
}


def settings(data_dir: Path) -> EngineSettings:
    return EngineSettings.model_validate({"data_dir": data_dir, "durability": "process"})


def open_node(data_dir: Path, clock: Clock | None = None) -> Node:
    return Node.from_flow(settings(data_dir), parse_flow(FLOW), clock or SystemClock())


def main() -> None:
    node = open_node(Path(sys.argv[1]))
    if len(sys.argv) > 2:
        crash_after_commits(node, sys.argv[2], 25)
    run_until_killed(node, checkpoint_every=10)


if __name__ == "__main__":
    main()
