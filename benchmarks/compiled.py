"""A copy of the engine with its per-hop hot modules compiled by mypyc, to measure.

The copy is built out of the tree, in ``build/compiled/`` (git-ignored): the packages are
copied there and the modules of ``HOT_MODULES`` compiled in place, so that an extension
module can never shadow edited source in the tree. The copy records the hash of the
sources it was built from (``MANIFEST``); a copy whose hash differs from the tree's is
stale and is refused, since it would run yesterday's code.

    python -m benchmarks.compiled build             # session and queue, ~40 s
    python -m benchmarks.compiled build --if-stale  # only if missing or stale
    python -m benchmarks.compiled build --target build/compiled-wide --modules a,b/c.py
    python -m benchmarks.compiled check             # exit 1 unless the copy is current

Use the copy by running Python from its directory with it first on the path (a script's
or ``-m``'s own directory comes first on ``sys.path``, so the tree must not be the
working directory): ``cd build/compiled && PYTHONPATH=$PWD:<tree> python -m ...``.
``callgrind_end_to_end`` does this itself. The measured figures, and why the compiled
copy is a measuring tool and not a build the engine ships, are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TARGET = ROOT / "build" / "compiled"
MANIFEST = "flowcore-compiled.json"
# Everything the benchmarks import from the tree except the benchmarks themselves.
PACKAGES = ("flowcore", "repos", "processors", "nifiapi")
# Compiled, as paths relative to the tree: the per-FlowFile work of a session (get,
# transfer, commit plan, provenance event build) and of the connection queues.
# flowcore/model is not among them: its classes are msgspec Structs, already C, and
# mypyc cannot compile a Struct subclass.
HOT_MODULES = ("flowcore/session", "flowcore/queue")
_SKIPPED_PARTS = frozenset({"__pycache__"})
_SKIPPED_SUFFIXES = (".so", ".pyc", ".c", ".o")


class CompiledCopyError(RuntimeError):
    """The compiled copy is missing, stale or not what it claims to be."""


def _source_files(root: Path, packages: tuple[str, ...]) -> list[Path]:
    files: list[Path] = []
    for package in packages:
        for path in (root / package).rglob("*"):
            relative = path.relative_to(root)
            if (
                path.is_file()
                and not _SKIPPED_PARTS.intersection(relative.parts)
                and not path.name.endswith(_SKIPPED_SUFFIXES)
            ):
                files.append(relative)
    return sorted(files)


def source_hash(root: Path, packages: tuple[str, ...] = PACKAGES) -> str:
    """SHA-256 over the path and bytes of every source file of ``packages`` under ``root``."""
    digest = hashlib.sha256()
    for relative in _source_files(root, packages):
        digest.update(relative.as_posix().encode())
        digest.update(b"\0")
        digest.update((root / relative).read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class CopyStatus:
    """Whether the compiled copy at ``target`` may stand for the tree at ``root``."""

    target: Path
    current: bool
    reason: str  # why not, or what it is


def copy_status(
    target: Path = DEFAULT_TARGET, root: Path = ROOT, packages: tuple[str, ...] = PACKAGES
) -> CopyStatus:
    manifest_path = target / MANIFEST
    if not manifest_path.is_file():
        return CopyStatus(
            target, False, f"no compiled copy at {target} (`make compiled` builds one)"
        )
    try:
        manifest = json.loads(manifest_path.read_text())
        built_from = str(manifest["source_hash"])
    except (ValueError, KeyError, TypeError) as error:
        return CopyStatus(target, False, f"unreadable {manifest_path}: {error}")
    tree = source_hash(root, packages)
    if built_from != tree:
        return CopyStatus(
            target,
            False,
            f"the compiled copy at {target} was built from other sources "
            f"(hash {built_from[:12]}, the tree's is {tree[:12]}): refused, it would run "
            f"stale code; `make compiled` rebuilds it",
        )
    modules = ", ".join(manifest.get("modules", []))
    return CopyStatus(target, True, f"compiled copy at {target} ({modules}), current")


def require_current(target: Path = DEFAULT_TARGET, root: Path = ROOT) -> None:
    status = copy_status(target, root)
    if not status.current:
        raise CompiledCopyError(status.reason)


def compiled_files(root: Path, hot: tuple[str, ...] = HOT_MODULES) -> list[str]:
    """The ``.py`` files of ``hot`` (directories or files), relative to ``root``."""
    files: list[str] = []
    for entry in hot:
        path = root / entry
        found = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        files.extend(p.relative_to(root).as_posix() for p in found)
    return files


def _ignore(directory: str, names: list[str]) -> set[str]:
    return {n for n in names if n in _SKIPPED_PARTS or n.endswith(_SKIPPED_SUFFIXES)}


def build(
    target: Path = DEFAULT_TARGET, root: Path = ROOT, modules: tuple[str, ...] = HOT_MODULES
) -> Path:
    """Copy the packages to a staging directory, compile ``modules`` there with mypyc,
    record the hash of the copied sources, then move it to ``target``."""
    if shutil.which(os.environ.get("CC", "gcc")) is None:
        raise CompiledCopyError("no C compiler (gcc) found: mypyc needs one")
    staging = target.with_name(target.name + ".staging")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for package in PACKAGES:
        shutil.copytree(root / package, staging / package, ignore=_ignore)
    built_from = source_hash(staging)  # the copy's own sources: what is compiled
    files = compiled_files(staging, modules)
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "mypyc", *files],
        cwd=staging,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise CompiledCopyError(
            f"mypyc failed ({result.returncode}):\n{result.stdout[-4000:]}{result.stderr[-4000:]}"
        )
    shutil.rmtree(staging / "build", ignore_errors=True)  # C sources and objects
    extensions = sorted(p.relative_to(staging).as_posix() for p in staging.rglob("*.so"))
    manifest = {
        "source_hash": built_from,
        "modules": list(modules),
        "extensions": extensions,
        "python": platform.python_version(),
        "mypyc": _mypy_version(),
        "build_seconds": round(time.perf_counter() - started, 1),
    }
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    return target


def _mypy_version() -> str:
    from mypy.version import __version__

    return __version__


def child_environment(target: Path, root: Path = ROOT) -> dict[str, str]:
    """The environment of a child Python that imports the compiled copy first (run it
    with ``cwd=target``), then the tree (for ``benchmarks``)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(target.resolve()), str(root.resolve())])
    return env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.compiled", description=__doc__.splitlines()[0]
    )
    parser.add_argument("action", choices=("build", "check"))
    parser.add_argument("--target", type=Path, default=DEFAULT_TARGET)
    parser.add_argument(
        "--modules",
        default=",".join(HOT_MODULES),
        help="what to compile: comma-separated packages or files, relative to the tree",
    )
    parser.add_argument(
        "--if-stale", action="store_true", help="build only if the copy is missing or stale"
    )
    args = parser.parse_args(argv)
    status = copy_status(args.target)
    if args.action == "check":
        print(status.reason)
        return 0 if status.current else 1
    if args.if_stale and status.current:
        print(status.reason)
        return 0
    modules = tuple(m.strip() for m in args.modules.split(",") if m.strip())
    print(f"compiling {', '.join(modules)} with mypyc into {args.target} (about a minute)")
    try:
        build(args.target, ROOT, modules)
    except CompiledCopyError as error:
        print(error, file=sys.stderr)
        return 1
    print(copy_status(args.target).reason)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
