"""Benchmark: the REST API's enqueue rate over loopback, beside in-process ``Node.enqueue``.

A real ``python -m cli serve`` (uvicorn + a Node + the ThreadedScheduler) runs a flow
``in`` -> a STOPPED Funnel, so every FlowFile stays queued (back pressure thresholds set
out of reach). A load generator in ANOTHER process (``--load-generator``: asyncio on
uvloop when installed, raw keep-alive sockets, requests built once: a few microseconds
per request, so the client is not what is measured) keeps ``--connections`` requests in
flight: N single enqueues of ``--size`` bytes (``POST /api/v1/ports/in/flowfiles``), then
B NDJSON batches of ``--batch-size`` lines (``POST .../flowfiles/batch``) over
``--batch-connections``; it reports throughput and per-request latency (p50, p99).

The limit is measured in the same run, alternating with ours round by round:
``Node.enqueue`` on a Node of the same flow and engine settings (defaults, so the same
commit durability; a fresh data dir) in this process, the same counts and sizes (one
FlowFile per call, then one call per batch), single threaded. The ratio says what HTTP,
parsing and uvicorn add on top of the engine's durable commit. As context, the same
client drives a trivial ASGI endpoint (reads the body, answers 201 with a small JSON
body) under the same uvicorn stack in another process: the HTTP ceiling of this machine.
Each figure is the best of ``--rounds``.
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


def request_bytes(path: str, body: bytes, headers: dict[str, str]) -> bytes:
    head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{head}Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


async def _drive(
    url: str, requests: list[bytes], connections: int
) -> tuple[float, list[float], int]:
    """Send every request over ``connections`` keep-alive connections, one in flight on
    each; (seconds, latencies in s, answers other than 201)."""
    import asyncio

    host, port = url.removeprefix("http://").split(":")
    latencies: list[float] = []
    errors = 0
    cursor = iter(requests)

    async def connection() -> None:
        nonlocal errors
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            for request in cursor:
                started = time.perf_counter()
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                at = head.lower().find(b"content-length:")
                length = int(head[at + 15 : head.find(b"\r\n", at)]) if at >= 0 else 0
                await reader.readexactly(length)
                latencies.append(time.perf_counter() - started)
                if head[9:12] != b"201":
                    errors += 1
                if b"connection: close" in head.lower():
                    writer.close()
                    reader, writer = await asyncio.open_connection(host, int(port))
        finally:
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(connection() for _ in range(connections)))
    return time.perf_counter() - started, latencies, errors


def load_generator(args: argparse.Namespace) -> int:
    import asyncio

    try:
        import uvloop
    except ImportError:  # the plain asyncio loop: slower, still correct
        runner: Any = asyncio.run
    else:
        runner = uvloop.run
    url = args.load_generator
    single_headers = {
        "Content-Type": "application/octet-stream",
        "X-FlowFile-Attributes": json.dumps({"source": "bench"}),
    }
    single = request_bytes("/api/v1/ports/in/flowfiles", b"x" * args.size, single_headers)
    result: dict[str, Any] = {}
    if args.single:
        seconds, latencies, errors = runner(_drive(url, [single] * args.single, args.connections))
        result["single"] = {"seconds": seconds, "latencies": latencies, "errors": errors}
    if args.batches:
        batches = [
            request_bytes(
                "/api/v1/ports/in/flowfiles/batch",
                batch_body(args.batch_size, args.size, b),
                {"Content-Type": "application/x-ndjson"},
            )
            for b in range(args.batches)
        ]
        seconds, latencies, errors = runner(_drive(url, batches, args.batch_connections))
        result["batch"] = {"seconds": seconds, "latencies": latencies, "errors": errors}
    args.output.write_text(json.dumps(result))
    return 0


def drive(
    url: str, args: argparse.Namespace, single: int, batches: int, output: Path
) -> dict[str, Any]:
    """Run the load generator in its own process against ``url``; its figures come back
    through ``output`` (a file: its latencies are too many for a pipe's line)."""
    command = [
        sys.executable,
        "-m",
        "benchmarks.bench_api",
        "--load-generator",
        url,
        "--single",
        str(single),
        "--batches",
        str(batches),
        "--batch-size",
        str(args.batch_size),
        "--size",
        str(args.size),
        "--connections",
        str(args.connections),
        "--batch-connections",
        str(args.batch_connections),
        "--output",
        str(output),
    ]
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, check=False, timeout=1800
    )
    if done.returncode != 0:
        raise SystemExit(f"load generator failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(output.read_text())
    return result


# -- the HTTP ceiling: a trivial endpoint on the same uvicorn stack ---------------------------


async def trivial_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Read the body, answer 201 with a uuid-sized JSON body: HTTP and nothing else."""
    if scope["type"] != "http":
        return
    more = True
    while more:
        message = await receive()
        more = message.get("more_body", False)
    body = b'{"uuid":"00000000-0000-0000-0000-000000000000"}'
    await send(
        {
            "type": "http.response.start",
            "status": 201,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def trivial_server(port: int) -> int:
    import uvicorn

    from cli.serve import server_options

    uvicorn.run(
        trivial_app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        **server_options(),
    )
    return 0


def start_trivial(tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.bench_api", "--trivial-server", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=(tmp / "trivial.log").open("ab"),
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"trivial server exited:\n{(tmp / 'trivial.log').read_text()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1.0).close()
            return proc, url
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("the trivial server did not start in time")


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
                "cli",
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
    return sum(c["queued_count"] for c in status["connections"])  # swapped included


# -- the limit: Node.enqueue in this process -------------------------------------------------


def in_process(node: Any, args: argparse.Namespace) -> tuple[float, float, float, float]:
    """One round: (single FlowFiles/s, single p50 s, batch FlowFiles/s, batch-call p50 s)."""
    from flowcore.engine import EnqueueItem

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
            EnqueueItem(content, {"batch": str(b), "line": str(i)}) for i in range(args.batch_size)
        ]
        t0 = time.perf_counter()
        node.enqueue("in", items)
        batch_latencies.append(time.perf_counter() - t0)
    batch_seconds = time.perf_counter() - started
    return (
        args.single / single_seconds,
        statistics.median(latencies),
        args.batches * args.batch_size / batch_seconds,
        statistics.median(batch_latencies),
    )


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


# -- main ------------------------------------------------------------------------------------


def _best(results: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """The round with the most FlowFiles per second (its latencies go with it)."""
    best: dict[str, Any] = min(results, key=lambda result: float(result[key]["seconds"]))[key]
    return best


def _latency(figure: dict[str, Any]) -> str:
    ms = 1000.0
    values = figure["latencies"]
    return f"p50 {percentile(values, 0.5) * ms:.2f} ms, p99 {percentile(values, 0.99) * ms:.2f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--single", type=int, default=20_000, help="single enqueues a round")
    parser.add_argument("--batches", type=int, default=100, help="NDJSON batches a round")
    parser.add_argument("--batch-size", type=int, default=200, help="lines per batch")
    parser.add_argument("--size", type=int, default=1024, help="content bytes per FlowFile")
    parser.add_argument("--connections", type=int, default=32, help="concurrent clients")
    parser.add_argument(
        "--batch-connections", type=int, default=4, help="concurrent clients for batches"
    )
    parser.add_argument("--rounds", type=int, default=3, help="best of this many")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument("--load-generator", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--output", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--trivial-server", metavar="PORT", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.single, args.batches, args.batch_size, args.rounds = 600, 10, 50, 1
    if args.load_generator:
        return load_generator(args)
    if args.trivial_server:
        return trivial_server(args.trivial_server)
    if min(args.single, args.batches, args.batch_size, args.rounds) < 1:
        parser.error("--single, --batches, --batch-size and --rounds must be at least 1")

    from flowcore.engine import Node
    from flowcore.flow import parse_flow
    from flowcore.settings import EngineSettings

    ours: list[dict[str, Any]] = []
    ceilings: list[dict[str, Any]] = []
    limits: list[tuple[float, float, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="flowcore-bench-api-") as name:
        tmp = Path(name)
        proc, url, _log = start_server(tmp)
        trivial, trivial_url = start_trivial(tmp)
        settings = EngineSettings().model_copy(update={"data_dir": tmp / "inprocess-data"})
        node = Node.from_flow(settings, parse_flow(flow()))
        try:
            for _ in range(args.rounds):
                ours.append(drive(url, args, args.single, args.batches, tmp / "ours.json"))
                ceilings.append(drive(trivial_url, args, args.single, 0, tmp / "ceiling.json"))
                limits.append(in_process(node, args))
            total = queued(url)
        finally:
            node.close()
            stop(trivial)
            stop(proc)

    single, batch, ceiling = _best(ours, "single"), _best(ours, "batch"), _best(ceilings, "single")
    limit_single = max(limit[0] for limit in limits)
    limit_single_p50 = min(limit[1] for limit in limits)
    limit_batch = max(limit[2] for limit in limits)
    limit_batch_p50 = min(limit[3] for limit in limits)
    expected = args.rounds * (args.single + args.batches * args.batch_size)
    errors = sum(r["single"]["errors"] + r["batch"]["errors"] for r in ours)
    print(
        f"load: {args.single:,} single enqueues of {args.size} B over {args.connections} "
        f"connections and {args.batches} NDJSON batches of {args.batch_size} over "
        f"{args.batch_connections}, from another process, best of {args.rounds}; non-201 "
        f"answers {errors}; queued after the run {total:,} (expected {expected:,})"
    )
    single_rate = args.single / single["seconds"]
    batch_rate = args.batches * args.batch_size / batch["seconds"]
    ceiling_rate = args.single / ceiling["seconds"]
    single_ratio = single_rate / limit_single
    p99 = percentile(single["latencies"], 0.99) * 1000.0
    met = "met" if single_ratio >= 0.5 and p99 < 20.0 else "MISSED"
    print(
        f"api single enqueue: ours {single_rate:,.0f} FlowFiles/s ({_latency(single)}) | "
        f"in-process enqueue {limit_single:,.0f} FlowFiles/s | ratio {single_ratio:.2f} | "
        f"goal >= 0.5 and p99 < 20 ms: {met}"
    )
    batch_ratio = batch_rate / limit_batch
    print(
        f"api batch enqueue: ours {batch_rate:,.0f} FlowFiles/s "
        f"(per batch of {args.batch_size}: {_latency(batch)}) | "
        f"in-process enqueue {limit_batch:,.0f} FlowFiles/s | ratio {batch_ratio:.2f} | "
        f"goal >= 0.8: {'met' if batch_ratio >= 0.8 else 'MISSED'}"
    )
    print(
        f"context: HTTP ceiling, a trivial endpoint on the same uvicorn stack and client, "
        f"{ceiling_rate:,.0f} requests/s ({_latency(ceiling)}); ours is "
        f"{single_rate / ceiling_rate:.2f} of it"
    )
    print(
        f"context: in-process p50 {limit_single_p50 * 1000:.2f} ms per single enqueue, "
        f"{limit_batch_p50 * 1000:.1f} ms per batch of {args.batch_size}"
    )
    return 0 if errors == 0 and total == expected else 1


if __name__ == "__main__":
    raise SystemExit(main())
