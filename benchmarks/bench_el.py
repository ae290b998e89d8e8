"""Benchmark: Expression Language evaluations per second, beside plain Python doing the same.

A mix of 10 expressions as flows use them (a lone attribute, text around attributes,
string functions, arithmetic, a comparison chain, ``ifElse``, a date format, a regex
replace, a multi-attribute test and a JSONPath read) is compiled once and evaluated over
FlowFile-like attribute maps. The limit is the same work written by hand in Python:
f-strings and ``str`` / ``re`` / ``json`` calls, with no parsing, no type conversion
rules and no null handling beyond what the values need. The ratio says what NiFi's
semantics cost on top of the bare computation.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime

from benchmarks._common import best_of, fmt_rate, rate, result_line
from flowcore.el import compile_expression

EXPRESSIONS = (
    "${filename}",
    "${absolute.path}/${filename}",
    "${filename:toUpper():substringBefore('.')}",
    "${size:toNumber():plus(1024):divide(2)}",
    "${size:gt(100):and(${priority:equals('high')})}",
    "${priority:equals('high'):ifElse('urgent', 'normal')}",
    "${now():format('yyyy-MM-dd', 'UTC')}",
    "${filename:replaceAll('[^a-z0-9]', '_')}",
    "${anyAttribute('priority', 'kind'):equals('high')}",
    "${payload:jsonPath('$.id')}",
)

_NON_ALNUM = re.compile("[^a-z0-9]")
NOW_MS = 1_700_000_000_000


def _python(attrs: dict[str, str]) -> list[str]:
    """The same ten results, computed directly."""
    filename = attrs["filename"]
    size = int(attrs["size"])
    return [
        filename,
        f"{attrs['absolute.path']}/{filename}",
        filename.upper().split(".", 1)[0],
        str((size + 1024) // 2),
        "true" if size > 100 and attrs["priority"] == "high" else "false",
        "urgent" if attrs["priority"] == "high" else "normal",
        datetime.fromtimestamp(NOW_MS / 1000, UTC).strftime("%Y-%m-%d"),
        _NON_ALNUM.sub("_", filename),
        "true" if "high" in (attrs.get("priority"), attrs.get("kind")) else "false",
        str(json.loads(attrs["payload"])["id"]),
    ]


def inputs(count: int) -> list[dict[str, str]]:
    return [
        {
            "filename": f"file-{index}.txt",
            "absolute.path": "/data/in",
            "size": str(100 + index % 1000),
            "priority": "high" if index % 3 == 0 else "low",
            "kind": "batch",
            "payload": json.dumps({"id": index, "name": f"n{index}"}),
        }
        for index in range(count)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--flowfiles", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    data = inputs(args.flowfiles)
    compiled = [compile_expression(text) for text in EXPRESSIONS]
    for attrs in data[:50]:  # the two sides compute the same results
        ours = [e.evaluate(attrs, env={}, now_ms=NOW_MS) for e in compiled]
        assert ours == _python(attrs), (ours, _python(attrs))

    def run_el() -> float:
        start = time.perf_counter()
        for attrs in data:
            for expression in compiled:
                expression.evaluate(attrs, env={}, now_ms=NOW_MS)
        return time.perf_counter() - start

    def run_python() -> float:
        start = time.perf_counter()
        for attrs in data:
            _python(attrs)
        return time.perf_counter() - start

    runs: dict[str, Callable[[], float]] = {"el": run_el, "python": run_python}
    best = best_of(args.rounds, runs)
    evaluations = len(data) * len(EXPRESSIONS)
    ours, limit = rate(evaluations, best["el"]), rate(evaluations, best["python"])
    print(
        result_line(
            "expression language (10-expression mix)",
            fmt_rate(ours, "expr/s"),
            "plain Python",
            fmt_rate(limit, "expr/s"),
            ours / limit,
        )
    )


if __name__ == "__main__":
    main()
