"""PutFile: writes the content of FlowFiles to a directory on the local file system.

Follows NiFi's PutFile. Choices made here:

* Confinement: the file is written only inside the (evaluated) Directory. A ``filename``
  that is absolute, contains a ``..`` component, is empty or ".", or resolves (through
  symbolic links) outside the resolved Directory is routed to failure without writing
  anything. A relative ``filename`` with sub-directories ("a/b.txt") is allowed and its
  missing directories are created when Create Missing Directories is true.
* Every failure sets the attribute ``putfile.failure.reason`` with the reason and
  penalizes the FlowFile; a FlowFile that later succeeds has the attribute removed.
* Atomicity: the content goes to a hidden temporary file in the target directory
  (``.putfile-<random>.tmp``, which GetFile's default filter ignores) and is then moved
  into place: ``os.replace`` for the replace strategy, and an atomic no-clobber
  ``os.link`` for fail and ignore, so a file created concurrently is never overwritten.
  Readers never see a partly written file.
* Maximum File Count counts the entries in the target directory other than the target's
  own name (as NiFi does, so a replace is not refused for the file it replaces).
* Last Modified Time uses NiFi's ``yyyy-MM-dd'T'HH:mm:ssZ`` format; Permissions accept
  ``rw-r--r--`` or ``644``; Owner and Group change ownership. Any of them that cannot be
  applied is logged as a warning and the file is still delivered, as in NiFi.
* A SEND event with the file's ``file://`` URI is reported for each file written; a
  FlowFile that is ignored because the file exists is routed to success without a SEND.
* FlowFiles are taken in batches of 50; each one's errors are handled on its own.
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path, PurePosixPath

from flowcore.errors import FlowCoreError
from flowcore.model import FlowFile
from flowcore.processor import (
    AllowableValue,
    ExpressionLanguageScope,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    processor,
    validators,
)
from flowcore.session import ProcessSession
from processors.standard._support import parse_file_date, parse_permissions, permissions

FAILURE_REASON = "putfile.failure.reason"
_BATCH = 50

REPLACE = "replace"
IGNORE = "ignore"
FAIL = "fail"

DIRECTORY = PropertyDescriptor(
    name="Directory",
    display_name="Directory",
    description="The directory to which files should be written. You may use expression "
    "language such as /aa/bb/${path}",
    required=True,
    validators=[validators.non_empty],
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
CONFLICT_RESOLUTION = PropertyDescriptor(
    name="Conflict Resolution Strategy",
    display_name="Conflict Resolution Strategy",
    description="Indicates what should happen when a file with the same name already exists "
    "in the output directory",
    default=FAIL,
    required=True,
    allowable_values=[
        AllowableValue(REPLACE, REPLACE, "Replace the existing file"),
        AllowableValue(IGNORE, IGNORE, "Leave the existing file; the FlowFile goes to success"),
        AllowableValue(FAIL, FAIL, "Route the FlowFile to failure"),
    ],
)
CREATE_DIRS = PropertyDescriptor(
    name="Create Missing Directories",
    display_name="Create Missing Directories",
    description="If true, then missing destination directories will be created. If false, "
    "flowfiles are penalized and sent to failure.",
    default="true",
    required=True,
    allowable_values=["true", "false"],
    validators=[validators.boolean],
)
MAX_FILE_COUNT = PropertyDescriptor(
    name="Maximum File Count",
    display_name="Maximum File Count",
    description="Specifies the maximum number of files that can exist in the output directory",
    validators=[validators.non_negative_integer],
)
LAST_MODIFIED_TIME = PropertyDescriptor(
    name="Last Modified Time",
    display_name="Last Modified Time",
    description="Sets the lastModifiedTime on the output file to the value of this attribute. "
    "Format must be yyyy-MM-dd'T'HH:mm:ssZ. You may also use expression language such as "
    "${file.lastModifiedTime}.",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
PERMISSIONS = PropertyDescriptor(
    name="Permissions",
    display_name="Permissions",
    description="Sets the permissions on the output file to the value of this attribute. "
    "Format must be either UNIX rwxrwxrwx with a - in place of denied permissions (e.g. "
    "rw-r--r--) or an octal number (e.g. 644). You may also use expression language such as "
    "${file.permissions}.",
    validators=[permissions],
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
OWNER = PropertyDescriptor(
    name="Owner",
    display_name="Owner",
    description="Sets the owner on the output file to the value of this attribute. You may "
    "also use expression language such as ${file.owner}.",
    validators=[validators.non_empty],
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
GROUP = PropertyDescriptor(
    name="Group",
    display_name="Group",
    description="Sets the group on the output file to the value of this attribute. You may "
    "also use expression language such as ${file.group}.",
    validators=[validators.non_empty],
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)

SUCCESS = Relationship(
    "success",
    "Files that have been successfully written to the output "
    "directory are transferred to this relationship",
)
FAILURE = Relationship(
    "failure",
    "Files that could not be written to the output directory "
    "for some reason are transferred to this relationship",
)


class _Failed(Exception):
    """The FlowFile goes to failure for this reason."""


@processor("PutFile")
class PutFile(Processor):
    description = "Writes the contents of a FlowFile to the local file system"
    tags = ("put", "local", "copy", "archive", "files", "filesystem")
    property_descriptors = (
        DIRECTORY,
        CONFLICT_RESOLUTION,
        CREATE_DIRS,
        MAX_FILE_COUNT,
        LAST_MODIFIED_TIME,
        PERMISSIONS,
        OWNER,
        GROUP,
    )
    relationships = (SUCCESS, FAILURE)

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        checked: dict[str, Path] = {}
        for flowfile in session.get_batch(_BATCH):
            self._put(context, session, flowfile, checked)

    def _put(
        self,
        context: ProcessContext,
        session: ProcessSession,
        flowfile: FlowFile,
        checked: dict[str, Path],
    ) -> None:
        started = context.now_ms()
        try:
            target = self._deliver(context, session, flowfile, checked)
        except _Failed as failed:
            reason = str(failed)
        except (OSError, ValueError, RuntimeError, FlowCoreError) as exc:
            reason = f"could not write the file: {type(exc).__name__}: {exc}"
        else:
            if target is not None:
                session.provenance.send(
                    flowfile, target.as_uri(), duration_ms=context.now_ms() - started
                )
            if FAILURE_REASON in flowfile.attributes:
                flowfile = session.remove_attribute(flowfile, FAILURE_REASON)
            session.transfer(flowfile, SUCCESS)
            return
        self.logger.warning(
            "Penalizing %s and routing to failure: %s", flowfile.attributes.get("filename"), reason
        )
        flowfile = session.put_attribute(flowfile, FAILURE_REASON, reason)
        flowfile = session.penalize(flowfile)
        session.transfer(flowfile, FAILURE)

    # -- delivery -------------------------------------------------------------------------

    def _deliver(
        self,
        context: ProcessContext,
        session: ProcessSession,
        flowfile: FlowFile,
        checked: dict[str, Path],
    ) -> Path | None:
        """Write the file; its path, or None when an existing file is kept (ignore).

        ``checked`` holds the directories of this trigger that exist and were resolved
        already: a plain file name in one of them needs no further resolution unless it
        is itself a symbolic link (one lstat), which keeps confinement cheap per file.
        """
        directory = context.get_property(DIRECTORY).evaluate(flowfile).as_str()
        if not directory.strip():
            raise _Failed("the Directory evaluated to an empty value")
        filename = flowfile.attributes.get("filename", "")
        relative = _check_filename(filename)
        create = context.get_property(CREATE_DIRS).as_bool()
        known = checked.get(directory)
        if known is not None and len(relative.parts) == 1:
            target = known / filename
            if os.path.islink(target):
                _check_inside(known, target, filename)
        else:
            target = self._prepare_target(directory, relative, filename, create)
            if len(relative.parts) == 1:
                checked[directory] = target.parent
        return self._write_target(context, session, flowfile, target)

    def _prepare_target(
        self, directory: str, relative: PurePosixPath, filename: str, create: bool
    ) -> Path:
        """Resolve, confine and create the target's directory; the target path."""
        root = Path(directory).absolute()
        target = root.joinpath(*relative.parts)
        _check_inside(root, target, filename)
        if not root.is_dir():
            if root.exists() or os.path.islink(root):
                raise _Failed(f"the Directory '{root}' exists but is not a directory")
            if not create:
                raise _Failed(
                    f"the Directory '{root}' does not exist and Create Missing Directories is false"
                )
        parent = target.parent
        if not parent.is_dir():
            if os.path.lexists(parent):
                raise _Failed(f"'{parent}' exists but is not a directory")
            if not create:
                raise _Failed(
                    f"the directory '{parent}' does not exist and Create Missing "
                    "Directories is false"
                )
            parent.mkdir(parents=True, exist_ok=True)
            _check_inside(root, target, filename)  # nothing was swapped in meanwhile
        return target

    def _write_target(
        self, context: ProcessContext, session: ProcessSession, flowfile: FlowFile, target: Path
    ) -> Path | None:
        parent = target.parent
        max_files = context.get_property(MAX_FILE_COUNT).as_int()
        if max_files is not None:
            count = sum(1 for name in os.listdir(parent) if name != target.name)
            if count >= max_files:
                raise _Failed(
                    f"the directory '{parent}' has {count} files, which exceeds the "
                    f"configured maximum number of files ({max_files})"
                )

        strategy = context.get_property(CONFLICT_RESOLUTION).as_str()
        if strategy != REPLACE and os.path.lexists(target):
            self._conflict(strategy, target)
            return None

        temporary = parent / f".putfile-{uuid.uuid4().hex}.tmp"
        renamed = False
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        descriptor = os.open(temporary, flags, 0o666)
        try:
            with os.fdopen(descriptor, "wb") as out:
                session.export_to(flowfile, out)
            self._apply_file_attributes(context, flowfile, temporary)
            if strategy == REPLACE:
                os.replace(temporary, target)
                renamed = True
                return target
            try:
                os.link(temporary, target, follow_symlinks=False)
            except FileExistsError:
                self._conflict(strategy, target)
                return None
            except OSError:  # no hard links on this file system: check, then rename
                if os.path.lexists(target):
                    self._conflict(strategy, target)
                    return None
                os.replace(temporary, target)
                renamed = True
            return target
        finally:
            if not renamed:
                try:
                    os.unlink(temporary)
                except FileNotFoundError:
                    pass

    def _conflict(self, strategy: str, target: Path) -> None:
        """Log for ignore (the FlowFile goes to success unwritten); _Failed for fail."""
        if strategy == IGNORE:
            self.logger.info(
                "Transferring to success because file with same name already exists: %s", target
            )
            return
        raise _Failed(
            f"a file with the same name already exists: '{target}' (Conflict "
            "Resolution Strategy is fail)"
        )

    def _apply_file_attributes(
        self, context: ProcessContext, flowfile: FlowFile, path: Path
    ) -> None:
        modified = context.get_property(LAST_MODIFIED_TIME).evaluate(flowfile).as_str().strip()
        if modified:
            try:
                seconds = parse_file_date(modified)
                os.utime(path, (seconds, seconds))
            except (ValueError, OSError) as exc:
                self.logger.warning("Could not set file lastModifiedTime to %s: %s", modified, exc)
        mode_text = context.get_property(PERMISSIONS).evaluate(flowfile).as_str().strip()
        if mode_text:
            mode = parse_permissions(mode_text)
            if mode is None:
                self.logger.warning(
                    "Could not set file permissions to %s: not rwxrwxrwx or octal", mode_text
                )
            else:
                try:
                    os.chmod(path, mode)
                except OSError as exc:
                    self.logger.warning("Could not set file permissions to %s: %s", mode_text, exc)
        owner = context.get_property(OWNER).evaluate(flowfile).as_str().strip()
        if owner:
            try:
                shutil.chown(path, user=owner)
            except (LookupError, OSError) as exc:
                self.logger.warning("Could not set file owner to %s: %s", owner, exc)
        group = context.get_property(GROUP).evaluate(flowfile).as_str().strip()
        if group:
            try:
                shutil.chown(path, group=group)
            except (LookupError, OSError) as exc:
                self.logger.warning("Could not set file group to %s: %s", group, exc)


def _check_filename(filename: str) -> PurePosixPath:
    """The filename as a relative path that stays inside the Directory, or _Failed."""
    if not filename or filename.strip() in ("", "."):
        raise _Failed(f"the filename {filename!r} does not name a file")
    if "\x00" in filename:
        raise _Failed(f"the filename {filename!r} contains a NUL character")
    if os.path.isabs(filename) or filename.startswith(("/", "\\")):
        raise _Failed(
            f"the filename '{filename}' is an absolute path; PutFile writes only "
            "inside its Directory"
        )
    path = PurePosixPath(filename)
    if ".." in path.parts:
        raise _Failed(
            f"the filename '{filename}' contains a '..' path component, which would "
            "leave the Directory"
        )
    if path.name in ("", "."):
        raise _Failed(f"the filename {filename!r} does not name a file")
    return path


def _check_inside(root: Path, target: Path, filename: str) -> None:
    """_Failed unless ``target`` resolves (through symbolic links) inside ``root``."""
    real_root = root.resolve()
    real_target = target.resolve()
    if real_target == real_root or not real_target.is_relative_to(real_root):
        raise _Failed(
            f"the filename '{filename}' resolves to '{real_target}', outside the "
            f"Directory '{real_root}' (through a symbolic link)"
        )
