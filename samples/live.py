"""The end of ``make demo``: one sample kept running under ``flowcore serve``, for the web UI.

``python -m samples.live start`` serves the pos_merge sample in the background: its GetFile
reads the three registers' exports again every 15 sec (instead of once), so the canvas,
the queues, provenance (JOIN events with their merge reason) and lineage keep moving. The
server runs detached from the terminal, with its pid, log, flow and data directory under
``demo-data/live/`` (git-ignored); ``start`` returns once it answers and prints the UI's
address. ``python -m samples.live stop`` (``make demo-stop``) stops it cleanly.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import yaml

from samples.demo import SAMPLES, sample_document

LIVE = Path("demo-data") / "live"
PID_FILE = LIVE / "serve.pid"
LOG_FILE = LIVE / "serve.log"
SAMPLE = "pos_merge"
FEED_PERIOD = "15 sec"
DEFAULT_PORT = 8080
START_SECONDS = 60.0
STOP_SECONDS = 30.0


def live_flow(out_dir: Path) -> dict[str, object]:
    """The sample's flow with its source reading again every ``FEED_PERIOD``."""
    flow_file = SAMPLES / SAMPLE / "flow.yaml"
    document = sample_document(flow_file)
    flow = document["flow"]
    flow["name"] = f"{flow['name']} (live)"
    flow.setdefault("parameters", {})["out_dir"] = str(out_dir.resolve())
    flow["parameters"]["input_dir"] = str((SAMPLES / SAMPLE / "input").resolve())
    for spec in flow["processors"].values():
        if spec.get("type") == "GetFile":
            spec["schedule"] = {"period": FEED_PERIOD}
    return document


def _port() -> int:
    """``FLOWCORE_DEMO_PORT``, else 8080 when it is free, else any free port."""
    wanted = int(os.environ.get("FLOWCORE_DEMO_PORT", DEFAULT_PORT))
    for port in (wanted, 0):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return int(sock.getsockname()[1])
    raise RuntimeError("no free port on 127.0.0.1")


def _running_pid() -> int | None:
    try:
        pid = int(PID_FILE.read_text().strip())
    except (FileNotFoundError, ValueError):
        return None
    try:  # reaped here when this process started it (a zombie still answers kill 0)
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return None
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return pid
    return pid


def stop() -> int:
    """Stop the served sample (SIGTERM: the node closes cleanly)."""
    pid = _running_pid()
    if pid is None:
        print("no demo server is running")
        PID_FILE.unlink(missing_ok=True)
        return 0
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    while time.monotonic() < deadline and _running_pid() is not None:
        time.sleep(0.1)
    if _running_pid() is not None:
        print(f"the demo server (pid {pid}) did not stop in {STOP_SECONDS:.0f} s; see {LOG_FILE}")
        return 1
    PID_FILE.unlink(missing_ok=True)
    print(f"stopped the demo server (pid {pid})")
    return 0


def start() -> int:
    """Serve the sample in the background and print the UI's address."""
    if _running_pid() is not None:
        stop()
    shutil.rmtree(LIVE, ignore_errors=True)
    LIVE.mkdir(parents=True)
    flow_path = LIVE / "flow.yaml"
    flow_path.write_text(yaml.safe_dump(live_flow(LIVE / "out"), sort_keys=False))
    port = _port()
    with LOG_FILE.open("wb") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cli",
                "serve",
                str(flow_path),
                "--data-dir",
                str(LIVE / "data"),
                "--port",
                str(port),
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # outlives `make demo`, untouched by its terminal's signals
        )
    PID_FILE.write_text(f"{process.pid}\n")
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            print(f"the demo server exited at start-up:\n{LOG_FILE.read_text(errors='replace')}")
            PID_FILE.unlink(missing_ok=True)
            return 1
        try:
            if httpx.get(f"{url}healthz", timeout=1.0).status_code == 200:
                break
        except httpx.TransportError:
            time.sleep(0.1)
    else:
        print(f"the demo server did not answer in {START_SECONDS:.0f} s; see {LOG_FILE}")
        return 1
    print(f"sample '{SAMPLE}' is kept running (its source reads again every {FEED_PERIOD})")
    print(f"flowcore UI: {url}")
    print(f"stop it with: make demo-stop   (pid {process.pid}, log {LOG_FILE})")
    return 0


def main(argv: list[str]) -> int:
    commands = {"start": start, "stop": stop}
    if len(argv) != 1 or argv[0] not in commands:
        print("usage: python -m samples.live start|stop", file=sys.stderr)
        return 2
    return commands[argv[0]]()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
