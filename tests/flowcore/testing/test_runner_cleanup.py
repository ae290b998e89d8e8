"""A TestRunner leaves nothing behind: its temporary directory goes with it.

nifi-mock tests never close their runner, so the runner closes its node and removes the
directory it made when it is collected (or at exit); a runner given its settings makes
no directory at all.
"""

from __future__ import annotations

import gc
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from flowcore.settings import EngineSettings
from flowcore.testing import TestRunner
from processors.standard.update_attribute import UpdateAttribute


@pytest.fixture
def temp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Temporary directories are made under ``tmp_path/tmp`` for the test."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


def run_once_and_forget() -> Path:
    runner = TestRunner(UpdateAttribute())
    runner.set_property("seen", "yes")
    runner.enqueue(b"x")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    return runner.settings.data_dir


def test_a_runner_that_is_never_closed_removes_its_directory_when_collected(
    temp_root: Path,
) -> None:
    data_dir = run_once_and_forget()
    gc.collect()
    assert not data_dir.exists()
    assert list(temp_root.iterdir()) == []


def test_close_removes_the_directory_once(temp_root: Path) -> None:
    runner = TestRunner(UpdateAttribute())
    assert runner.settings.data_dir.parent == temp_root
    runner.close()
    runner.close()  # a second close does nothing
    assert list(temp_root.iterdir()) == []


def test_a_runner_given_its_settings_makes_no_directory_and_removes_none(
    temp_root: Path, tmp_path: Path
) -> None:
    data_dir = tmp_path / "mine"
    runner = TestRunner(UpdateAttribute(), settings=EngineSettings(data_dir=data_dir))
    runner.close()
    assert list(temp_root.iterdir()) == []
    assert data_dir.exists()  # the caller's directory is the caller's


def readme_example() -> str:
    """The TestRunner example of the README, as the README shows it."""
    readme = Path(__file__).resolve().parents[3] / "README.md"
    found = re.search(r"```python\n(.*?)```", readme.read_text(encoding="utf-8"), re.DOTALL)
    assert found is not None, "the README has no Python example"
    return found.group(1)


def test_the_readme_example_exits_cleanly_as_a_script(temp_root: Path) -> None:
    script = temp_root / "example.py"
    script.write_text(readme_example(), encoding="utf-8")
    env = {**os.environ, "TMPDIR": str(temp_root)}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert [p.name for p in temp_root.iterdir()] == ["example.py"]
