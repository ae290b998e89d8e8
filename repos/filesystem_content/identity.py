"""The data directory's identity in each content container, and the containers' probe.

Each container directory holds ``flowcore-container.json``: the node id, the generation
and the container's index (claims name their container by index, so a container moved
to another index is as wrong as one from another node). The file sits beside the
section directories, which are the only directories the repository reads claims from.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from flowcore.errors import RepositoryError
from flowcore.repository.identity import RepositoryIdentity, RepositoryProbe
from flowcore.settings import EngineSettings
from repos.filesystem_content.layout import ContainerLayout

IDENTITY_FILE = "flowcore-container.json"


class ContentIdentity:
    """``probe`` and ``write_identity`` of the file-system content repository."""

    _layout: ContainerLayout

    @classmethod
    def probe(cls, settings: EngineSettings) -> list[RepositoryProbe]:
        return [
            _probe_container(index, Path(container))
            for index, container in enumerate(settings.content_containers)
        ]

    def write_identity(self, identity: RepositoryIdentity, *, durable: bool) -> None:
        for index, container in enumerate(self._layout.containers):
            record = {"node_id": identity.node_id, "generation": identity.generation}
            data = json.dumps({**record, "container": index}).encode()
            try:
                write_file_atomically(Path(container) / IDENTITY_FILE, data, durable=durable)
            except OSError as exc:
                msg = f"cannot record the data directory's identity in {container}: {exc}"
                raise RepositoryError(msg, repository="content") from exc


def _probe_container(index: int, container: Path) -> RepositoryProbe:
    def found(**fields: Any) -> RepositoryProbe:
        return RepositoryProbe("content", container, container=index, **fields)

    if not container.is_dir():
        return found(missing=True)
    try:
        data = (container / IDENTITY_FILE).read_bytes()
    except FileNotFoundError:
        return found(holds_data=_holds_files(container))
    except OSError as exc:
        return found(damaged=f"its {IDENTITY_FILE} cannot be read ({exc})")
    try:
        identity = RepositoryIdentity.decode(data)
        stored_index = json.loads(data).get("container")
    except (ValueError, AttributeError) as exc:
        return found(damaged=f"its {IDENTITY_FILE} is unreadable ({exc})")
    if stored_index != index:
        return found(
            identity=identity,
            holds_data=True,
            damaged=f"it is container {stored_index} of its data directory, configured "
            f"here as container {index}",
        )
    return found(identity=identity, holds_data=True)


def _holds_files(container: Path) -> bool:
    """Whether any section (or its archive) holds a file: content that would be lost."""
    for section in os.scandir(container):
        if not (section.name.isdigit() and section.is_dir(follow_symlinks=False)):
            continue
        for entry in os.scandir(section.path):
            if entry.is_file(follow_symlinks=False):
                return True
            if entry.is_dir(follow_symlinks=False) and any(os.scandir(entry.path)):
                return True
    return False


def write_file_atomically(path: Path, data: bytes, *, durable: bool) -> None:
    """Replace ``path`` with ``data`` whole (a temporary file renamed over it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    with open(temporary, "wb") as handle:
        handle.write(data)
        if durable:
            handle.flush()
            os.fsync(handle.fileno())
    os.replace(temporary, path)
    if durable:
        directory = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
