"""Where resource claims live on disk: containers, sections, archive directories.

A resource claim maps to ``<container>/<section>/<id>`` and, once archived, to
``<container>/<section>/archive/<id>``. The claim's ``container`` field is the index of
its container directory as a string, so a claim read back from the FlowFile repository
always finds its directory again. Ids are ``<millis>-<counter>``; the millis prefix lets
the archive age files off without a stat.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from flowcore.errors import ContentNotFoundError
from flowcore.model.flowfile import ResourceClaim

ARCHIVE_DIR = "archive"


class ContainerLayout:
    """Maps resource claims to paths and walks the files of each container."""

    def __init__(self, containers: Sequence[Path], sections: int) -> None:
        if not containers:
            msg = "the content repository needs at least one container directory"
            raise ValueError(msg)
        self.containers: tuple[str, ...] = tuple(os.fspath(c) for c in containers)
        self.sections = sections

    def container_dir(self, resource: ResourceClaim) -> str:
        """The container directory of a claim; ``ContentNotFoundError`` if it names none."""
        try:
            index = int(resource.container)
        except ValueError:
            index = -1
        if not 0 <= index < len(self.containers) or not _is_plain_name(resource.section):
            msg = f"resource claim {resource} does not belong to any configured container"
            raise ContentNotFoundError(msg)
        return self.containers[index]

    def section_dir(self, resource: ResourceClaim) -> str:
        return os.path.join(self.container_dir(resource), resource.section)

    def live_path(self, resource: ResourceClaim) -> str:
        if not _is_plain_name(resource.id):
            msg = f"resource claim {resource} has an invalid id"
            raise ContentNotFoundError(msg)
        return os.path.join(self.section_dir(resource), resource.id)

    def archive_path(self, resource: ResourceClaim) -> str:
        if not _is_plain_name(resource.id):
            msg = f"resource claim {resource} has an invalid id"
            raise ContentNotFoundError(msg)
        return os.path.join(self.section_dir(resource), ARCHIVE_DIR, resource.id)

    def new_resource(self, container: int, sequence: int, now_ms: int) -> ResourceClaim:
        """The claim for the ``sequence``-th new file, in ``container``; consecutive
        numbers spread over the sections."""
        section = sequence % self.sections
        return ResourceClaim(str(container), str(section), f"{now_ms}-{sequence}")

    def section_dirs(self) -> Iterator[tuple[int, os.DirEntry[str]]]:
        """Every existing section directory as (container index, entry).

        Sections are named by number; other directories of a container (the Spark
        staging area, ``staging/``) are not the content repository's.
        """
        for index, container in enumerate(self.containers):
            try:
                entries = list(os.scandir(container))
            except FileNotFoundError:
                continue
            for entry in entries:
                if entry.name.isdigit() and entry.is_dir(follow_symlinks=False):
                    yield index, entry

    def live_files(self) -> Iterator[tuple[ResourceClaim, str]]:
        """Every resource-claim file outside the archive directories."""
        for index, section in self.section_dirs():
            for entry in _scan(section.path):
                if entry.is_file(follow_symlinks=False):
                    yield ResourceClaim(str(index), section.name, entry.name), entry.path

    def archived_files(self, index: int) -> Iterator[tuple[ResourceClaim, os.DirEntry[str]]]:
        """Every archived file of one container."""
        try:
            sections = list(os.scandir(self.containers[index]))
        except FileNotFoundError:
            return
        for section in sections:
            if not (section.name.isdigit() and section.is_dir(follow_symlinks=False)):
                continue
            for entry in _scan(os.path.join(section.path, ARCHIVE_DIR)):
                if entry.is_file(follow_symlinks=False):
                    yield ResourceClaim(str(index), section.name, entry.name), entry


def _scan(path: str) -> list[os.DirEntry[str]]:
    try:
        return list(os.scandir(path))
    except (FileNotFoundError, NotADirectoryError):
        return []


def _is_plain_name(name: str) -> bool:
    return bool(name) and name not in (".", "..") and "/" not in name and os.sep not in name
