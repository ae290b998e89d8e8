"""A real Spark standalone cluster on 127.0.0.1 (one master, one worker) for tests.

Started with the installed pyspark's ``spark-class``; readiness is read from the
processes' logs (the master elected leader, the worker registered), never waited for.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

START_TIMEOUT_S = 90.0


def free_port() -> int:
    with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def _environment(work_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        SPARK_HOME=str(spark_home()),
        SPARK_LOCAL_IP="127.0.0.1",
        SPARK_WORKER_DIR=str(work_dir / "worker"),
        SPARK_LOG_DIR=str(work_dir / "logs"),
        SPARK_NO_DAEMONIZE="1",
    )
    return env


def _start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            [str(spark_home() / "bin" / "spark-class"), *args],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def _wait_for(process: subprocess.Popen[bytes], log: Path, pattern: str, what: str) -> None:
    """Poll the process's log until it shows ``pattern`` (or fail with the log's tail)."""
    wanted = re.compile(pattern)
    deadline = time.monotonic() + START_TIMEOUT_S
    text = ""
    while time.monotonic() < deadline and process.poll() is None:
        text = log.read_text(errors="replace")
        if wanted.search(text):
            return
        time.sleep(0.1)  # polling a log, not waiting for a time-dependent outcome
    tail = "\n".join(log.read_text(errors="replace").splitlines()[-30:])
    raise RuntimeError(f"the Spark {what} did not become ready; its log ends:\n{tail}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def spark_standalone_cluster(work_dir: Path, cores: int = 1) -> Iterator[str]:
    """A running master and worker; yields the master URL ``spark://127.0.0.1:PORT``."""
    work_dir.mkdir(parents=True, exist_ok=True)
    env = _environment(work_dir)
    master_log, worker_log = work_dir / "master.log", work_dir / "worker.log"
    master_port = free_port()
    master_url = f"spark://127.0.0.1:{master_port}"
    master = _start(
        [
            "org.apache.spark.deploy.master.Master",
            "--host",
            "127.0.0.1",
            "--port",
            str(master_port),
            "--webui-port",
            str(free_port()),
        ],
        env,
        master_log,
    )
    processes = [master]
    try:
        _wait_for(master, master_log, r"I have been elected leader", "master")
        worker = _start(
            [
                "org.apache.spark.deploy.worker.Worker",
                "--host",
                "127.0.0.1",
                "--port",
                str(free_port()),
                "--webui-port",
                str(free_port()),
                "--cores",
                str(cores),
                "--memory",
                "1g",
                master_url,
            ],
            env,
            worker_log,
        )
        processes.append(worker)
        _wait_for(worker, worker_log, r"Successfully registered with master", "worker")
        yield master_url
    finally:
        for process in reversed(processes):
            _stop(process)


@contextmanager
def spark_connect_server(work_dir: Path) -> Iterator[str]:
    """A Spark Connect server (embedded ``local[1]``); yields ``sc://127.0.0.1:PORT``."""
    import sys

    work_dir.mkdir(parents=True, exist_ok=True)
    env = {**_environment(work_dir), "PYSPARK_PYTHON": sys.executable}
    port = free_port()
    log = work_dir / "connect.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [
                str(spark_home() / "bin" / "spark-submit"),
                "--class",
                "org.apache.spark.sql.connect.service.SparkConnectServer",
                "--master",
                "local[1]",
                "--conf",
                f"spark.connect.grpc.binding.port={port}",
                "--conf",
                "spark.ui.enabled=false",
                "--conf",
                "spark.sql.shuffle.partitions=2",
                "spark-internal",
            ],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_for(server, log, r"Spark Connect server started", "Connect server")
        yield f"sc://127.0.0.1:{port}"
    finally:
        _stop(server)
