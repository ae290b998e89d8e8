"""PutFile: writes the content of FlowFiles to a directory on the local file system.

Follows NiFi's PutFile. Choices made here:

* Confinement: the file is written only inside the (evaluated) Directory. A ``filename``
  that is absolute, contains a ``..`` component, is empty or ".", or resolves (through
  symbolic links) outside the resolved Directory is routed to failure without writing
  anything. A relative ``filename`` with sub-directories ("a/b.txt") is allowed and its
  missing directories are created when Create Missing Directories is true. With a Base
  Directory set (a flowcore property), the evaluated Directory, symbolic links resolved,
  must be that directory or lie under it; one that does not (``${storeId}`` being
  ``../../x``) is routed to failure before any directory is created; a Directory without
  Expression Language outside it makes the processor invalid.
* Every failure sets the attribute ``putfile.failure.reason`` with the reason and
  penalizes the FlowFile; a FlowFile that later succeeds has the attribute removed.
* Atomicity: the content goes to a hidden temporary file in the target directory
  (``.putfile-<uuid>.tmp``, which GetFile's default filter ignores) and is then moved
  into place: ``os.replace`` for the replace strategy, and an atomic no-clobber
  ``os.link`` for fail and ignore, so a file created concurrently is never overwritten.
  Readers never see a partly written file.
* Delivery is idempotent for a FlowFile: a crash after the file is in place but before
  the session commits delivers the FlowFile again. With fail and ignore, an existing file
  that is this FlowFile's own earlier delivery (same size and bytes and, where the file
  system has extended attributes, the marker ``user.flowcore.uuid`` naming the FlowFile)
  counts as delivered: SEND and success. Any other existing file is a conflict handled by
  the Conflict Resolution Strategy as before; replace simply writes the file again.
* Temporary files: one left by a crash is taken over when its FlowFile is delivered again
  (its name is the FlowFile's); stale ones (unchanged for 10 minutes) are removed from the
  Directory when the processor is scheduled, if the Directory does not depend on FlowFile
  attributes, and from a target directory after a write to it fails.
* Maximum File Count counts the entries in the target directory other than the target's
  own name (as NiFi does, so a replace is not refused for the file it replaces).
* Last Modified Time uses NiFi's ``yyyy-MM-dd'T'HH:mm:ssZ`` format; Permissions accept
  ``rw-r--r--`` or ``644``; Owner and Group change ownership. Any of them that cannot be
  applied is logged as a warning and the file is still delivered, as in NiFi. The
  directories it creates get the Permissions (a class that may read or write may also
  search them), Owner and Group too, as NiFi's.
* Each file put in place is noted in the delivery ledger (``flowcore.delivery``, active
  only in simulations) before the session commits, so a simulation tells a file written
  again after a crash from one that was lost.
* A SEND event with the file's ``file://`` URI is reported for each file written; a
  FlowFile that is ignored because a different file exists is routed to success without
  a SEND.
* FlowFiles are taken in batches of up to 500 or 10 MB of content, whichever comes first
  (always at least one; a session per FlowFile made the session's commit a tenth of the
  cost of a small file); each one's errors are handled on its own. A crash before the
  batch commits delivers its FlowFiles again, recognised as above. The
  properties are read once per batch: a value without Expression Language is not
  evaluated again for each FlowFile (one with it is, and an error in it fails only that
  FlowFile), and with the replace strategy a plain file name in a directory already
  resolved in the batch costs one ``lstat`` (the symbolic-link check), one ``open``, one
  ``write``, one ``close`` and one ``rename`` (fail and ignore: the same ``lstat`` serves
  as the conflict check, plus an ``fsetxattr`` for the marker, and a hard link in place
  of the rename followed by the ``unlink`` of the temporary file).
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import quote_from_bytes

from flowcore.delivery import record_delivery
from flowcore.el import compile_expression
from flowcore.errors import FlowCoreError
from flowcore.model import FlowFile
from flowcore.processor import (
    AllowableValue,
    ExpressionLanguageScope,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    PropertyValue,
    Relationship,
    ValidationResult,
    processor,
    validators,
)
from flowcore.session import ProcessSession
from processors.standard._file_delivery import (
    delivered_before,
    open_temporary,
    remove_quietly,
    set_marker,
    sweep_stale_temporaries,
    temporary_name,
)
from processors.standard._support import parse_file_date, parse_permissions, permissions

FAILURE_REASON = "putfile.failure.reason"
_BATCH = 500
_BATCH_BYTES = 10 * 1024 * 1024
# A content up to this size is read whole and written with ``os.write``; a larger one is
# streamed in chunks.
_WHOLE_CONTENT = 1024 * 1024

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
    external_resource=True,
)
BASE_DIRECTORY = PropertyDescriptor(
    name="Base Directory",
    display_name="Base Directory",
    description="The directory that every evaluated Directory must be or lie under, after "
    "symbolic links are resolved. A FlowFile whose Directory resolves outside of it is "
    "penalized and sent to failure. If not set, the Directory is not confined. Supports "
    "parameters and environment variables, but not FlowFile attributes.",
    validators=[validators.non_empty],
    expression_language_scope=ExpressionLanguageScope.ENVIRONMENT,
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
    validators=[validators.non_empty],
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
        BASE_DIRECTORY,
        CONFLICT_RESOLUTION,
        CREATE_DIRS,
        MAX_FILE_COUNT,
        LAST_MODIFIED_TIME,
        PERMISSIONS,
        OWNER,
        GROUP,
    )
    relationships = (SUCCESS, FAILURE)

    def __init__(self) -> None:
        super().__init__()
        # Target directories whose file system keeps no extended attributes (no marker).
        self._unmarked: set[str] = set()

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        """A Directory without Expression Language must lie under the Base Directory."""
        directory = context.get_property(DIRECTORY).value
        base = context.get_property(BASE_DIRECTORY).value
        if not directory or not base or "$" in directory + base:
            return []
        resolved_base = Path(base).absolute().resolve()
        resolved = Path(directory).absolute().resolve()
        if not _escapes(resolved_base, resolved):
            return []
        return [
            ValidationResult(
                DIRECTORY.label,
                False,
                directory,
                f"it resolves to '{resolved}', outside the Base Directory '{resolved_base}'",
            )
        ]

    def on_scheduled(self, context: ProcessContext) -> None:
        """Sweep stale temporary files from the Directory when it is known already."""
        options = _Options.read(context)
        if not isinstance(options.directory, str) or not options.directory.strip():
            return  # it depends on FlowFile attributes
        root = Path(options.directory).absolute()
        if options.base is not None and _escapes(options.base, root.resolve()):
            return  # never touch a directory outside the Base Directory
        sweep_stale_temporaries(str(root), context.now_ms(), self.logger)

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        options = _Options.read(context)
        checked: dict[str, str] = {}
        for flowfile in session.get_batch(_BATCH, max_bytes=_BATCH_BYTES):
            self._put(context, options, session, flowfile, checked)

    def _put(
        self,
        context: ProcessContext,
        options: _Options,
        session: ProcessSession,
        flowfile: FlowFile,
        checked: dict[str, str],
    ) -> None:
        started = context.now_ms()
        try:
            uri = self._deliver(options, session, flowfile, checked, started)
        except _Failed as failed:
            reason = str(failed)
        except (OSError, ValueError, RuntimeError, FlowCoreError) as exc:
            reason = f"could not write the file: {type(exc).__name__}: {exc}"
        else:
            if uri is not None:
                session.provenance.send(flowfile, uri, duration_ms=context.now_ms() - started)
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
        options: _Options,
        session: ProcessSession,
        flowfile: FlowFile,
        checked: dict[str, str],
        now_ms: int,
    ) -> str | None:
        """Write the file; its ``file://`` URI, or None when an existing file is kept.

        ``checked`` holds the directories of this batch that exist and were resolved
        already: a plain file name in one of them needs no further resolution unless it
        is itself a symbolic link. That takes one lstat, whose result also serves as the
        conflict check of fail and ignore, which keeps confinement cheap per file.
        """
        directory = options.evaluate(options.directory, flowfile)
        if not directory.strip():
            raise _Failed("the Directory evaluated to an empty value")
        filename = flowfile.attributes.get("filename", "")
        known = checked.get(directory)
        if known is not None and _is_plain_name(filename):
            target = os.path.join(known, filename)
            try:
                existing: os.stat_result | None = os.lstat(target)
            except FileNotFoundError:
                existing = None
            except (OSError, ValueError):  # as os.path.islink: no link; looked up again
                return self._write_target(
                    options, session, flowfile, known, filename, target, now_ms
                )
            if existing is not None and stat.S_ISLNK(existing.st_mode):
                _check_inside(Path(known), Path(target), filename)
            return self._write_target(
                options, session, flowfile, known, filename, target, now_ms, (existing,)
            )
        relative = _check_filename(filename)
        resolved = self._prepare_target(directory, relative, filename, options, flowfile)
        target = str(resolved)
        parent, name = os.path.split(target)
        if len(relative.parts) == 1:
            checked[directory] = parent
        return self._write_target(options, session, flowfile, parent, name, target, now_ms)

    def _prepare_target(
        self,
        directory: str,
        relative: PurePosixPath,
        filename: str,
        options: _Options,
        flowfile: FlowFile,
    ) -> Path:
        """Resolve, confine and create the target's directory; the target path."""
        root = Path(directory).absolute()
        base = options.base
        if base is not None:
            _check_under_base(base, root, directory)
        create = options.create
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
            self._create_directories(options, flowfile, parent)
            # nothing was swapped in meanwhile
            if base is not None:
                _check_under_base(base, root, directory)
            _check_inside(root, target, filename)
        return target

    def _write_target(
        self,
        options: _Options,
        session: ProcessSession,
        flowfile: FlowFile,
        parent: str,
        name: str,
        target: str,
        now_ms: int,
        looked_up: tuple[os.stat_result | None] | None = None,
    ) -> str | None:
        """Write ``target`` (``name`` in ``parent``); its URI, or None when an existing
        file is kept. ``looked_up`` holds the target's lstat when it was taken already."""
        max_files = options.max_files
        if max_files is not None:
            count = sum(1 for entry in os.listdir(parent) if entry != name)
            if count >= max_files:
                raise _Failed(
                    f"the directory '{parent}' has {count} files, which exceeds the "
                    f"configured maximum number of files ({max_files})"
                )

        strategy = options.strategy
        temporary = os.path.join(parent, temporary_name(flowfile.uuid))
        if strategy != REPLACE:
            if looked_up is not None:
                existing = looked_up[0]
            else:
                try:
                    existing = os.lstat(target)
                except FileNotFoundError:
                    existing = None
            if existing is not None:
                return self._existing(strategy, session, flowfile, target, existing, temporary)

        placed = False
        try:
            descriptor = open_temporary(temporary)
            try:
                if flowfile.size <= _WHOLE_CONTENT:
                    _write_all(descriptor, session.read(flowfile))
                else:
                    with os.fdopen(descriptor, "wb", closefd=False) as out:
                        session.export_to(flowfile, out)
                if (
                    strategy != REPLACE
                    and parent not in self._unmarked
                    and not set_marker(descriptor, flowfile.uuid)
                ):
                    self._unmarked.add(parent)
            finally:
                os.close(descriptor)
            if options.sets_file_attributes:
                self._apply_file_attributes(options, flowfile, temporary)
            if strategy == REPLACE:
                os.replace(temporary, target)
                placed = True
                return _delivered(options, session, flowfile, target)
            try:
                os.link(temporary, target, follow_symlinks=False)
            except FileExistsError:
                existing = os.lstat(target)
                return self._existing(strategy, session, flowfile, target, existing, temporary)
            except OSError:  # no hard links on this file system: check, then rename
                try:
                    existing = os.lstat(target)
                except FileNotFoundError:
                    os.replace(temporary, target)
                    placed = True
                    return _delivered(options, session, flowfile, target)
                return self._existing(strategy, session, flowfile, target, existing, temporary)
            return _delivered(options, session, flowfile, target)
        except OSError:
            # A failed write (a full disk, say): stale temporary files may be why.
            sweep_stale_temporaries(parent, now_ms, self.logger)
            raise
        finally:
            if not placed:
                remove_quietly(temporary)

    def _existing(
        self,
        strategy: str,
        session: ProcessSession,
        flowfile: FlowFile,
        target: str,
        existing: os.stat_result,
        temporary: str,
    ) -> str | None:
        """The target exists (fail or ignore): this FlowFile's own earlier delivery counts
        as delivered (its URI); any other file is a conflict (None for ignore)."""
        if delivered_before(
            target, existing, flowfile.uuid, flowfile.size, session.stream(flowfile)
        ):
            self.logger.info(
                "%s holds this FlowFile's content already (delivered before a restart); "
                "routing to success",
                target,
            )
            remove_quietly(temporary)  # left if the crash came between link and unlink
            return _file_uri(target)
        self._conflict(strategy, target)
        return None

    def _conflict(self, strategy: str, target: str) -> None:
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

    def _create_directories(self, options: _Options, flowfile: FlowFile, path: Path) -> None:
        """Create ``path`` and its missing parents with the Permissions (read or write on
        a class adds its execute, which a directory needs), then give the ones created the
        Owner and Group, as NiFi does; an owner or group that cannot be set is a warning."""
        missing: list[Path] = []
        current = path
        while not os.path.lexists(current):
            missing.append(current)
            current = current.parent
        mode_text = options.evaluate(options.permissions, flowfile).strip()
        mode = _directory_mode(mode_text) if mode_text else None
        for created in reversed(missing):
            try:
                if mode is None:
                    created.mkdir()
                else:
                    created.mkdir(mode)
            except FileExistsError:
                if not created.is_dir():
                    raise
        owner = options.evaluate(options.owner, flowfile).strip()
        group = options.evaluate(options.group, flowfile).strip()
        for created in missing if owner or group else ():
            if owner:
                try:
                    shutil.chown(created, user=owner)
                except (LookupError, OSError) as exc:
                    self.logger.warning("Could not set directory owner to %s: %s", owner, exc)
            if group:
                try:
                    shutil.chown(created, group=group)
                except (LookupError, OSError) as exc:
                    self.logger.warning("Could not set directory group to %s: %s", group, exc)

    def _apply_file_attributes(self, options: _Options, flowfile: FlowFile, path: str) -> None:
        modified = options.evaluate(options.last_modified, flowfile).strip()
        if modified:
            try:
                seconds = parse_file_date(modified)
                os.utime(path, (seconds, seconds))
            except (ValueError, OSError) as exc:
                self.logger.warning("Could not set file lastModifiedTime to %s: %s", modified, exc)
        mode_text = options.evaluate(options.permissions, flowfile).strip()
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
        owner = options.evaluate(options.owner, flowfile).strip()
        if owner:
            try:
                shutil.chown(path, user=owner)
            except (LookupError, OSError) as exc:
                self.logger.warning("Could not set file owner to %s: %s", owner, exc)
        group = options.evaluate(options.group, flowfile).strip()
        if group:
            try:
                shutil.chown(path, group=group)
            except (LookupError, OSError) as exc:
                self.logger.warning("Could not set file group to %s: %s", group, exc)


@dataclass(frozen=True, slots=True)
class _Options:
    """The properties of one batch, read once. A property with Expression Language is
    kept as its ``PropertyValue`` and evaluated per FlowFile; one without, as its text."""

    directory: PropertyValue | str
    base: Path | None  # the Base Directory, resolved
    create: bool
    max_files: int | None
    strategy: str
    last_modified: PropertyValue | str
    permissions: PropertyValue | str
    owner: PropertyValue | str
    group: PropertyValue | str
    sets_file_attributes: bool  # False when the four above are all empty
    component: str = ""  # the processor's name, for the delivery ledger

    @classmethod
    def read(cls, context: ProcessContext) -> _Options:
        def flowfile_dependent(descriptor: PropertyDescriptor) -> PropertyValue | str:
            value = context.get_property(descriptor)
            text = value.value
            if text is None or ("$" not in text and "#{" not in text):
                return value.as_str()
            if compile_expression(text).is_literal:  # only escapes: the same for all
                return value.evaluate().as_str()
            return value  # evaluated per FlowFile, its errors that FlowFile's failure

        attributes = [
            flowfile_dependent(d) for d in (LAST_MODIFIED_TIME, PERMISSIONS, OWNER, GROUP)
        ]
        base = context.get_property(BASE_DIRECTORY).evaluate().as_str()
        return cls(
            directory=flowfile_dependent(DIRECTORY),
            base=Path(base).absolute().resolve() if base.strip() else None,
            create=context.get_property(CREATE_DIRS).as_bool(),
            max_files=context.get_property(MAX_FILE_COUNT).as_int(),
            strategy=context.get_property(CONFLICT_RESOLUTION).as_str(),
            last_modified=attributes[0],
            permissions=attributes[1],
            owner=attributes[2],
            group=attributes[3],
            component=context.name,
            sets_file_attributes=any(
                not isinstance(value, str) or value.strip() for value in attributes
            ),
        )

    @staticmethod
    def evaluate(value: PropertyValue | str, flowfile: FlowFile) -> str:
        return value if isinstance(value, str) else value.evaluate(flowfile).as_str()


def _directory_mode(text: str) -> int | None:
    """The mode of a directory created under the Permissions ``text`` (NiFi's): each
    class that may read or write may also search; the octal form always lets the owner
    search. None when ``text`` is not a permission."""
    mode = parse_permissions(text)
    if mode is None:
        return None
    for shift in (6, 3, 0):
        if mode & (0o6 << shift):
            mode |= 0o1 << shift
    if text.strip().isdigit():
        mode |= stat.S_IXUSR
    return mode


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]


def _delivered(options: _Options, session: ProcessSession, flowfile: FlowFile, target: str) -> str:
    """The file is in place: note it in the delivery ledger (when one records); its URI."""
    uri = _file_uri(target)
    record_delivery(options.component, flowfile.uuid, uri, lambda: session.read(flowfile))
    return uri


def _file_uri(path: str) -> str:
    """``Path(path).as_uri()`` for an absolute path, without building a Path."""
    return "file://" + quote_from_bytes(os.fsencode(path))


def _is_plain_name(filename: str) -> bool:
    """True for a name that ``_check_filename`` accepts as one path component."""
    return (
        "/" not in filename
        and "\x00" not in filename
        and not filename.startswith("\\")
        and filename not in ("..",)
        and filename.strip() not in ("", ".")
    )


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


def _escapes(base: Path, resolved: Path) -> bool:
    return resolved != base and not resolved.is_relative_to(base)


def _check_under_base(base: Path, root: Path, directory: str) -> None:
    """_Failed unless the Directory resolves (through symbolic links) under ``base``."""
    resolved = root.resolve()
    if _escapes(base, resolved):
        raise _Failed(
            f"the Directory '{directory}' resolves to '{resolved}', outside the Base "
            f"Directory '{base}'"
        )
