"""Benchmark: the REST API's enqueue rate over loopback, beside in-process ``Node.enqueue``.

A real ``python -m api.cli serve`` (uvicorn + a Node + the ThreadedScheduler) runs a flow
``in`` -> a STOPPED Funnel, so every FlowFile stays queued (back pressure thresholds set
out of reach). A load generator in ANOTHER process (``--load-generator``, ``httpx`` with a
few threads, one keep-alive client each) sends N single enqueues of ``--size`` bytes
(``POST /api/v1/ports/in/flowfiles``) and then B NDJSON batches of ``--batch-size`` lines
(``POST .../flowfiles/batch``), and reports throughput and per-request latency (p50, p99).

The limit is measured in the same run, after the server has stopped: ``Node.enqueue`` on
a Node of the same flow and engine settings (defaults, a fresh data dir) in this process,
the same counts and sizes (one FlowFile per call, then one call per batch), single
threaded. The ratio says what HTTP, JSON/NDJSON parsing and uvicorn add on top of the
engine's durable commit.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
STARTUP_SECONDS = 30.0


def flow() -> dict[str, Any]:
    unbounded = {"object_threshold": 100_000_000, "data_size_threshold": "1000 GB"}
    return {
        "flow": {
            "name": "bench-api",
            "input_ports": ["in"],
            "processors": {
                "hold": {"type": "Funnel", "run_state": "STOPPED", "auto_terminate": ["success"]}
            },
            "connections": [
                {"from": "in", "to": "hold", "name": "incoming", "back_pressure": unbounded}
            ],
        }
    }


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def batch_body(batch_size: int, size: int, batch: int) -> bytes:
    content = "x" * size
    lines = (
        json.dumps({"attributes": {"batch": str(batch), "line": str(i)}, "content": content})
        for i in range(batch_size)
    )
    return ("\n".join(lines) + "\n").encode()


# -- the load generator (runs in its own process) -------------------------------------------


def _drive(
    url: str, bodies: list[tuple[str, bytes, dict[str, str]]], threads: int
) -> tuple[float, list[float], int]:
    """POST every body from ``threads`` threads; (seconds, latencies in s, errors)."""
    import httpx

    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    cursor = iter(range(len(bodies)))

    def worker() -> None:
        nonlocal errors
        mine: list[float] = []
        failed = 0
        with httpx.Client(base_url=url, timeout=60.0) as client:
            while True:
                with lock:
                    index = next(cursor, None)
                if index is None:
                    break
                path, body, headers = bodies[index]
                started = time.perf_counter()
                response = client.post(path, content=body, headers=headers)
                mine.append(time.perf_counter() - started)
                if response.status_code != 201:
                    failed += 1
        with lock:
            latencies.extend(mine)
            errors += failed

    workers = [threading.Thread(target=worker) for _ in range(threads)]
    started = time.perf_counter()
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    return time.perf_counter() - started, latencies, errors


def load_generator(args: argparse.Namespace) -> int:
    url = args.load_generator
    attributes = json.dumps({"source": "bench"})
    payload = b"x" * args.size
    singles = [
        (
            "/api/v1/ports/in/flowfiles",
            payload,
            {"Content-Type": "application/octet-stream", "X-FlowFile-Attributes": attributes},
        )
    ] * args.single
    batches = [
        (
            "/api/v1/ports/in/flowfiles/batch",
            batch_body(args.batch_size, args.size, b),
            {"Content-Type": "application/x-ndjson"},
        )
        for b in range(args.batches)
    ]
    single = _drive(url, singles, args.threads)
    batch = _drive(url, batches, args.threads)
    print(
        json.dumps(
            {
                "single": {"seconds": single[0], "latencies": single[1], "errors": single[2]},
                "batch": {"seconds": batch[0], "latencies": batch[1], "errors": batch[2]},
            }
        )
    )
    return 0


# -- the server ------------------------------------------------------------------------------


def start_server(tmp: Path) -> tuple[subprocess.Popen[bytes], str, Path]:
    flow_path = tmp / "flow.yaml"
    flow_path.write_text(yaml.safe_dump(flow()))
    port = free_port()
    log_path = tmp / "server.log"
    with log_path.open("ab") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "api.cli",
                "serve",
                str(flow_path),
                "--data-dir",
                str(tmp / "server-data"),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            cwd=ROOT,
            env={**os.environ, "FLOWCORE_API_TOKENS": "[]"},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    import httpx

    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited at start-up:\n{log_path.read_text()}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1.0).status_code == 200:
                return proc, url, log_path
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    proc.kill()
    raise SystemExit(f"server did not answer /healthz in time:\n{log_path.read_text()}")


def queued(url: str) -> int:
    import httpx

    status = httpx.get(f"{url}/api/v1/flow", timeout=30.0).json()
    return sum(c["queued_count"] + c["swapped"] for c in status["connections"])


# -- the limit: Node.enqueue in this process -------------------------------------------------


def in_process(tmp: Path, args: argparse.Namespace) -> tuple[float, float, float, float]:
    """(single FlowFiles/s, single p50 s, batch FlowFiles/s, batch-call p50 s)."""
    from flowcore.engine import EnqueueItem, Node
    from flowcore.flow import parse_flow
    from flowcore.settings import EngineSettings

    settings = EngineSettings().model_copy(update={"data_dir": tmp / "inprocess-data"})
    node = Node.from_flow(settings, parse_flow(flow()))
    try:
        payload = b"x" * args.size
        attributes = {"source": "bench"}
        latencies: list[float] = []
        started = time.perf_counter()
        for _ in range(args.single):
            t0 = time.perf_counter()
            node.enqueue("in", [EnqueueItem(payload, attributes)])
            latencies.append(time.perf_counter() - t0)
        single_seconds = time.perf_counter() - started
        content = b"x" * args.size
        batch_latencies: list[float] = []
        started = time.perf_counter()
        for b in range(args.batches):
            items = [
                EnqueueItem(content, {"batch": str(b), "line": str(i)})
                for i in range(args.batch_size)
            ]
            t0 = time.perf_counter()
            node.enqueue("in", items)
            batch_latencies.append(time.perf_counter() - t0)
        batch_seconds = time.perf_counter() - started
    finally:
        node.close()
    return (
        args.single / single_seconds,
        statistics.median(latencies),
        args.batches * args.batch_size / batch_seconds,
        statistics.median(batch_latencies),
    )


# -- main ------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--single", type=int, default=3000, help="single enqueues")
    parser.add_argument("--batches", type=int, default=50, help="NDJSON batches")
    parser.add_argument("--batch-size", type=int, default=200, help="lines per batch")
    parser.add_argument("--size", type=int, default=1024, help="content bytes per FlowFile")
    parser.add_argument("--threads", type=int, default=4, help="load generator threads")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument("--load-generator", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.single, args.batches, args.batch_size = 300, 10, 50
    if args.load_generator:
        return load_generator(args)

    with tempfile.TemporaryDirectory(prefix="flowcore-bench-api-") as name:
        tmp = Path(name)
        proc, url, _log = start_server(tmp)
        try:
            command = [
                sys.executable,
                "-m",
                "benchmarks.bench_api",
                "--load-generator",
                url,
                "--single",
                str(args.single),
                "--batches",
                str(args.batches),
                "--batch-size",
                str(args.batch_size),
                "--size",
                str(args.size),
                "--threads",
                str(args.threads),
            ]
            done = subprocess.run(
                command, cwd=ROOT, capture_output=True, text=True, check=False, timeout=1800
            )
            if done.returncode != 0:
                raise SystemExit(f"load generator failed:\n{done.stderr}")
            result = json.loads(done.stdout.strip().splitlines()[-1])
            total = queued(url)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        limit_single, limit_single_p50, limit_batch, limit_batch_p50 = in_process(tmp, args)

    single, batch = result["single"], result["batch"]
    expected = args.single + args.batches * args.batch_size
    errors = single["errors"] + batch["errors"]
    print(
        f"load: {args.single:,} single enqueues of {args.size} B and {args.batches} NDJSON "
        f"batches of {args.batch_size}, {args.threads} client threads in another process; "
        f"non-201 answers {errors}; queued after the run {total:,} (expected {expected:,})"
    )
    single_rate = args.single / single["seconds"]
    batch_rate = args.batches * args.batch_size / batch["seconds"]
    ms = 1000.0
    print(
        f"api single enqueue: ours {single_rate:,.0f} FlowFiles/s "
        f"(p50 {percentile(single['latencies'], 0.5) * ms:.2f} ms, "
        f"p99 {percentile(single['latencies'], 0.99) * ms:.2f} ms) | "
        f"in-process enqueue {limit_single:,.0f} FlowFiles/s | "
        f"ratio {single_rate / limit_single:.2f}"
    )
    print(
        f"api batch enqueue: ours {batch_rate:,.0f} FlowFiles/s "
        f"(per batch of {args.batch_size}: p50 {percentile(batch['latencies'], 0.5) * ms:.1f} ms, "
        f"p99 {percentile(batch['latencies'], 0.99) * ms:.1f} ms) | "
        f"in-process enqueue {limit_batch:,.0f} FlowFiles/s | "
        f"ratio {batch_rate / limit_batch:.2f}"
    )
    print(
        f"context: in-process p50 {limit_single_p50 * ms:.2f} ms per single enqueue, "
        f"{limit_batch_p50 * ms:.1f} ms per batch of {args.batch_size}"
    )
    return 0 if errors == 0 and total == expected else 1


if __name__ == "__main__":
    raise SystemExit(main())
