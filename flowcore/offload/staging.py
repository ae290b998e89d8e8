"""The staging area: directories where data passes to and from Spark as Parquet files.

By default it is ``<first content container>/staging``, so staged bins sit on the same
disk as the content they came from. Each job gets a fresh directory, removed when the job
ends; whatever a crash left behind is swept when the node starts.
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
        """Remove what earlier runs left behind; returns how many entries went."""
        try:
            entries = list(self.root.iterdir())
        except FileNotFoundError:
            return 0
        for entry in entries:
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
        if entries:
            log.info("swept %d leftover staging entries from %s", len(entries), self.root)
        return len(entries)
