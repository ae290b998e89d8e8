"""The process's SparkSessions: started lazily, once per master, and shared.

One Python process can hold one classic SparkContext (embedded ``local[...]`` or a
``spark://`` standalone cluster), so every component that offloads work shares it; Spark
Connect (``sc://``) sessions are plain clients and are kept one per address. PySpark is
imported only here, inside functions, so the engine starts without touching a JVM.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from flowcore.errors import SparkJobError, SparkUnavailableError
from flowcore.settings import SparkSettings, spark_master_endpoints
from flowcore.units import parse_time_period

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger("flowcore.offload")


# Defaults for sessions this process starts; SparkSettings.config overrides any of them.
_CLASSIC_DEFAULTS = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.shuffle.partitions": "8",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.caseSensitive": "true",
    "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
}


def is_remote(master: str) -> bool:
    """Whether the master is a Spark Connect address (``sc://``)."""
    return master.startswith("sc://")


def is_local(master: str) -> bool:
    """Whether the master runs Spark embedded in this process (``local``, ``local[N]``)."""
    return master == "local" or master.startswith("local[")


def master_endpoints(master: str) -> list[tuple[str, int]]:
    """The (host, port) pairs a ``spark://`` or ``sc://`` master is reached at."""
    try:
        return spark_master_endpoints(master)
    except ValueError as exc:
        raise SparkUnavailableError(str(exc)) from None


def check_reachable(master: str, timeout_s: float) -> None:
    """Fail fast, with the reason, when no endpoint of a cluster master accepts TCP."""
    errors = []
    for host, port in master_endpoints(master):
        try:
            with socket.create_connection((host, port), timeout=timeout_s):
                return
        except OSError as exc:
            errors.append(f"{host}:{port}: {exc.strerror or exc}")
    if errors:
        msg = f"Spark master {master} is unreachable: {'; '.join(errors)}"
        raise SparkUnavailableError(msg)


class SparkProvider:
    """Starts and hands out the SparkSessions of this process (thread-safe)."""

    _lock = threading.Lock()
    _classic: tuple[str, SparkSession] | None = None
    _remote: dict[str, SparkSession] = {}

    @classmethod
    def session(cls, settings: SparkSettings) -> SparkSession:
        """The session for ``settings.master``, started on first use and then reused.

        PySpark allows a process either one classic session (embedded or ``spark://``)
        or Spark Connect sessions, not both. An embedded ``local[...]`` master is served
        by whichever local session already runs; asking for another master while a
        session that cannot serve it runs is an error rather than a silent switch.
        """
        master = settings.master.strip()
        if master not in cls.running():
            # Outside the lock: an unreachable cluster must not hold up other callers.
            check_reachable(master, parse_time_period(settings.connect_timeout))
        with cls._lock:
            if cls._classic is not None and not _is_alive(cls._classic[1]):
                cls._classic = None
            if is_remote(master):
                session = cls._remote.get(master)
                if session is None:
                    cls._refuse_beside(master, cls._classic[0] if cls._classic else None)
                    session = cls._start(master, settings)
                    cls._remote[master] = session
                return session
            if cls._classic is not None:
                running_master, session = cls._classic
                if running_master == master or (is_local(master) and is_local(running_master)):
                    return session
                cls._refuse_beside(master, running_master)
            cls._refuse_beside(master, next(iter(cls._remote), None))
            session = cls._start(master, settings)
            cls._classic = (master, session)
            return session

    @staticmethod
    def _refuse_beside(master: str, running: str | None) -> None:
        if running is not None:
            msg = (
                f"Spark master {master} cannot be used: this process already runs a Spark "
                f"session on {running}, and PySpark allows only one kind per process"
            )
            raise SparkUnavailableError(msg)

    @classmethod
    def running(cls) -> list[str]:
        """Masters with a live session in this process."""
        with cls._lock:
            masters = list(cls._remote)
            if cls._classic is not None and _is_alive(cls._classic[1]):
                masters.append(cls._classic[0])
            return masters

    @classmethod
    def stop_all(cls) -> None:
        """Stop every session this process started. Tests and benchmarks call it between
        runs; a node does not, since the session is the process's, shared by every node
        in it, and the embedded driver ends with the process."""
        with cls._lock:
            sessions = list(cls._remote.values())
            if cls._classic is not None:
                sessions.append(cls._classic[1])
            cls._classic = None
            cls._remote = {}
        for session in sessions:
            try:
                session.stop()
            except Exception:
                log.exception("error stopping a SparkSession")

    @staticmethod
    def _start(master: str, settings: SparkSettings) -> SparkSession:
        try:
            from pyspark.sql import SparkSession
        except ImportError as exc:
            msg = f"Spark is not installed ({exc}); install pyspark to offload to {master}"
            raise SparkUnavailableError(msg) from exc
        # Python workers must run this interpreter, which has flowcore and pyarrow.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        builder = SparkSession.builder.appName(settings.app_name)
        if is_remote(master):
            builder = builder.remote(master)
            config = dict(settings.config)
        else:
            builder = builder.master(master)
            config = {**_CLASSIC_DEFAULTS, **_quiet_driver(), **settings.config}
            if is_local(master):
                # The embedded driver talks to itself: no lookup of the host's address.
                os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        for key, value in config.items():
            builder = builder.config(key, value)
        log.info("starting a SparkSession on %s", master)
        try:
            session = builder.getOrCreate()
            if not is_remote(master):
                session.sparkContext.setLogLevel("ERROR")
        except Exception as exc:
            msg = f"Spark could not start on {master}: {_first_line(exc)}"
            raise SparkUnavailableError(msg) from exc
        return session


def _quiet_driver() -> dict[str, str]:
    """Driver options that keep Spark's start-up notices off the console (errors only)."""
    log4j = Path(__file__).with_name("log4j2.properties")
    return {"spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={log4j.as_uri()}"}


@contextmanager
def spark_errors(what: str) -> Iterator[None]:
    """Turn any failure of the Spark work inside into a ``SparkJobError`` with its reason."""
    try:
        yield
    except (SparkJobError, SparkUnavailableError):
        raise
    except Exception as exc:
        msg = f"Spark job '{what}' failed: {_first_line(exc)}"
        raise SparkJobError(msg) from exc


def _is_alive(session: SparkSession) -> bool:
    return getattr(session.sparkContext, "_jsc", None) is not None


def _first_line(exc: BaseException) -> str:
    """The informative line of an exception: the Python error a task raised if there is
    one (its traceback is nested in the Java one), else the first line of the message."""
    java = getattr(exc, "java_exception", None)
    text = str(java.toString() if java is not None else exc).strip()
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent")]
    if starts:
        found = []
        for line in lines[starts[-1] + 1 :]:
            if line.startswith(("\tat ", "JVM stacktrace")):
                break
            if line and not line[0].isspace() and not line.startswith("SQLSTATE"):
                found.append(line)
        if found:
            return found[-1][:500]
    for line in lines:
        if line.strip():
            return line.strip()[:500]
    return type(exc).__name__
