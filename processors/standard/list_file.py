"""ListFile: lists the files of a directory as FlowFiles without content, once each.

Follows NiFi's ListFile. Choices made here:

* Listing Strategy ``Tracking Timestamps`` keeps, in the processor's state (committed with
  the listed FlowFiles, so a restart never lists a file again), ``listing.timestamp`` (the
  newest last-modified time listed) and ``id.<n>`` (the paths listed with exactly that
  time). A file is listed when it is newer than ``listing.timestamp``, or as old and not
  among those paths. NiFi also holds back files modified in the last few hundred
  milliseconds (its listing lag); here the second listing of the same millisecond is
  caught by the ``id.<n>`` paths instead. ``No Tracking`` lists every matching file each
  time; ``Tracking Entities`` is not offered.
* Filters (File Filter on the name, Path Filter on the relative directory, hidden files,
  age on the injected clock, size) are GetFile's, except that the Path Filter (used only
  when recursing, as NiFi's) also judges the files directly in the Input Directory, whose
  relative directory is empty: ``.+`` leaves them out, as NiFi's ListFile does. Files
  are listed oldest first.
* Attributes: ``filename``, ``path`` (relative, "./" or ending in "/"), ``absolute.path``
  (ending in "/"), ``file.size``, ``file.lastModifiedTime``; with Include File Attributes
  also ``file.creationTime``, ``file.lastAccessTime``, ``file.owner``, ``file.group``,
  ``file.permissions``. Each FlowFile gets a CREATE event.
* Changing what is listed (Input Directory, Recurse Subdirectories, the filters, ages,
  sizes, Ignore Hidden Files) on the configured processor clears its state, as NiFi's
  does: the next listing lists every matching file again. A Directory whose Expression
  Language gives a blank value lists nothing and logs an error.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import ClassVar

from flowcore.processor import (
    AllowableValue,
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
from processors.standard import get_file
from processors.standard._support import (
    directory_exists,
    file_name_key,
    file_name_text,
    format_file_date,
)

TRACK_TIMESTAMPS = "timestamps"
NO_TRACKING = "none"
LISTING_TIMESTAMP = "listing.timestamp"

INPUT_DIRECTORY = PropertyDescriptor(
    name="Input Directory",
    display_name="Input Directory",
    description="The input directory from which files to pull files",
    required=True,
    validators=[directory_exists],
    expression_language_scope=ExpressionLanguageScope.ENVIRONMENT,
    external_resource=True,
)
LISTING_STRATEGY = PropertyDescriptor(
    name="listing-strategy",
    display_name="Listing Strategy",
    description="Specify how to determine new/updated entities.",
    required=True,
    default=TRACK_TIMESTAMPS,
    allowable_values=(
        AllowableValue(TRACK_TIMESTAMPS, "Tracking Timestamps"),
        AllowableValue(NO_TRACKING, "No Tracking"),
    ),
)
RECURSE = PropertyDescriptor(
    name="Recurse Subdirectories",
    display_name="Recurse Subdirectories",
    description="Indicates whether to list files from subdirectories of the directory",
    required=True,
    default="true",
    allowable_values=("true", "false"),
)
FILE_FILTER = PropertyDescriptor(
    name="File Filter",
    display_name="File Filter",
    description="Only files whose names match the given regular expression will be picked up",
    required=True,
    default=r"[^\.].*",
    validators=[validators.regular_expression],
)
PATH_FILTER = PropertyDescriptor(
    name="Path Filter",
    display_name="Path Filter",
    description="When Recurse Subdirectories is true, then only subdirectories whose path "
    "matches the given regular expression will be scanned",
    validators=[validators.regular_expression],
)
INCLUDE_FILE_ATTRIBUTES = PropertyDescriptor(
    name="Include File Attributes",
    display_name="Include File Attributes",
    description="Whether or not to include information such as the file's Last Modified "
    "Time and Owner as FlowFile Attributes.",
    required=True,
    default="true",
    allowable_values=("true", "false"),
)
MIN_AGE = PropertyDescriptor(
    name="Minimum File Age",
    display_name="Minimum File Age",
    description="The minimum age that a file must be in order to be pulled; any file "
    "younger than this amount of time (according to last modification date) will be ignored",
    required=True,
    default="0 sec",
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
    required=True,
    default="0 B",
    validators=[validators.data_size],
)
MAX_SIZE = PropertyDescriptor(
    name="Maximum File Size",
    display_name="Maximum File Size",
    description="The maximum size that a file can be in order to be pulled",
    validators=[validators.data_size],
)
IGNORE_HIDDEN_FILES = PropertyDescriptor(
    name="Ignore Hidden Files",
    display_name="Ignore Hidden Files",
    description="Indicates whether or not hidden files should be ignored",
    required=True,
    default="true",
    allowable_values=("true", "false"),
)

SUCCESS = Relationship("success", "All FlowFiles that are received are routed to success")

_LISTING_RESET = frozenset(
    d.name
    for d in (
        INPUT_DIRECTORY,
        RECURSE,
        FILE_FILTER,
        PATH_FILTER,
        MIN_AGE,
        MAX_AGE,
        MIN_SIZE,
        MAX_SIZE,
        IGNORE_HIDDEN_FILES,
    )
)
"""The properties whose change makes the next listing start afresh (NiFi's)."""


@processor("ListFile")
class ListFile(Processor):
    description: ClassVar[str] = (
        "Retrieves a listing of files from the input directory. For each file listed, "
        "creates a FlowFile that represents the file so that it can be fetched in "
        "conjunction with FetchFile."
    )
    tags: ClassVar[tuple[str, ...]] = ("file", "get", "list", "ingest", "source", "filesystem")
    property_descriptors: ClassVar[tuple[PropertyDescriptor, ...]] = (
        INPUT_DIRECTORY,
        LISTING_STRATEGY,
        RECURSE,
        FILE_FILTER,
        PATH_FILTER,
        INCLUDE_FILE_ATTRIBUTES,
        MIN_AGE,
        MAX_AGE,
        MIN_SIZE,
        MAX_SIZE,
        IGNORE_HIDDEN_FILES,
    )
    relationships: ClassVar[tuple[Relationship, ...]] = (SUCCESS,)
    scheduling: ClassVar[Scheduling] = Scheduling(input_required=False, trigger_serially=True)

    def __init__(self) -> None:
        super().__init__()
        self._reset_listing = False

    def on_property_modified(self, name: str, old: str | None, new: str | None) -> None:
        """A change to what is listed forgets what was listed: every file is listed again."""
        if name in _LISTING_RESET:
            self._reset_listing = True

    def _filter(self, context: ProcessContext, directory: str) -> get_file._Filter:
        path_filter = context.get_property(PATH_FILTER).value
        recurse = context.get_property(RECURSE).as_bool()
        return get_file._Filter(
            root=Path(directory).absolute(),
            file_pattern=re.compile(context.get_property(FILE_FILTER).as_str()),
            path_pattern=re.compile(path_filter) if path_filter and recurse else None,
            recurse=recurse,
            keep_source=True,
            ignore_hidden=context.get_property(IGNORE_HIDDEN_FILES).as_bool(),
            min_age_ms=context.get_property(MIN_AGE).as_time_period_ms() or 0,
            max_age_ms=context.get_property(MAX_AGE).as_time_period_ms(),
            min_size=context.get_property(MIN_SIZE).as_data_size() or 0,
            max_size=context.get_property(MAX_SIZE).as_data_size(),
            path_filters_top=True,
        )

    def _list(self, spec: get_file._Filter, now_ms: int) -> list[tuple[int, Path, os.stat_result]]:
        found = [
            (st.st_mtime_ns // 1_000_000, path, st) for path, st in spec.walk(now_ms, self.logger)
        ]
        found.sort(key=lambda item: (item[0], str(item[1])))
        return found

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        directory = context.get_property(INPUT_DIRECTORY).evaluate().as_str()
        if not directory.strip():
            self.logger.error(
                "Blank Directory is not valid: review configured expression for Directory "
                "property; yielding"
            )
            context.yield_processor()
            return
        spec = self._filter(context, directory)
        if not spec.root.is_dir():
            self.logger.error("Input Directory %s is not a directory; yielding", spec.root)
            context.yield_processor()
            return
        tracking = context.get_property(LISTING_STRATEGY).as_str() == TRACK_TIMESTAMPS
        state = session.get_state()
        if self._reset_listing:
            state = {}
            session.set_state(state)
            self._reset_listing = False
        last = int(state.get(LISTING_TIMESTAMP, "-1"))
        seen = {v for k, v in state.items() if k.startswith("id.")}
        listed = [
            item
            for item in self._list(spec, context.now_ms())
            if not tracking
            or item[0] > last
            or (item[0] == last and file_name_key(str(item[1])) not in seen)
        ]
        if not listed:
            context.yield_processor()
            return
        include = context.get_property(INCLUDE_FILE_ATTRIBUTES).as_bool()
        for modified, path, st in listed:
            flowfile = session.create()
            relative = os.path.relpath(path.parent, spec.root)
            attributes = {
                "filename": file_name_text(path.name),
                "path": "./" if relative == "." else file_name_text(relative) + "/",
                "absolute.path": file_name_text(str(path.parent)) + "/",
                "file.size": str(st.st_size),
                "file.lastModifiedTime": format_file_date(modified),
            }
            if include:
                attributes.update(get_file._file_attributes(st))
            session.transfer(session.put_all_attributes(flowfile, attributes), SUCCESS)
        if tracking:
            newest = max(last, listed[-1][0])
            paths = [file_name_key(str(p)) for m, p, _ in listed if m == newest]
            if newest == last:
                paths = sorted(seen) + paths
            new_state = {LISTING_TIMESTAMP: str(newest)}
            new_state.update({f"id.{n}": p for n, p in enumerate(paths)})
            session.set_state(new_state)
