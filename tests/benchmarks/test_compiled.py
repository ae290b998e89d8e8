"""The compiled copy's staleness guard: a copy is used only for the sources it was built
from. Nothing is compiled here: the copies are fakes with a hand-written manifest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import compiled
from benchmarks.compiled import CompiledCopyError, copy_status, require_current, source_hash

PACKAGES = ("pkg",)


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "sub" / "hot.py").write_text("def f() -> int:\n    return 1\n")
    return root


def _copy(tmp_path: Path, built_from: str) -> Path:
    target = tmp_path / "compiled"
    target.mkdir()
    manifest = {"source_hash": built_from, "modules": ["pkg/sub"]}
    (target / compiled.MANIFEST).write_text(json.dumps(manifest))
    return target


def test_a_copy_built_from_the_tree_is_current(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    target = _copy(tmp_path, source_hash(root, PACKAGES))

    status = copy_status(target, root, PACKAGES)

    assert status.current, status.reason


def test_an_edited_source_makes_the_copy_stale(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    target = _copy(tmp_path, source_hash(root, PACKAGES))
    (root / "pkg" / "sub" / "hot.py").write_text("def f() -> int:\n    return 2\n")

    status = copy_status(target, root, PACKAGES)

    assert not status.current
    assert "refused" in status.reason and "make compiled" in status.reason


def test_an_added_or_renamed_source_makes_the_copy_stale(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    target = _copy(tmp_path, source_hash(root, PACKAGES))
    (root / "pkg" / "sub" / "hot.py").rename(root / "pkg" / "sub" / "cold.py")
    assert not copy_status(target, root, PACKAGES).current

    (root / "pkg" / "sub" / "cold.py").rename(root / "pkg" / "sub" / "hot.py")
    assert copy_status(target, root, PACKAGES).current
    (root / "pkg" / "extra.py").write_text("")
    assert not copy_status(target, root, PACKAGES).current


def test_build_products_and_caches_do_not_count(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    before = source_hash(root, PACKAGES)
    (root / "pkg" / "__pycache__").mkdir()
    (root / "pkg" / "__pycache__" / "hot.cpython-311.pyc").write_bytes(b"\0")
    (root / "pkg" / "sub" / "hot.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\0")

    assert source_hash(root, PACKAGES) == before


def test_a_missing_or_unreadable_copy_is_refused(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    missing = copy_status(tmp_path / "nowhere", root, PACKAGES)
    assert not missing.current and "no compiled copy" in missing.reason

    target = tmp_path / "broken"
    target.mkdir()
    (target / compiled.MANIFEST).write_text("{not json")
    assert not copy_status(target, root, PACKAGES).current


def test_require_current_raises_with_the_reason(tmp_path: Path) -> None:
    root = tmp_path / "tree"  # the real packages are not there: nothing matches
    root.mkdir()
    target = _copy(tmp_path, "0" * 64)

    with pytest.raises(CompiledCopyError, match="refused"):
        require_current(target, root)
