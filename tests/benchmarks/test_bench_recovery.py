"""The recovery benchmark's data directory is one a node starts from."""

from __future__ import annotations

from pathlib import Path

from benchmarks.bench_recovery import build, child_recover


def test_the_built_data_directory_recovers_every_flowfile(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    live, swapped = build(data_dir, 30_000, content_files=False)

    recovered = child_recover(data_dir)  # here in-process: the same Node.from_flow

    assert (live, swapped) == (20_000, 10_000)
    assert recovered["queued"] == 30_000
    assert (recovered["flowfiles"], recovered["swapped"]) == (20_000, 10_000)
