"""A crash test for this sample, written as a user writes one for their own flow
(docs/simulation.md): the ``simulation`` fixture runs the flow under faults drawn from
this test's seeds, restarts it after every crash, and fails naming the seed and a
minimal fault schedule if an invariant breaks (here, besides those of every flow, the
flow's own: every register line lands in exactly one merged file)."""

from __future__ import annotations

from flowcore.simulation import Fault, FaultKind, RunView
from flowcore.simulation.pytest_plugin import SimulationFixture


def test_every_sale_is_merged_exactly_once_whatever_the_faults(
    simulation: SimulationFixture,
) -> None:
    simulation.run("flow.yaml", inputs={"input_dir": "input"})


def one_file_per_store(view: RunView) -> list[str]:
    """Every merged file sits under the folder of the store whose lines it holds."""
    problems = []
    for path in sorted(view.outputs["out_dir"].rglob("*")):
        if path.is_file() and not path.name.startswith("."):
            stores = {line.split(",")[0] for line in path.read_text().splitlines()[1:]}
            if stores != {path.parent.name}:
                problems.append(f"{path.name} under {path.parent.name} holds stores {stores}")
    return problems


def test_a_crash_before_the_first_commit_and_a_full_disk_lose_nothing(
    simulation: SimulationFixture,
) -> None:
    report = simulation.run(
        "flow.yaml",
        inputs={
            "input_dir": {
                "register-9.csv": "storeId,register,txId,sku,quantity,price\n"
                "2001,9,90001,tea,1,1.85\n2002,9,90002,scone,2,2.65\n"
            }
        },
        faults=[
            Fault(FaultKind.CRASH, at=1, phase="content durable"),
            Fault(FaultKind.DISK_FULL, at=2),
        ],
        hooks=[one_file_per_store],
    )
    assert not report.failed
    assert report.results[0].restarts == 1
