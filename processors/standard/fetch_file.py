"""FetchFile: reads the file a FlowFile names (from ListFile) into its content.

Follows NiFi's FetchFile. Choices made here:

* The Completion Strategy (move or delete the source) runs only after the session has
  committed, so a failed commit never loses the file; a crash between the commit and the
  move can fetch the file again, as in NiFi. A failed move or delete is logged, and the
  FlowFile stays in success (NiFi does the same).
* Move File needs a Move Destination Directory (the processor is invalid without one).
  Before the file is read, as in NiFi, a FlowFile goes to failure (not penalized) when the
  destination exists but is not a writable directory, cannot be created, or (Move
  Conflict Strategy ``Fail``) holds a file of that name already. A file that does not
  exist or cannot be read is checked first (not.found, permission.denied, with a ROUTE
  event).
* A FETCH event with the file's ``file://`` URI is reported.
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
import time
from pathlib import Path
from typing import ClassVar

from flowcore.model import FlowFile
from flowcore.processor import (
    ExpressionLanguageScope,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    ValidationResult,
    processor,
    validators,
)
from flowcore.session import ProcessSession

COMPLETION_NONE = "None"
COMPLETION_MOVE = "Move File"
COMPLETION_DELETE = "Delete File"
CONFLICT_RENAME = "Rename"
CONFLICT_REPLACE = "Replace File"
CONFLICT_KEEP = "Keep Existing"
CONFLICT_FAIL = "Fail"
_LEVELS = ("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "NONE")

FILENAME = PropertyDescriptor(
    name="File to Fetch",
    display_name="File to Fetch",
    description="The fully-qualified filename of the file to fetch from the file system",
    required=True,
    default="${absolute.path}/${filename}",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    validators=[validators.non_empty],
)
COMPLETION_STRATEGY = PropertyDescriptor(
    name="Completion Strategy",
    display_name="Completion Strategy",
    description="Specifies what to do with the original file on the file system once it has "
    "been pulled into NiFi",
    required=True,
    default=COMPLETION_NONE,
    allowable_values=(COMPLETION_NONE, COMPLETION_MOVE, COMPLETION_DELETE),
)
MOVE_DESTINATION = PropertyDescriptor(
    name="Move Destination Directory",
    display_name="Move Destination Directory",
    description="The directory to the move the original file to once it has been fetched "
    "from the file system. This property is ignored unless the Completion Strategy is set "
    'to "Move File". If the directory does not exist, it will be created.',
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    validators=[validators.non_empty],
)
CONFLICT_STRATEGY = PropertyDescriptor(
    name="Move Conflict Strategy",
    display_name="Move Conflict Strategy",
    description="If Completion Strategy is set to Move File and a file already exists in the "
    "destination directory with the same name, this property specifies how that naming "
    "conflict should be resolved",
    required=True,
    default=CONFLICT_RENAME,
    allowable_values=(CONFLICT_RENAME, CONFLICT_REPLACE, CONFLICT_KEEP, CONFLICT_FAIL),
)
FILE_NOT_FOUND_LOG_LEVEL = PropertyDescriptor(
    name="Log level when file not found",
    display_name="Log level when file not found",
    description="Log level to use in case the file does not exist when the processor is triggered",
    required=True,
    default="ERROR",
    allowable_values=_LEVELS,
)
PERM_DENIED_LOG_LEVEL = PropertyDescriptor(
    name="Log level when permission denied",
    display_name="Log level when permission denied",
    description="Log level to use in case user does not have sufficient permissions to read "
    "the file",
    required=True,
    default="ERROR",
    allowable_values=_LEVELS,
)

REL_SUCCESS = Relationship(
    "success",
    "Any FlowFile that is successfully fetched from the file system will be transferred to "
    "this Relationship.",
)
REL_NOT_FOUND = Relationship(
    "not.found",
    "Any FlowFile that could not be fetched from the file system because the file could not "
    "be found will be transferred to this Relationship.",
)
REL_PERMISSION_DENIED = Relationship(
    "permission.denied",
    "Any FlowFile that could not be fetched from the file system due to the user running "
    "NiFi not having sufficient permissions will be transferred to this Relationship.",
)
REL_FAILURE = Relationship(
    "failure",
    "Any FlowFile that could not be fetched from the file system for any reason other than "
    "insufficient permissions or the file not existing will be transferred to this "
    "Relationship.",
)

_PY_LEVELS = {
    "TRACE": logging.DEBUG,
    "DEBUG": logging.DEBUG,
    "INFO": logging.INFO,
    "WARN": logging.WARNING,
    "ERROR": logging.ERROR,
    "FATAL": logging.CRITICAL,
}


@processor("FetchFile")
class FetchFile(Processor):
    description: ClassVar[str] = (
        "Reads the contents of a file from disk and streams it into the contents of an "
        "incoming FlowFile. Once this is done, the file is optionally moved elsewhere or "
        "deleted to help keep the file system organized."
    )
    tags: ClassVar[tuple[str, ...]] = ("local", "files", "filesystem", "ingest", "fetch", "source")
    property_descriptors: ClassVar[tuple[PropertyDescriptor, ...]] = (
        FILENAME,
        COMPLETION_STRATEGY,
        MOVE_DESTINATION,
        CONFLICT_STRATEGY,
        FILE_NOT_FOUND_LOG_LEVEL,
        PERM_DENIED_LOG_LEVEL,
    )
    relationships: ClassVar[tuple[Relationship, ...]] = (
        REL_SUCCESS,
        REL_NOT_FOUND,
        REL_PERMISSION_DENIED,
        REL_FAILURE,
    )

    def _log(self, context: ProcessContext, descriptor: PropertyDescriptor, message: str) -> None:
        level = _PY_LEVELS.get(context.get_property(descriptor).as_str())
        if level is not None:
            self.logger.log(level, message)

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        """Move File needs a Move Destination Directory, as NiFi's."""
        strategy = context.get_property(COMPLETION_STRATEGY).value or ""
        if (
            strategy.lower() != COMPLETION_MOVE.lower()
            or context.get_property(MOVE_DESTINATION).value
        ):
            return []
        return [
            ValidationResult(
                MOVE_DESTINATION.label,
                False,
                None,
                f"{MOVE_DESTINATION.name} must be specified if {COMPLETION_STRATEGY.name} "
                f"is set to {COMPLETION_MOVE}",
            )
        ]

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        path = Path(context.get_property(FILENAME).evaluate(flowfile).as_str())
        if not path.exists():
            self._log(
                context,
                FILE_NOT_FOUND_LOG_LEVEL,
                f"Could not fetch file {path} from file system because the file does not "
                "exist; routing to not.found",
            )
            session.provenance.route(flowfile, REL_NOT_FOUND.name)
            session.transfer(session.penalize(flowfile), REL_NOT_FOUND)
            return
        if not os.access(path, os.R_OK):
            self._log(
                context,
                PERM_DENIED_LOG_LEVEL,
                f"Could not fetch file {path} from file system due to user not having "
                "sufficient permissions to read the file; routing to permission.denied",
            )
            session.provenance.route(flowfile, REL_PERMISSION_DENIED.name)
            session.transfer(session.penalize(flowfile), REL_PERMISSION_DENIED)
            return
        strategy = context.get_property(COMPLETION_STRATEGY).as_str()
        destination: Path | None = None
        if strategy == COMPLETION_MOVE:
            destination = self._prepare_move(context, flowfile, path)
            if destination is None:
                session.transfer(flowfile, REL_FAILURE)
                return
        started = time.monotonic()
        try:
            flowfile = session.import_from(path, flowfile)
        except OSError as exc:
            relationship = REL_PERMISSION_DENIED if exc.errno == errno.EACCES else REL_FAILURE
            self.logger.error("Could not fetch file %s from file system: %s", path, exc)
            session.transfer(session.penalize(flowfile), relationship)
            return
        session.provenance.fetch(
            flowfile, path.absolute().as_uri(), duration_ms=int((time.monotonic() - started) * 1000)
        )
        session.transfer(flowfile, REL_SUCCESS)
        session.commit()
        if strategy == COMPLETION_DELETE:
            try:
                path.unlink()
            except OSError as exc:
                self.logger.warning("Fetched %s but failed to delete it: %s", path, exc)
        elif destination is not None:
            self._move(context, path, destination)

    def _prepare_move(self, context: ProcessContext, flowfile: FlowFile, path: Path) -> Path | None:
        """The Move Destination Directory, created if missing; None (logged) when it is not
        a writable directory, cannot be created, or holds the file already under the Fail
        conflict strategy. Checked before the file is read, as NiFi does."""
        target = context.get_property(MOVE_DESTINATION).evaluate(flowfile).as_str()
        destination = Path(target)
        if destination.exists():
            if not destination.is_dir() or not os.access(destination, os.W_OK):
                self.logger.error(
                    "Could not fetch file %s because Completion Strategy is configured to "
                    "move the original file to %s, but that is not a directory or the user "
                    "does not have permissions to write to that directory",
                    path,
                    destination,
                )
                return None
        else:
            try:
                destination.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                self.logger.error(
                    "Could not fetch file %s because Completion Strategy is configured to "
                    "move the original file to %s, but that directory does not exist and "
                    "could not be created due to: %s",
                    path,
                    destination,
                    exc,
                )
                return None
        conflict = context.get_property(CONFLICT_STRATEGY).as_str()
        if conflict == CONFLICT_FAIL and (destination / path.name).exists():
            self.logger.error(
                "Could not fetch file %s because a file of that name already exists in "
                "the destination directory %s and Move Conflict Strategy is Fail",
                path,
                destination,
            )
            return None
        return destination

    def _move(self, context: ProcessContext, path: Path, destination: Path) -> None:
        conflict = context.get_property(CONFLICT_STRATEGY).as_str()
        try:
            destination.mkdir(parents=True, exist_ok=True)
            target = destination / path.name
            if target.exists():
                if conflict == CONFLICT_KEEP:
                    path.unlink()
                    return
                if conflict == CONFLICT_RENAME:
                    stem = f"{context.now_ms()}-{path.name}"
                    target = destination / stem
            shutil.move(str(path), str(target))
        except OSError as exc:
            self.logger.warning(
                "Fetched %s but failed to move it to %s: %s", path, destination, exc
            )
