"""ShuffledSequence: every pair is emitted once, also with several concurrent tasks."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from flowcore.settings import EngineSettings
from flowcore.testing import TestRunner


def test_concurrent_tasks_emit_every_pair_once(tmp_path: Path, switching_often: None) -> None:
    """The tasks share the progress (``next`` in the state); the interpreter switches
    threads every microsecond so that without a guard two tasks read the same progress
    (they did: a batch emitted twice)."""
    with TestRunner("ShuffledSequence", settings=EngineSettings(data_dir=tmp_path)) as runner:
        runner.set_property("Group Count", "20")
        runner.set_property("Group Size", "30")
        runner.set_property("Batch Size", "3")
        runner.set_thread_count(4)
        runner.run(240)

        emitted = Counter(
            (f.get_attribute("group"), f.get_attribute("order"))
            for f in runner.get_flowfiles_for_relationship("success")
        )
        assert emitted == Counter(
            {(f"group-{g:03d}", str(o)): 1 for g in range(20) for o in range(30)}
        )
        assert runner.state == {"next": "600"}
