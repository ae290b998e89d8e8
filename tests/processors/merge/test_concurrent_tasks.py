"""MergeRecord with several concurrent tasks: every record is merged exactly once.

The tasks share the processor's bins. The interpreter is made to switch threads every
microsecond, so that without a guard two tasks interleave inside the binning (they did:
FlowFiles merged twice, an input queue counted below zero).
"""

from __future__ import annotations

from collections import Counter

from flowcore.testing import TestRunner


def test_concurrent_tasks_merge_every_flowfile_once(
    runner: TestRunner, switching_often: None
) -> None:
    runner.set_property("Minimum Number of Records", "6")
    runner.set_property("Maximum Number of Records", "6")
    for n in range(600):
        runner.enqueue(f"id,n\n{n},{n}\n{n},{n}\n")
    runner.set_thread_count(4)

    runner.run(40)

    runner.assert_queue_empty()
    runner.assert_transfer_count("failure", 0)
    originals = runner.get_flowfiles_for_relationship("original")
    assert len(originals) == 600
    assert len({o.uuid for o in originals}) == 600
    merged = runner.get_flowfiles_for_relationship("merged")
    assert len(merged) == 200
    lines = Counter(line for m in merged for line in m.content.decode().splitlines()[1:])
    assert lines == Counter({f"{n},{n}": 2 for n in range(600)})
    joined = Counter(
        parent
        for event in runner.get_provenance_events()
        if event.event_type == "JOIN"
        for parent in event.parent_uuids
    )
    assert joined == Counter({o.uuid: 1 for o in originals})
