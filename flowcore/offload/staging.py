"""The staging area: directories where data passes to and from Spark as Parquet files.

By default it is ``<first content container>/staging``, so staged bins sit on the same
disk as the content they came from. Each job gets a fresh directory, removed when the job
ends; whatever a crash left behind is swept when the node starts. The sweep removes only
job directories (``<name>-<32 hex digits>``, as ``job`` makes them), so a
``spark.staging_dir`` pointed at a directory that holds anything else loses nothing of it.
Engines that share one staging directory must not start while another runs a job there.
"""

from __future__ import annotations

import logging
import re
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

log = logging.getLogger("flowcore.offload")

STAGING_DIR = "staging"
_JOB_DIRECTORY = re.compile(r"[A-Za-z0-9_.-]+-[0-9a-f]{32}")


class StagingArea:
    """Job directories under one root, owned by one node."""

    def __init__(self, root: Path) -> None:
        # Absolute: Spark resolves paths as file URIs, which cannot be relative.
        self.root = root.absolute()

    @contextmanager
    def job(self, name: str) -> Iterator[Path]:
        """A fresh, empty directory for one job, removed with its contents afterwards."""
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.") or "job"
        directory = self.root / f"{safe}-{uuid.uuid4().hex}"
        directory.mkdir(parents=True)
        try:
            yield directory
        finally:
            shutil.rmtree(directory, ignore_errors=True)

    def sweep(self) -> int:
        """Remove the job directories earlier runs left behind; returns how many went."""
        try:
            entries = [
                entry
                for entry in self.root.iterdir()
                if _JOB_DIRECTORY.fullmatch(entry.name)
                and entry.is_dir()
                and not entry.is_symlink()
            ]
        except FileNotFoundError:
            return 0
        for entry in entries:
            shutil.rmtree(entry, ignore_errors=True)
        if entries:
            log.info("swept %d leftover staging job directories from %s", len(entries), self.root)
        return len(entries)
