"""Instructions per FlowFile of the end-to-end flow, pure Python against the compiled copy.

Wall time on a shared machine moves with whatever else runs; instruction counts from
``valgrind --tool=callgrind`` do not. Each variant runs the deterministic end-to-end flow
of ``bench_end_to_end`` (GenerateFlowFile -> UpdateAttribute -> PutFile, provenance on,
``durability=process``) in a fresh child process under callgrind, once with ``--large``
FlowFiles and once with ``--small``; the difference divided by the difference in
FlowFiles removes start-up and shut-down (imports, opening the repositories) and leaves
the instructions one FlowFile costs, every thread counted (DuckDB indexing included).

    python -m benchmarks.callgrind_end_to_end                     # pure and compiled
    python -m benchmarks.callgrind_end_to_end --variants pure --large 5000

The compiled variant needs a current compiled copy (``python -m benchmarks.compiled
build``). Under callgrind a run is about 50 times slower: the defaults take a few
minutes. Figures are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks import compiled

_TOTALS = re.compile(r"^(?:summary|totals):\s+(\d+)", re.MULTILINE)


def child(flowfiles: int, base: Path) -> None:
    """The measured work: one deterministic run of the end-to-end flow (in this process)."""
    from benchmarks.bench_end_to_end import run_deterministic

    result = run_deterministic(base, flowfiles)
    if result.files != flowfiles:
        msg = f"the flow wrote {result.files} files, expected {flowfiles}"
        raise RuntimeError(msg)
    import flowcore.session.session as session_module

    print(f"session module: {session_module.__file__}")


def instructions(
    variant: str, flowfiles: int, scratch: Path, target: Path = compiled.DEFAULT_TARGET
) -> int:
    """Callgrind's total instruction count of one child run of ``flowfiles``."""
    work = Path(tempfile.mkdtemp(prefix=f"cg-{variant}-{flowfiles}-", dir=scratch))
    out = work / "callgrind.out"
    command = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out}",
        sys.executable,
        "-m",
        "benchmarks.callgrind_end_to_end",
        "--child",
        str(flowfiles),
        "--child-dir",
        str(work / "flow"),
    ]
    # Valgrind cannot reserve the default 64 GB LMDB map; the size does not change the work.
    fixed = {"PYTHONHASHSEED": "0", "FLOWCORE_FLOWFILE_REPOSITORY__MAP_SIZE": "1 GB"}
    if variant == "compiled":
        compiled.require_current(target)
        env = compiled.child_environment(target) | fixed
        cwd = target
    else:
        env = dict(os.environ, PYTHONPATH=str(compiled.ROOT)) | fixed
        cwd = compiled.ROOT
    try:
        result = subprocess.run(
            command, cwd=cwd, env=env, capture_output=True, text=True, check=False
        )
        if result.returncode != 0:
            raise RuntimeError(f"{variant} {flowfiles}: {result.stdout}{result.stderr[-3000:]}")
        loaded = re.search(r"session module: (\S+)", result.stdout)
        expected_so = variant == "compiled"
        if loaded is None or loaded[1].endswith(".so") != expected_so:
            msg = f"{variant} run loaded the wrong session module: {result.stdout.strip()}"
            raise RuntimeError(msg)
        match = _TOTALS.search(out.read_text(errors="replace"))
        if match is None:
            raise RuntimeError(f"no instruction total in {out}")
        return int(match[1])
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=1000, help="FlowFiles of the base run")
    parser.add_argument("--large", type=int, default=3000, help="FlowFiles of the long run")
    parser.add_argument("--variants", default="pure,compiled", help="pure, compiled or both")
    parser.add_argument("--dir", type=Path, default=None, help="scratch directory")
    parser.add_argument(
        "--compiled-dir",
        type=Path,
        default=compiled.DEFAULT_TARGET,
        help="the compiled copy (python -m benchmarks.compiled build --target DIR)",
    )
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--child-dir", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        child(args.child, args.child_dir)
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 1
    scratch = Path(tempfile.mkdtemp(prefix="flowcore-callgrind-", dir=args.dir))
    per_flowfile: dict[str, float] = {}
    try:
        for variant in args.variants.split(","):
            small = instructions(variant, args.small, scratch, args.compiled_dir)
            large = instructions(variant, args.large, scratch, args.compiled_dir)
            per_flowfile[variant] = (large - small) / (args.large - args.small)
            print(
                f"{variant}: {args.small:,} FlowFiles {small:,} instructions, "
                f"{args.large:,} FlowFiles {large:,} instructions: "
                f"{per_flowfile[variant]:,.0f} instructions per FlowFile",
                flush=True,
            )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if "pure" in per_flowfile and "compiled" in per_flowfile:
        cut = 1 - per_flowfile["compiled"] / per_flowfile["pure"]
        print(f"compiled cuts instructions per FlowFile by {cut:.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
