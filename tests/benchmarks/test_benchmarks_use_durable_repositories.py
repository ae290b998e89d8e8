"""Benchmarks measure the real repositories: a TestRunner there runs on the durable ones.

The TestRunner defaults to the in-memory twins (for processor tests); a benchmark on them
would print a figure for work that never reaches LMDB, DuckDB or the content files (the
MergeEntities incremental line fell 5x, and the QueryRecord line was flattered, when the
default changed).
"""

from __future__ import annotations

import ast
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_every_test_runner_in_a_benchmark_is_durable() -> None:
    calls = []
    for path in sorted(BENCHMARKS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "TestRunner"
            ):
                keywords = {k.arg: k.value for k in node.keywords}
                durable = keywords.get("repositories")
                calls.append(path.name)
                assert isinstance(durable, ast.Constant) and durable.value == "durable", (
                    f"{path.name}:{node.lineno} runs a TestRunner on the in-memory twins"
                )
    assert sorted(set(calls)) == ["bench_merge_entities.py", "bench_query_record.py"]
