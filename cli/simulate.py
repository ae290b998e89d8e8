"""The ``flowcore simulate`` command (the work is in ``flowcore.simulation``).

Exit codes as ``flowcore run`` (docs/ci.md): 0 every run kept every invariant, 1 an
invariant failed, 2 bad usage or an invalid flow, 3 the simulation itself could not run.
"""

from __future__ import annotations

import json
import logging
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from flowcore.errors import FlowCoreError
from flowcore.flow.definition import FlowDefinitionError
from flowcore.simulation import FaultKind, FaultSchedule, RunResult, Simulation, shrink

EXIT_PASSED = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_RUNTIME = 3

console = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def simulate(
    flow: Annotated[Path, typer.Argument(help="Flow definition (YAML, or a NiFi flow JSON).")],
    seed: Annotated[int, typer.Option("--seed", help="The first seed.")] = 0,
    runs: Annotated[int, typer.Option("--runs", help="How many seeds, from --seed on.")] = 100,
    replay: Annotated[
        int | None,
        typer.Option(
            "--replay",
            help="Run this one seed again, exactly (with --schedule: "
            "that schedule, as printed for a failing seed).",
        ),
    ] = None,
    schedule: Annotated[
        Path | None,
        typer.Option("--schedule", help="A fault schedule (JSON) to run as it is."),
    ] = None,
    save_schedule: Annotated[
        Path | None,
        typer.Option("--save-schedule", help="Write the minimal failing schedule here (JSON)."),
    ] = None,
    faults: Annotated[
        str | None,
        typer.Option(
            "--faults",
            help="Fault kinds drawn, comma-separated (default: the "
            f"flow's simulation.faults, else all: {', '.join(k.value for k in FaultKind)}).",
        ),
    ] = None,
    max_faults: Annotated[
        int | None, typer.Option("--max-faults", help="At most this many faults per run.")
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option("--param", help="NAME=VALUE overriding a flow parameter; repeatable."),
    ] = None,
    run_once_sources: Annotated[
        bool,
        typer.Option(
            "--run-once-sources",
            help="Run every processor no connection feeds "
            "once (a source that keeps finding work is never idle).",
        ),
    ] = False,
    kill: Annotated[
        bool,
        typer.Option(
            "--kill",
            help="Run the flow in child processes that a crash ends "
            "on the spot (os._exit, as kill -9) instead of in this process; slower.",
        ),
    ] = False,
    work_dir: Annotated[
        Path | None,
        typer.Option(
            "--work-dir",
            help="Where runs happen; kept afterwards (default: a temporary directory, removed).",
        ),
    ] = None,
    no_shrink: Annotated[
        bool, typer.Option("--no-shrink", help="Print a failing schedule as drawn.")
    ] = False,
    output: Annotated[
        str, typer.Option("--output", help="text (with a progress bar) or json.")
    ] = "text",
    log_level: Annotated[
        str | None,
        typer.Option(
            "--log-level",
            help="Show the engine's logs from this level (default: "
            "none; injected faults make processors log errors).",
        ),
    ] = None,
) -> None:
    """Run a flow under seeded faults (crashes at every commit phase, full repositories,
    processor exceptions, clock jumps, failing offload, back pressure), restarting it on
    the same data directory, and check the invariants after every run.

    Exit code 0: every invariant held; 1: one failed (the seed and a minimal fault
    schedule are printed); 2: bad usage or an invalid flow; 3: the simulation could not run.
    """
    if output not in ("text", "json"):
        raise _usage(f"--output is text or json, not '{output}'")
    if runs < 1:
        raise _usage("--runs must be at least 1")
    parameters = _parameters(param)
    kinds = _kinds(faults)
    fixed = _load_schedule(schedule) if schedule is not None else None
    with _logs(log_level):
        try:
            simulation = Simulation(
                flow,
                work_dir=work_dir,
                parameters=parameters,
                keep_runs=work_dir is not None,
                kill=kill,
            )
        except (FlowDefinitionError, FlowCoreError) as exc:
            raise _usage(str(exc)) from None
        try:
            if max_faults is not None:
                simulation.spec.max_faults = max_faults
            if run_once_sources:
                simulation.spec.run_once_sources = True
            code = _simulate(
                simulation,
                seed,
                runs,
                replay,
                fixed,
                kinds,
                save_schedule,
                no_shrink,
                output == "json",
            )
        except FlowCoreError as exc:
            err.print(f"[bold red]error:[/] {exc}")
            code = EXIT_RUNTIME
        except Exception as exc:  # the simulator itself failed
            logging.getLogger("flowcore.simulation").exception("the simulation failed")
            err.print(f"[bold red]error:[/] the simulation failed: {type(exc).__name__}: {exc}")
            code = EXIT_RUNTIME
        finally:
            simulation.close()
    raise typer.Exit(code=code)


def _simulate(
    simulation: Simulation,
    seed: int,
    runs: int,
    replay: int | None,
    fixed: FaultSchedule | None,
    kinds: tuple[FaultKind, ...] | None,
    save_schedule: Path | None,
    no_shrink: bool,
    as_json: bool,
) -> int:
    if replay is not None or fixed is not None:
        chosen = fixed if fixed is not None else simulation.schedule_for(replay or 0, kinds)
        if replay is not None and fixed is not None and fixed.seed != replay:
            chosen = FaultSchedule(replay, fixed.faults)
        result = simulation.run(chosen)
        _report(
            [result],
            result if result.failed else None,
            save_schedule,
            as_json,
            replay=True,
            flow=simulation.flow_name,
        )
        return EXIT_FAILED if result.failed else EXIT_PASSED
    results: list[RunResult] = []
    with _progress(not as_json) as progress:
        task = progress.add_task("simulating", total=runs + 1)
        simulation.shape()  # the run without faults
        progress.advance(task)
        for number in range(seed, seed + runs):
            progress.update(task, description=f"seed {number}")
            results.append(simulation.run(simulation.schedule_for(number, kinds)))
            progress.advance(task)
    failing = [r for r in results if r.failed]
    minimal: RunResult | None = None
    if failing:
        minimal = failing[0] if no_shrink else shrink(simulation.run, failing[0])
    _report(results, minimal, save_schedule, as_json, replay=False, flow=simulation.flow_name)
    return EXIT_FAILED if failing else EXIT_PASSED


def _report(
    results: list[RunResult],
    minimal: RunResult | None,
    save_schedule: Path | None,
    as_json: bool,
    *,
    replay: bool,
    flow: str,
) -> None:
    failing = [r for r in results if r.failed]
    met = Counter(f.kind.value for r in results for f in r.met)
    redeliveries = [d for r in results for d in r.redeliveries]
    if minimal is not None and save_schedule is not None:
        save_schedule.write_text(minimal.schedule.dumps() + "\n", encoding="utf-8")
    if as_json:
        document: dict[str, Any] = {
            "outcome": "failed" if failing else "passed",
            "exit_code": EXIT_FAILED if failing else EXIT_PASSED,
            "runs": len(results),
            "failing_seeds": [r.seed for r in failing],
            "faults_met": dict(sorted(met.items())),
            "restarts": sum(r.restarts for r in results),
            "redeliveries": len(redeliveries),
            "results": [r.to_json() for r in (failing or results)][:100],
        }
        if minimal is not None:
            document["minimal"] = minimal.to_json()
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
        return
    restarts = sum(r.restarts for r in results)
    console.print(
        f"{len(results)} run(s), {restarts} restart(s), faults met: "
        + (", ".join(f"{k} {n}" for k, n in sorted(met.items())) or "none")
    )
    if redeliveries:
        console.print(
            f"{len(redeliveries)} re-deliverie(s) (delivered again after a crash; at-least-once):"
        )
        for r in redeliveries[:20]:
            console.print(f"  {r.component}: FlowFile {r.flowfile_uuid} to {r.uri} {r.times} times")
    if not failing:
        console.print("[green]every invariant held[/]")
        return
    if not replay:
        console.print(
            f"[bold red]{len(failing)} run(s) failed[/]: seeds "
            + ", ".join(str(r.seed) for r in failing[:50])
        )
    assert minimal is not None
    console.print(f"[bold red]seed {minimal.seed} failed[/]:")
    for violation in minimal.violations:
        console.print(f"  {violation.invariant}: {violation.message}")
    console.print(
        f"fault schedule ({len(minimal.schedule.faults)} fault(s)"
        + (", shrunk" if not replay else "")
        + "):"
    )
    for line in minimal.schedule.describe() or ["no faults"]:
        console.print(f"  - {line}")
    console.print(minimal.schedule.dumps(), markup=False)
    where = str(save_schedule) if save_schedule is not None else "schedule.json"
    console.print(
        f"replay: flowcore simulate {flow} --replay {minimal.seed} --schedule {where}"
        + ("" if save_schedule is not None else "   (save the JSON above as schedule.json)")
    )


@contextmanager
def _progress(show: bool) -> Iterator[Progress]:
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        disable=not show,
        transient=True,
    )
    with progress:
        yield progress


@contextmanager
def _logs(level: str | None) -> Iterator[None]:
    """Engine logs to stderr from ``level``; none at all without it."""
    root = logging.getLogger()
    saved = (root.level, list(root.handlers), logging.root.manager.disable)
    if level is None:
        logging.disable(logging.CRITICAL)
    else:
        names = {"TRACE": 5, "DEBUG": 10, "INFO": 20, "WARN": 30, "WARNING": 30, "ERROR": 40}
        if level.upper() not in names:
            raise _usage(f"--log-level is one of TRACE, DEBUG, INFO, WARN, ERROR, not '{level}'")
        handler = logging.StreamHandler(sys.stderr)
        root.handlers = [handler]
        root.setLevel(names[level.upper()])
    try:
        yield
    finally:
        logging.disable(saved[2])
        root.setLevel(saved[0])
        root.handlers = saved[1]


def _parameters(values: list[str] | None) -> dict[str, str]:
    parameters: dict[str, str] = {}
    for value in values or []:
        name, sep, text = value.partition("=")
        if not sep or not name:
            raise _usage(f"--param takes NAME=VALUE, not '{value}'")
        parameters[name] = text
    return parameters


def _kinds(text: str | None) -> tuple[FaultKind, ...] | None:
    if text is None:
        return None
    kinds: list[FaultKind] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            kinds.append(FaultKind(part))
        except ValueError:
            known = ", ".join(k.value for k in FaultKind)
            raise _usage(f"unknown fault kind '{part}' (known: {known})") from None
    return tuple(kinds)


def _load_schedule(path: Path) -> FaultSchedule:
    try:
        return FaultSchedule.load(path)
    except FlowCoreError as exc:
        raise _usage(str(exc)) from None


def _usage(message: str) -> typer.Exit:
    err.print(f"[bold red]error:[/] {message}")
    return typer.Exit(code=EXIT_USAGE)
