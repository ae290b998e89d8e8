"""The sample flows under ``samples/`` run to completion and produce what they promise.

Each flow is loaded as ``samples/demo.py`` loads it (parameter ``out_dir`` replaced by a
directory of the test's own; ``input_dir``, where a sample has one, pointed at a copy of
its input), and run until idle by a DeterministicScheduler on a ManualClock, which it
advances whenever the flow waits (Max Bin Age, yields). The clock starts at the wall
clock's time so that GetFile sees the copied input files as zero seconds old.
"""

from __future__ import annotations

import csv
import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from flowcore.clock import ManualClock
from flowcore.engine import DeterministicScheduler, Node
from flowcore.flow import load_flow, parse_flow
from flowcore.model.provenance import ProvenanceEvent
from flowcore.repository import ProvenanceQuery
from flowcore.settings import EngineSettings
from samples.defragment import show as defragment_show
from samples.entity_merge import show as entity_merge_show
from samples.pos_merge import show as pos_show
from samples.two_stage_merge import show as two_stage_show

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
NEW_SAMPLES = ("pos_merge", "two_stage_merge", "defragment")


def _document(name: str, out_dir: Path, input_dir: Path | None = None) -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(
        (SAMPLES / name / "flow.yaml").read_text(encoding="utf-8")
    )
    parameters = document["flow"].setdefault("parameters", {})
    parameters["out_dir"] = str(out_dir)
    if input_dir is not None:
        assert "input_dir" in parameters
        parameters["input_dir"] = str(input_dir)
    return document


def _joins(node: Node, component: str) -> list[ProvenanceEvent]:
    node.index_provenance()
    return node.provenance.search(
        ProvenanceQuery(event_type="JOIN", component_id=component, limit=100_000)
    )


@pytest.fixture
def run_sample(tmp_path: Path) -> Iterator[Any]:
    nodes: list[Node] = []

    def run(name: str) -> tuple[Node, Path]:
        out_dir = tmp_path / "out"
        input_dir: Path | None = None
        if (SAMPLES / name / "input").is_dir():
            input_dir = tmp_path / "input"
            shutil.copytree(SAMPLES / name / "input", input_dir)
        document = _document(name, out_dir, input_dir)
        clock = ManualClock(int(time.time() * 1000))
        definition = parse_flow(document)
        definition.set_folder(SAMPLES / name)  # its python/extensions, if it has one
        node = Node.from_flow(EngineSettings(data_dir=tmp_path / "data"), definition, clock)
        nodes.append(node)
        summary = DeterministicScheduler(node).run_until_idle(max_triggers=10_000)
        assert summary.idle, f"{name} did not finish: {summary}"
        for connection in node.connections.values():
            assert connection.queue.size == 0, f"{connection.name} is not empty"
        return node, out_dir

    yield run
    for node in nodes:
        node.close()


@pytest.mark.parametrize(
    "path", sorted(SAMPLES.glob("*/flow*.yaml")), ids=lambda p: p.parent.name + "/" + p.name
)
def test_every_sample_flow_is_valid(path: Path, tmp_path: Path) -> None:
    node = Node.from_flow(EngineSettings(data_dir=tmp_path), load_flow(path), ManualClock())
    node.close()


def test_pos_merge_merges_each_store_once(run_sample: Any) -> None:
    node, out_dir = run_sample("pos_merge")

    expected = pos_show.input_counts(SAMPLES / "pos_merge" / "input")
    assert expected == {"1001": 23, "1002": 18, "1003": 18, "1004": 16}
    merged = pos_show.merged_counts(out_dir)
    assert merged == {store: [count] for store, count in expected.items()}
    for store in expected:
        (path,) = (out_dir / store).iterdir()
        with path.open(newline="", encoding="utf-8") as handle:
            assert {row["storeId"] for row in csv.DictReader(handle)} == {store}
    details = {event.details for event in _joins(node, "merge")}
    assert details == {"Records Merged due to: Bin has reached Max Bin Age"}


def test_two_stage_merge_bundles_then_merges_the_bundles(run_sample: Any) -> None:
    node, out_dir = run_sample("two_stage_merge")

    assert list(two_stage_show.output_records(out_dir).values()) == [100_000]
    full = "Records Merged due to: Bin is full"
    assert two_stage_show.merges(node, "stage1") == {("1000", "10", full): 100}
    assert two_stage_show.merges(node, "stage2") == {("100000", "100", full): 1}


def test_two_stage_merge_full_size_flow_has_the_seed_sizes() -> None:
    flow = load_flow(SAMPLES / "two_stage_merge" / "flow-1m.yaml").flow
    generate = flow.processors["generate"]
    per_flowfile = len(generate.properties["Custom Text"].splitlines()) - 1
    assert generate.schedule.max_runs is not None
    total = generate.schedule.max_runs * int(generate.properties["Batch Size"]) * per_flowfile
    assert total == 1_000_000
    assert flow.processors["stage1"].properties["Maximum Number of Records"] == "1000"
    assert flow.processors["stage2"].properties["Maximum Number of Records"] == "1000000"


def test_defragment_reassembles_byte_identical_files(run_sample: Any) -> None:
    node, out_dir = run_sample("defragment")

    assert defragment_show.compare(out_dir, SAMPLES / "defragment" / "input") == {
        "orders-a.csv": True,
        "orders-b.csv": True,
    }
    arrived = defragment_show.shuffled_order(node)
    assert [len(indices) for indices in arrived] == [10, 8]
    assert all(indices != sorted(indices, key=int) for indices in arrived)
    details = {event.details for event in _joins(node, "merge")}
    assert details == {"Records Merged due to: Bin is full"}


def test_entity_merge_gives_the_documented_output(run_sample: Any) -> None:
    node, out_dir = run_sample("entity_merge")

    seed = entity_merge_show.merged_entities(out_dir / "1_seed")
    assert [e["_id"] for e in seed] == ["0|a1|1|b1|2|c1", "0|a2", "1|b2", "2|c2", "2|c3"]
    assert [e["_updated"] for e in seed] == [0, 1, 2, 3, 4]
    assert seed[0] == {"$ids": ["a1", "b1", "c1"], "_id": "0|a1|1|b1|2|c1", "_updated": 0,
                       "f1": [1, 1], "f2": "x", "f3": "X"}  # fmt: skip
    customers = entity_merge_show.merged_entities(out_dir / "2_customers")
    assert entity_merge_show.sizes(customers) == {1: 352, 2: 421, 3: 300}
    details = {event.details for event in _joins(node, "seed_merge")}
    assert details == {"Entities merged: 5 emitted (1 merged, 0 split, 0 replaced, 2 deleted)"}


def test_cdc_upsert_merges_each_region_by_key_and_sends_the_big_bin_to_spark(
    tmp_path: Path, spark_compute: Any
) -> None:
    from samples.cdc_upsert import show as cdc_show
    from samples.cdc_upsert.prepare import REGIONS, expected, prepare
    from samples.demo import sample_settings

    input_dir, out_dir = tmp_path / "input", tmp_path / "out"
    counts = prepare(input_dir)
    document = _document("cdc_upsert", out_dir, input_dir)
    settings = sample_settings(SAMPLES / "cdc_upsert", tmp_path / "data")
    assert settings.spark.offload_min_records == 10_000
    assert counts["eu"] >= 10_000 > max(counts["us"], counts["apac"])
    node = Node.from_flow(settings, parse_flow(document), ManualClock(int(time.time() * 1000)))
    try:
        summary = DeterministicScheduler(node).run_until_idle(max_triggers=10_000)
        assert summary.idle
        events = cdc_show.merge_events(node)
        for region in REGIONS:
            rows = cdc_show.merged_table(out_dir, region)
            assert rows == expected(input_dir, region)
            attributes = {**events[region].previous_attributes, **events[region].updated_attributes}
            assert attributes["merge.engine"] == ("spark" if region == "eu" else "local")
            assert attributes["merge.record.count.in"] == str(counts[region])
            assert events[region].details == "Records Merged due to: Bin has reached Max Bin Age"
    finally:
        node.close()


def test_nifi_import_runs_the_nifi_flow_definition_and_merges_per_store(
    tmp_path: Path,
) -> None:
    from samples.demo import sample_document
    from samples.nifi_import import show as nifi_show

    flow_file = SAMPLES / "nifi_import" / "flow.json"
    document = sample_document(flow_file)
    flow = document["flow"]
    assert flow["parameters"]["input_dir"] == str(SAMPLES / "nifi_import" / "input")
    assert flow["processors"]["Get order exports"]["schedule"]["max_runs"] == 1
    assert "Merge orders/Merge per store" in flow["processors"]
    out_dir = tmp_path / "out"
    input_dir = tmp_path / "input"
    shutil.copytree(SAMPLES / "nifi_import" / "input", input_dir)
    flow["parameters"].update(out_dir=str(out_dir), input_dir=str(input_dir))
    clock = ManualClock(int(time.time() * 1000))
    node = Node.from_flow(EngineSettings(data_dir=tmp_path / "data"), parse_flow(document), clock)
    try:
        summary = DeterministicScheduler(node).run_until_idle(max_triggers=10_000)
        assert summary.idle
        assert all(c.queue.size == 0 for c in node.connections.values())
        details = {event.details for event in _joins(node, "Merge orders/Merge per store")}
        assert details == {"Records Merged due to: Bin has reached Max Bin Age"}
    finally:
        node.close()
    assert nifi_show.expected(input_dir) == {"1001": ["1", "2", "3", "4", "5"],
                                             "1002": ["6", "7", "8", "9"]}  # fmt: skip
    assert nifi_show.merged(out_dir) == nifi_show.expected(input_dir)
    assert sorted(p.name for p in (out_dir / "other").iterdir()) == ["returns-1001-mon.csv"]


def test_every_put_file_of_the_samples_is_confined_to_out_dir() -> None:
    puts = {
        (flow.parent.name, name): spec.get("properties", {})
        for flow in sorted(SAMPLES.glob("*/flow.yaml"))
        for name, spec in yaml.safe_load(flow.read_text(encoding="utf-8"))["flow"][
            "processors"
        ].items()
        if spec["type"] == "PutFile"
    }
    assert len(puts) >= 7
    for where, properties in puts.items():
        assert properties.get("Base Directory") == "#{out_dir}", where
        assert properties["Directory"].startswith("#{out_dir}"), where


def test_python_processors_run_unmodified_after_replace_text_json_path_and_query(
    run_sample: Any,
) -> None:
    node, out_dir = run_sample("python_processors")

    written = {p.relative_to(out_dir).as_posix(): p for p in out_dir.rglob("*.json")}
    # QueryRecord kept the paid orders only (ReplaceText lower-cased their status first).
    assert sorted(written) == ["big/east-1.json", "big/south-2.json", "small/north-1.json"]
    north = json.loads(written["small/north-1.json"].read_text())
    assert [(r["id"], r["total"], r["status"]) for r in north] == [(1, 20.0, "paid")]
    south = json.loads(written["big/south-2.json"].read_text())
    assert [(r["id"], r["total"]) for r in south] == [(2, 99.5), (5, 4.5)]
    # EvaluateJsonPath's attribute travels to every delivered FlowFile.
    node.index_provenance()
    sends = node.provenance.search(ProvenanceQuery(event_type="SEND", limit=10))
    assert len(sends) == 3
    assert {event.attributes["first.region"] for event in sends} == {"north"}
