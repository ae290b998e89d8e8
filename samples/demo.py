"""``make demo``: run every sample flow on the embedded defaults and show the results.

Each sample's ``flow.yaml`` (or NiFi flow definition ``flow.json``) runs until idle in a
fresh data directory under ``demo-data/`` (with the engine settings of its
``settings.yaml``, if it has one, over the defaults; and with its input generated into
``<data dir>/input`` first by ``prepare.py``'s ``prepare(input_dir)``, if it has one);
then the demo prints what each processor did, what is left in the queues, the files
written, and from the provenance repository the newest merge (its JOIN event and reason)
or delivery, with its lineage. A sample may add ``show.py`` with
``show(node, out_dir, console)`` to print more.
"""

from __future__ import annotations

import importlib
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from rich.console import Console
from rich.rule import Rule

from cli.provenance import render_lineage
from cli.run import print_status
from flowcore.clock import SystemClock
from flowcore.engine import DeterministicScheduler, Node
from flowcore.flow import parse_flow, read_flow_document
from flowcore.repository import ProvenanceQuery
from flowcore.settings import EngineSettings

SAMPLES = Path(__file__).parent
console = Console()


def run_sample(flow_file: Path, root: Path) -> None:
    name = flow_file.parent.name
    console.print(Rule(f"[bold]sample: {name}"))
    data_dir = root / name
    shutil.rmtree(data_dir, ignore_errors=True)
    out_dir = data_dir / "out"
    document = sample_document(flow_file)
    parameters = document["flow"].setdefault("parameters", {})
    parameters["out_dir"] = str(out_dir)
    if (flow_file.parent / "prepare.py").exists():
        input_dir = data_dir / "input"
        importlib.import_module(f"samples.{name}.prepare").prepare(input_dir)
        parameters["input_dir"] = str(input_dir)
    definition = parse_flow(document)
    definition.set_folder(flow_file.parent)  # its python/extensions, if it has one
    node = Node.from_flow(sample_settings(flow_file.parent, data_dir), definition, SystemClock())
    try:
        summary = DeterministicScheduler(node).run_until_idle()
        console.print(f"ran until idle: {summary.triggers} processor triggers")
        print_status(node)
        files = sorted(p for p in out_dir.rglob("*") if p.is_file())
        if files:
            preview = files[0].read_text(errors="replace").strip()
            if len(preview) > 160:
                preview = preview[:160] + " ..."
            console.print(
                f"{len(files)} files written under {out_dir}, e.g. "
                f"{files[0].relative_to(out_dir)}: {preview!r}"
            )
        show_lineage(node, data_dir)
        hook = flow_file.parent / "show.py"
        if hook.exists():
            module = importlib.import_module(f"samples.{name}.show")
            module.show(node, out_dir, console)
    finally:
        node.close()


def sample_document(flow_file: Path) -> dict[str, Any]:
    """A sample's flow document. A NiFi flow definition (``flow.json``) is imported; as
    NiFi's "Run Once" would, each of its source processors runs once (so the demo ends),
    and a relative ``input_dir`` resolves from the flow file's folder."""
    document: dict[str, Any] = read_flow_document(flow_file)
    if flow_file.suffix == ".json":
        flow = document["flow"]
        fed = {c["to"] for c in flow.get("connections", [])}
        for name, spec in flow["processors"].items():
            if name not in fed:
                spec.setdefault("schedule", {})["max_runs"] = 1
        parameters = flow.get("parameters", {})
        if "input_dir" in parameters and not Path(parameters["input_dir"]).is_absolute():
            parameters["input_dir"] = str(flow_file.parent / parameters["input_dir"])
    return document


def sample_settings(sample_dir: Path, data_dir: Path) -> EngineSettings:
    """The defaults, with the sample's ``settings.yaml`` over them, in ``data_dir``."""
    overrides: dict[str, object] = {}
    if (sample_dir / "settings.yaml").exists():
        overrides = yaml.safe_load((sample_dir / "settings.yaml").read_text("utf-8")) or {}
    return EngineSettings(**{**overrides, "data_dir": data_dir})  # environment still applies


def show_lineage(node: Node, data_dir: Path) -> None:
    """The newest merge (JOIN, with its reason) or else delivery (SEND), and its lineage."""
    for event_type in ("JOIN", "SEND"):
        found = node.provenance.search(ProvenanceQuery(event_type=event_type, limit=1))
        if not found:
            continue
        event = found[0]
        if event.details:
            console.print(f"{event_type} event {event.event_id}: [bold]{event.details}[/]")
        graph = node.provenance.lineage(event.flowfile_uuid)
        if len(graph.nodes) <= 60:
            console.print(render_lineage(graph, event.flowfile_uuid))
        else:
            kinds = Counter(n.event_type for n in graph.nodes if n.event_type)
            summary = ", ".join(f"{count} {kind}" for kind, count in kinds.most_common())
            console.print(
                f"lineage of {event.flowfile_uuid}: {len(graph.nodes)} nodes, "
                f"{len(graph.links)} links ({summary}); too large to print here"
            )
        console.print(
            f"(also: [bold]flowcore lineage {event.flowfile_uuid} --data-dir {data_dir}[/])"
        )
        return


def main() -> int:
    root = Path("demo-data")
    flows = sorted([*SAMPLES.glob("*/flow.yaml"), *SAMPLES.glob("*/flow.json")])
    for flow_file in flows:
        run_sample(flow_file, root)
    console.print(Rule())
    console.print(f"{len(flows)} sample flow(s) ran; data directories are under {root}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
