"""PutFile's files on disk: temporary files, the delivery marker, and recognising a file
already delivered for the same FlowFile.

A FlowFile's file is written to a hidden temporary file named after the FlowFile's uuid
(``.putfile-<uuid>.tmp``, in the target's directory) and then moved into place. Naming it
after the uuid means a temporary file left by a crash belongs to a FlowFile that is still
queued (its session never committed) and is taken over when that FlowFile is delivered
again; temporary files nobody takes over (their FlowFile was removed meanwhile) are swept
once they are stale.

The delivery marker is the extended attribute ``user.flowcore.uuid`` holding the uuid of
the FlowFile the file was written for. It is set on the temporary file, so the file
appears under its name already marked.
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
import re
import stat
from collections.abc import Iterable

TEMPORARY_PREFIX = ".putfile-"
TEMPORARY_SUFFIX = ".tmp"
MARKER = "user.flowcore.uuid"
STALE_TEMPORARY_MS = 10 * 60 * 1000
"""A temporary file unchanged (its status change time) for this long has no writer."""

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
_SAFE_UUID = re.compile(r"[0-9A-Za-z-]{1,64}")
_HAS_XATTR = hasattr(os, "setxattr")
_NO_XATTR = {errno.ENOTSUP, errno.EOPNOTSUPP}
_COMPARE_CHUNK = 1024 * 1024


def temporary_name(uuid: str) -> str:
    """The temporary file's name for a FlowFile; a uuid that is not a plain token (only
    a receiver that keeps identities could bring one) is replaced by its digest."""
    if _SAFE_UUID.fullmatch(uuid) is None:
        uuid = hashlib.sha256(uuid.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"{TEMPORARY_PREFIX}{uuid}{TEMPORARY_SUFFIX}"


def open_temporary(path: str) -> int:
    """Create the temporary file exclusively (never through a symbolic link); one left
    by an earlier attempt for the same FlowFile is removed and created afresh."""
    try:
        return os.open(path, _FLAGS, 0o666)
    except FileExistsError:
        os.unlink(path)
        return os.open(path, _FLAGS, 0o666)


def remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def set_marker(descriptor: int, uuid: str) -> bool:
    """Mark the open file as written for ``uuid``; False when the file system has no
    extended attributes (then identical content alone recognises a delivery)."""
    if not _HAS_XATTR:
        return False
    try:
        os.setxattr(descriptor, MARKER, uuid.encode())
    except OSError as exc:
        if exc.errno in _NO_XATTR:
            return False
        raise
    return True


def delivered_before(
    path: str, existing: os.stat_result, uuid: str, size: int, content: Iterable[bytes]
) -> bool:
    """True when the existing file at ``path`` is this FlowFile's own earlier delivery.

    It must be a regular file of the content's size whose bytes equal the content and,
    where the file system keeps extended attributes, whose marker names the same uuid (a
    file without the marker there was not written for this FlowFile). ``content`` is
    consumed only when the cheap checks pass.
    """
    if not stat.S_ISREG(existing.st_mode) or existing.st_size != size:
        return False
    if _HAS_XATTR:
        try:
            marker = os.getxattr(path, MARKER, follow_symlinks=False)
        except OSError as exc:
            if exc.errno not in _NO_XATTR:
                return False  # ENODATA: not marked, so not written for this FlowFile
        else:
            if marker != uuid.encode():
                return False
    return _same_bytes(path, content)


def _same_bytes(path: str, content: Iterable[bytes]) -> bool:
    with open(path, "rb", buffering=0) as existing:
        for chunk in content:
            view = memoryview(chunk)
            while view:
                read = existing.read(min(len(view), _COMPARE_CHUNK))
                if not read or read != view[: len(read)]:
                    return False
                view = view[len(read) :]
        return existing.read(1) == b""


def sweep_stale_temporaries(directory: str, now_ms: int, logger: logging.Logger) -> int:
    """Remove PutFile's temporary files in ``directory`` that are stale; how many.

    Staleness is judged by the status change time, which writing, renaming, linking and
    setting times or permissions all update, so a file some writer is still working on
    is never taken.
    """
    removed = 0
    try:
        entries = os.scandir(directory)
    except OSError:
        return 0
    with entries:
        for entry in entries:
            name = entry.name
            if not (name.startswith(TEMPORARY_PREFIX) and name.endswith(TEMPORARY_SUFFIX)):
                continue
            try:
                status = entry.stat(follow_symlinks=False)
                if not stat.S_ISREG(status.st_mode):
                    continue
                if now_ms - status.st_ctime_ns // 1_000_000 < STALE_TEMPORARY_MS:
                    continue
                os.unlink(entry.path)
            except FileNotFoundError:
                continue
            except OSError as exc:
                logger.warning("Could not remove the stale temporary file %s: %s", entry.path, exc)
                continue
            removed += 1
    if removed:
        logger.info("Removed %d stale temporary file(s) from %s", removed, directory)
    return removed
