"""Checks of ``data.mdb`` before LMDB maps it, and LMDB's open errors as flowcore errors.

LMDB maps the whole file and trusts its header: a file shorter than the header says
(truncated by a full disk, a bad copy, a crash of the file system) is mapped anyway, and
the first read past its end kills the process with SIGBUS, with no message. So the two
meta pages are read here with ``struct`` first: both must be valid LMDB 0.9 meta pages,
and the file must reach the last page the newer of them names. A map size setting below
what the file already holds is refused too (LMDB would silently map the file's size and
refuse every write).

Layout (LMDB 0.9, 64-bit): page 0 and page 1 are meta pages. Each starts with the page
header (page number, pad, flags, lower/upper: 16 bytes), then the meta: magic, version,
map address, map size, the two database records (48 bytes each; the page size sits in
the first one's pad), the last page number and the transaction id. LMDB uses the meta
with the higher transaction id.
"""

from __future__ import annotations

import functools
import os
import struct
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Concatenate, ParamSpec, Protocol, TypeVar

import lmdb

from flowcore.errors import RepositoryDamagedError, RepositoryError, RepositoryFullError
from flowcore.settings import EngineSettings

DATA_FILE = "data.mdb"
LOCK_FILE = "lock.mdb"
MAP_SIZE_SETTING = "flowfile_repository.max_map_size"

_MAGIC = 0xBEEFC0DE
_DATA_VERSION = 1
_P_META = 0x08
# page header, then magic, version, address, map size, two MDB_db records, last page, txnid
_META = struct.Struct("=QHHHH" + "IIQQ" + "IHHQQQQQ" * 2 + "QQ")
_FLAGS, _MAGIC_AT, _VERSION_AT, _PSIZE_AT = 2, 5, 6, 9
_LAST_PAGE_AT, _TXNID_AT = 25, 26
_MIN_PAGE, _MAX_PAGE = 512, 65536
_P = ParamSpec("_P")
_R = TypeVar("_R")
_Repo = TypeVar("_Repo", bound="_HasSettings")


@dataclass(frozen=True, slots=True)
class DataFileState:
    """``data.mdb`` as found: absent, empty, or valid with its size and what it needs."""

    exists: bool
    size: int
    page_size: int = 0
    used_bytes: int = 0
    last_txnid: int = 0

    @property
    def empty(self) -> bool:
        return self.size == 0


def recovery_hint(data_dir: Path) -> str:
    return (
        f"run 'flowcore repair --data-dir {data_dir}' to see what it would do, "
        "then again with --yes to do it"
    )


def damaged(path: Path, what: str, data_dir: Path) -> RepositoryDamagedError:
    return RepositoryDamagedError(
        f"the FlowFile repository {path} is damaged: {what}. Nothing was changed; "
        f"restore it from a backup, or {recovery_hint(data_dir)}",
        repository="FlowFile",
    )


def inspect(data_file: Path) -> DataFileState:
    """Read the meta pages of ``data_file``; ``ValueError`` says why it is not sound."""
    try:
        with open(data_file, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size == 0:
                return DataFileState(exists=True, size=0)
            first = handle.read(_META.size)
            if len(first) < _META.size:
                msg = f"it is {size} bytes, shorter than an LMDB header"
                raise ValueError(msg)
            meta0 = _parse(first, 0)
            page_size = meta0[_PSIZE_AT]
            if page_size & (page_size - 1) or not _MIN_PAGE <= page_size <= _MAX_PAGE:
                msg = f"its header names an impossible page size ({page_size})"
                raise ValueError(msg)
            handle.seek(page_size)
            second = handle.read(_META.size)
    except FileNotFoundError:
        return DataFileState(exists=False, size=0)
    if len(second) < _META.size:
        msg = f"it is truncated: {size} bytes, shorter than its two header pages"
        raise ValueError(msg)
    meta1 = _parse(second, 1)
    newer = max(meta0, meta1, key=lambda meta: meta[_TXNID_AT])
    used = (newer[_LAST_PAGE_AT] + 1) * page_size
    if size < used:
        msg = (
            f"it is truncated: {size} bytes, but its header says its pages reach "
            f"{used} bytes (page {newer[_LAST_PAGE_AT]} of {page_size} bytes)"
        )
        raise ValueError(msg)
    return DataFileState(True, size, page_size, used, newer[_TXNID_AT])


def _parse(data: bytes, page: int) -> tuple[int, ...]:
    meta = _META.unpack(data)
    if not meta[_FLAGS] & _P_META or meta[_MAGIC_AT] != _MAGIC:
        msg = f"its header page {page} is not an LMDB meta page (overwritten or not LMDB)"
        raise ValueError(msg)
    if meta[_VERSION_AT] != _DATA_VERSION:
        msg = f"its header page {page} has LMDB data version {meta[_VERSION_AT]}"
        raise ValueError(msg)
    return meta


def check_before_open(directory: Path, map_size: int, data_dir: Path) -> DataFileState:
    """Refuse a ``data.mdb`` that LMDB must not map: damaged, or bigger than the largest
    map allowed (``map_size`` is ``flowfile_repository.max_map_size``: the map grows)."""
    data_file = directory / DATA_FILE
    try:
        state = inspect(data_file)
    except ValueError as exc:
        raise damaged(data_file, str(exc), data_dir) from None
    except OSError as exc:
        raise damaged(data_file, f"it cannot be read ({exc})", data_dir) from exc
    if state.used_bytes > map_size:
        msg = (
            f"the FlowFile repository {data_file} holds {state.used_bytes} bytes, more than "
            f"the LMDB map size of {map_size} bytes: raise {MAP_SIZE_SETTING} "
            "(FLOWCORE_FLOWFILE_REPOSITORY__MAX_MAP_SIZE) above it. Nothing was changed"
        )
        raise RepositoryFullError(msg, repository="FlowFile", setting=MAP_SIZE_SETTING)
    return state


def open_failure(directory: Path, exc: lmdb.Error, data_dir: Path) -> RepositoryError:
    """The flowcore error for an LMDB error raised while the environment is opened."""
    data_file = directory / DATA_FILE
    if isinstance(exc, lmdb.MapResizedError | lmdb.MapFullError):
        msg = (
            f"the FlowFile repository {data_file} does not fit its LMDB map ({exc}): "
            f"raise {MAP_SIZE_SETTING}. Nothing was changed"
        )
        return RepositoryFullError(msg, repository="FlowFile", setting=MAP_SIZE_SETTING)
    if isinstance(
        exc,
        lmdb.CorruptedError
        | lmdb.InvalidError
        | lmdb.VersionMismatchError
        | lmdb.PageNotFoundError
        | lmdb.IncompatibleError
        | lmdb.BadChecksumError
        | lmdb.PanicError,
    ):
        return damaged(data_file, f"LMDB reports {exc}", data_dir)
    return RepositoryError(
        f"cannot open the FlowFile repository at {directory}: {exc}", repository="FlowFile"
    )


class _HasSettings(Protocol):
    _settings: EngineSettings


def damage_as_error(
    method: Callable[Concatenate[_Repo, _P], _R],
) -> Callable[Concatenate[_Repo, _P], _R]:
    """Turn the LMDB errors of a read of the whole repository (recovery) into flowcore's:
    a page found corrupted there is reported as damage, not as a raw traceback."""

    @functools.wraps(method)
    def reading(self: _Repo, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return method(self, *args, **kwargs)
        except lmdb.Error as exc:
            settings = self._settings
            directory = settings.flowfile_repository_dir
            raise open_failure(directory, exc, settings.data_dir) from exc

    return reading


@contextmanager
def open_errors(directory: Path, data_dir: Path) -> Iterator[None]:
    """Turn LMDB errors raised inside into ``open_failure``'s flowcore errors."""
    try:
        yield
    except lmdb.Error as exc:
        raise open_failure(directory, exc, data_dir) from exc
