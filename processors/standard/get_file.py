"""GetFile: picks up files from a directory and turns them into FlowFiles.

Follows NiFi's GetFile. Choices made here:

* A listing is kept between triggers and taken from in batches; the directory is listed
  again when the listing is used up and the Polling Interval has passed (NiFi's file
  queue). Each file is checked again (age, size, readability) when it is taken, so a
  stale listing never brings in a file that no longer qualifies. Files of one listing
  are taken oldest first (by last-modified time, then path).
* File ages are measured against the injected clock (``context.now_ms()``).
* Symbolic links to directories are not followed when recursing (no cycles); symbolic
  links to files are read like files. Hidden means a name starting with ".", as Java's
  ``File.isHidden`` on Unix; hidden directories are still searched (as in NiFi), their
  files being judged by their own names.
* The source file is deleted (Keep Source File false) only after the session has
  committed, so a failed commit never loses data; a crash between the commit and the
  delete can pick the file up twice, as in NiFi.
* Attributes: ``filename``, ``path`` (relative to the Input Directory, ending in "/":
  "/" for files directly in it, as NiFi's), ``absolute.path`` (the file's directory,
  ending in "/"), ``file.size``, ``file.creationTime`` (birth time where the platform
  has it, else the last-modified time, as Java reports it on Linux),
  ``file.lastModifiedTime``, ``file.lastAccessTime`` (``yyyy-MM-dd'T'HH:mm:ssZ`` in UTC),
  ``file.owner``, ``file.group`` and ``file.permissions`` (``rw-r--r--``).
* A RECEIVE event with the file's ``file://`` URI is reported for each FlowFile.
"""

from __future__ import annotations

import collections
import os
import re
import stat
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flowcore.processor import (
    ExpressionLanguageScope,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    Scheduling,
    processor,
    validators,
)
from flowcore.session import ProcessSession
from processors.standard._support import (
    directory_exists,
    file_name_text,
    format_file_date,
    permissions_string,
)

try:  # pragma: no cover - platform dependent
    import grp
    import pwd
except ImportError:  # pragma: no cover
    grp = None  # type: ignore[assignment]
    pwd = None  # type: ignore[assignment]

INPUT_DIRECTORY = PropertyDescriptor(
    name="Input Directory",
    display_name="Input Directory",
    description="The input directory from which to pull files",
    required=True,
    validators=[directory_exists],
    expression_language_scope=ExpressionLanguageScope.ENVIRONMENT,
    external_resource=True,
)
FILE_FILTER = PropertyDescriptor(
    name="File Filter",
    display_name="File Filter",
    description="Only files whose names match the given regular expression will be picked up",
    default=r"[^\.].*",
    required=True,
    validators=[validators.regular_expression],
)
PATH_FILTER = PropertyDescriptor(
    name="Path Filter",
    display_name="Path Filter",
    description="When Recurse Subdirectories is true, then only subdirectories whose path "
    "matches the given regular expression will be scanned",
    validators=[validators.regular_expression],
)
BATCH_SIZE = PropertyDescriptor(
    name="Batch Size",
    display_name="Batch Size",
    description="The maximum number of files to pull in each iteration",
    default="10",
    required=True,
    validators=[validators.positive_integer],
)
KEEP_SOURCE_FILE = PropertyDescriptor(
    name="Keep Source File",
    display_name="Keep Source File",
    description="If true, the file is not deleted after it has been copied to the Content "
    "Repository; this causes the file to be picked up continually and is useful for "
    "testing purposes. If not keeping original NiFi will need write permissions on the "
    "directory it is pulling from otherwise it will ignore the file.",
    default="false",
    required=True,
    allowable_values=["true", "false"],
    validators=[validators.boolean],
)
RECURSE = PropertyDescriptor(
    name="Recurse Subdirectories",
    display_name="Recurse Subdirectories",
    description="Indicates whether or not to pull files from subdirectories",
    default="true",
    required=True,
    allowable_values=["true", "false"],
    validators=[validators.boolean],
)
POLLING_INTERVAL = PropertyDescriptor(
    name="Polling Interval",
    display_name="Polling Interval",
    description="Indicates how long to wait before performing a directory listing",
    default="0 sec",
    required=True,
    validators=[validators.time_period],
)
IGNORE_HIDDEN_FILES = PropertyDescriptor(
    name="Ignore Hidden Files",
    display_name="Ignore Hidden Files",
    description="Indicates whether or not hidden files should be ignored",
    default="true",
    required=True,
    allowable_values=["true", "false"],
    validators=[validators.boolean],
)
MIN_AGE = PropertyDescriptor(
    name="Minimum File Age",
    display_name="Minimum File Age",
    description="The minimum age that a file must be in order to be pulled; any file "
    "younger than this amount of time (according to last modification date) will be ignored",
    default="0 sec",
    required=True,
    validators=[validators.time_period],
)
MAX_AGE = PropertyDescriptor(
    name="Maximum File Age",
    display_name="Maximum File Age",
    description="The maximum age that a file must be in order to be pulled; any file older "
    "than this amount of time (according to last modification date) will be ignored",
    validators=[validators.time_period],
)
MIN_SIZE = PropertyDescriptor(
    name="Minimum File Size",
    display_name="Minimum File Size",
    description="The minimum size that a file must be in order to be pulled",
    default="0 B",
    required=True,
    validators=[validators.data_size],
)
MAX_SIZE = PropertyDescriptor(
    name="Maximum File Size",
    display_name="Maximum File Size",
    description="The maximum size that a file can be in order to be pulled",
    validators=[validators.data_size],
)

SUCCESS = Relationship("success", "All files are routed to success")


@dataclass(frozen=True, slots=True)
class _Filter:
    root: Path
    file_pattern: re.Pattern[str]
    path_pattern: re.Pattern[str] | None
    recurse: bool
    keep_source: bool
    ignore_hidden: bool
    min_age_ms: int
    max_age_ms: int | None
    min_size: int
    max_size: int | None
    path_filters_top: bool = False
    """ListFile's Path Filter also judges the files directly in the directory (their
    relative path is empty); GetFile's leaves them alone."""

    def accepts(self, path: Path, st: os.stat_result, now_ms: int) -> bool:
        """NiFi's file filter, on a file's current status."""
        size = st.st_size
        if size < self.min_size or (self.max_size is not None and size > self.max_size):
            return False
        age = now_ms - st.st_mtime_ns // 1_000_000
        if age < self.min_age_ms or (self.max_age_ms is not None and age > self.max_age_ms):
            return False
        if self.ignore_hidden and path.name.startswith("."):
            return False
        if self.path_pattern is not None:
            relative = os.path.relpath(path.parent, self.root)
            if relative == ".":
                if self.path_filters_top and not self.path_pattern.fullmatch(""):
                    return False
            elif not self.path_pattern.fullmatch(relative):
                return False
        if not os.access(path, os.R_OK):
            return False
        if not self.keep_source and not os.access(path.parent, os.W_OK):
            return False
        return bool(self.file_pattern.fullmatch(path.name))

    def walk(self, now_ms: int, logger: Any) -> Iterator[tuple[Path, os.stat_result]]:
        """The regular files under ``root`` (and below, with ``recurse``) that this filter
        accepts, with their status; a directory that cannot be listed is logged and passed.
        Shared by GetFile and ListFile."""
        pending = [self.root]
        while pending:
            directory = pending.pop()
            try:
                entries = list(os.scandir(directory))
            except OSError as exc:
                logger.warning("Cannot list directory %s: %s", directory, exc)
                continue
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if self.recurse:
                            pending.append(Path(entry.path))
                        continue
                    st = entry.stat()  # follows a link to a file
                except OSError:
                    continue
                if not stat.S_ISREG(st.st_mode):
                    continue
                path = Path(entry.path)
                if self.accepts(path, st, now_ms):
                    yield path, st


@processor("GetFile")
class GetFile(Processor):
    description = (
        "Creates FlowFiles from files in a directory. Flowcore will ignore files it doesn't "
        "have at least read permissions for."
    )
    tags = ("local", "files", "filesystem", "ingest", "ingress", "get", "source", "input")
    property_descriptors = (
        INPUT_DIRECTORY,
        FILE_FILTER,
        PATH_FILTER,
        BATCH_SIZE,
        KEEP_SOURCE_FILE,
        RECURSE,
        POLLING_INTERVAL,
        IGNORE_HIDDEN_FILES,
        MIN_AGE,
        MAX_AGE,
        MIN_SIZE,
        MAX_SIZE,
    )
    relationships = (SUCCESS,)
    scheduling = Scheduling(input_required=False)

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._listing: collections.deque[Path] = collections.deque()
        self._in_flight: set[Path] = set()
        self._last_listing_ms: int | None = None

    # -- lifecycle ------------------------------------------------------------------------

    def on_scheduled(self, context: ProcessContext) -> None:
        with self._lock:
            self._listing.clear()
            self._last_listing_ms = None

    def on_stopped(self, context: ProcessContext) -> None:
        with self._lock:
            self._listing.clear()
            self._last_listing_ms = None

    def _filter(self, context: ProcessContext, directory: str) -> _Filter:
        path_filter = context.get_property(PATH_FILTER).value
        return _Filter(
            root=Path(directory).absolute(),
            file_pattern=re.compile(context.get_property(FILE_FILTER).as_str()),
            path_pattern=re.compile(path_filter) if path_filter else None,
            recurse=context.get_property(RECURSE).as_bool(),
            keep_source=context.get_property(KEEP_SOURCE_FILE).as_bool(),
            ignore_hidden=context.get_property(IGNORE_HIDDEN_FILES).as_bool(),
            min_age_ms=context.get_property(MIN_AGE).as_time_period_ms() or 0,
            max_age_ms=context.get_property(MAX_AGE).as_time_period_ms(),
            min_size=context.get_property(MIN_SIZE).as_data_size() or 0,
            max_size=context.get_property(MAX_SIZE).as_data_size(),
        )

    # -- listing --------------------------------------------------------------------------

    def _list(self, spec: _Filter, now_ms: int) -> list[Path]:
        found = [
            (st.st_mtime_ns, str(path), path)
            for path, st in spec.walk(now_ms, self.logger)
            if path not in self._in_flight
        ]
        found.sort()
        return [path for _, _, path in found]

    def _take(self, context: ProcessContext, spec: _Filter, batch: int) -> list[Path]:
        now = context.now_ms()
        taken: list[Path] = []
        with self._lock:
            if not self._listing:
                interval = context.get_property(POLLING_INTERVAL).as_time_period_ms() or 0
                last = self._last_listing_ms
                if last is None or now - last >= interval:
                    self._last_listing_ms = now
                    self._listing.extend(self._list(spec, now))
            while self._listing and len(taken) < batch:
                path = self._listing.popleft()
                if path in self._in_flight:
                    continue
                try:
                    st = path.stat()
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode) and spec.accepts(path, st, now):
                    taken.append(path)
            self._in_flight.update(taken)
        return taken

    # -- triggering -----------------------------------------------------------------------

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        directory = context.get_property(INPUT_DIRECTORY).evaluate().as_str()
        if not directory.strip():
            self.logger.error("Input Directory evaluated to an empty value; yielding")
            context.yield_processor()
            return
        spec = self._filter(context, directory)
        if not spec.root.is_dir():
            self.logger.error(
                "Input Directory %s does not exist or is not a directory; yielding", spec.root
            )
            context.yield_processor()
            return
        files = self._take(context, spec, context.get_property(BATCH_SIZE).as_int() or 10)
        if not files:
            context.yield_processor()
            return
        try:
            imported = [path for path in files if self._import(context, session, spec, path)]
            session.commit()
            if not spec.keep_source:
                for path in imported:
                    try:
                        path.unlink()
                    except FileNotFoundError:
                        pass
                    except OSError as exc:
                        self.logger.warning("Could not delete %s after import: %s", path, exc)
        finally:
            with self._lock:
                self._in_flight.difference_update(files)

    def _import(
        self, context: ProcessContext, session: ProcessSession, spec: _Filter, path: Path
    ) -> bool:
        started = context.now_ms()
        flowfile = session.create()
        try:
            st = path.stat()
            flowfile = session.import_from(path, flowfile)
        except OSError as exc:
            self.logger.warning("Could not import %s, skipping it: %s", path, exc)
            session.remove(flowfile)
            return False
        relative = os.path.relpath(path.parent, spec.root)
        attributes = {
            "filename": file_name_text(path.name),
            "path": "/" if relative == "." else file_name_text(relative) + "/",
            "absolute.path": file_name_text(str(path.parent)) + "/",
            "file.size": str(flowfile.size),
            **_file_attributes(st),
        }
        flowfile = session.put_all_attributes(flowfile, attributes)
        session.provenance.receive(flowfile, path.as_uri(), duration_ms=context.now_ms() - started)
        session.transfer(flowfile, SUCCESS)
        return True


def _file_attributes(st: os.stat_result) -> dict[str, str]:
    modified = st.st_mtime_ns // 1_000_000
    birth = getattr(st, "st_birthtime", None)
    attributes = {
        "file.creationTime": format_file_date(int(birth * 1000) if birth else modified),
        "file.lastModifiedTime": format_file_date(modified),
        "file.lastAccessTime": format_file_date(st.st_atime_ns // 1_000_000),
        "file.permissions": permissions_string(st.st_mode),
    }
    owner, group = str(st.st_uid), str(st.st_gid)
    if pwd is not None:
        try:
            owner = pwd.getpwuid(st.st_uid).pw_name
        except KeyError:
            pass
    if grp is not None:
        try:
            group = grp.getgrgid(st.st_gid).gr_name
        except KeyError:
            pass
    attributes["file.owner"] = owner
    attributes["file.group"] = group
    return attributes
