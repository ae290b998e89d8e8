"""Fault schedules: which faults a simulated run meets, and where, drawn from a seed.

A fault is placed by counting what the run does, never by wall time, so a schedule
replays exactly: the n-th session commit (``crash`` after a commit step,
``repository_full``), the n-th content write (``crash`` in the middle of a trigger,
``disk_full``), the n-th processor trigger (``crash`` at a random point before it,
``processor_exception``, ``clock_jump``), the n-th offload call (``offload``), or the whole
run (``back_pressure`` on one connection). Counts run on across the simulated restarts of
one run. A schedule is plain JSON, so a failing one can be printed, saved and given back
to ``flowcore simulate --schedule``.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from flowcore.errors import ConfigurationError


class FaultKind(StrEnum):
    CRASH = "crash"
    REPOSITORY_FULL = "repository_full"
    DISK_FULL = "disk_full"
    PROCESSOR_EXCEPTION = "processor_exception"
    CLOCK_JUMP = "clock_jump"
    OFFLOAD = "offload"
    BACK_PRESSURE = "back_pressure"


CRASH_PHASES = (
    "trigger",
    "content write",
    "content durable",
    "repository committed",
    "queues updated",
)
"""Where a crash can hit: before a trigger (a random point between two), at a content
write (in the middle of a trigger, part of its work done), or after the named step of a
commit (``flowcore.session.commit.CommitPhase`` values)."""

DEFAULT_KINDS: tuple[FaultKind, ...] = tuple(FaultKind)
_WEIGHTS = {
    FaultKind.CRASH: 6,
    FaultKind.REPOSITORY_FULL: 2,
    FaultKind.DISK_FULL: 2,
    FaultKind.PROCESSOR_EXCEPTION: 2,
    FaultKind.CLOCK_JUMP: 2,
    FaultKind.OFFLOAD: 1,
    FaultKind.BACK_PRESSURE: 1,
}


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault. ``at`` counts from 1 what the kind counts (see the module docstring)."""

    kind: FaultKind
    at: int = 1
    phase: str | None = None
    """``crash`` only: one of ``CRASH_PHASES``."""
    seconds: float | None = None
    """``clock_jump``: how far the clock jumps; ``offload`` with mode slow: the job's length."""
    mode: str | None = None
    """``offload``: ``fail`` or ``slow``."""
    connection: str | None = None
    """``back_pressure``: the connection's name."""
    threshold: int | None = None
    """``back_pressure``: its object threshold for the run."""

    def describe(self) -> str:
        kind = self.kind
        if kind is FaultKind.CRASH:
            if self.phase == "trigger":
                return f"crash before trigger {self.at}"
            if self.phase == "content write":
                return f"crash at content write {self.at}"
            return f"crash at commit {self.at}, after '{self.phase}'"
        if kind is FaultKind.REPOSITORY_FULL:
            return f"FlowFile repository full (LMDB map full) at commit {self.at}"
        if kind is FaultKind.DISK_FULL:
            return f"content repository full (disk full) at content write {self.at}"
        if kind is FaultKind.PROCESSOR_EXCEPTION:
            return f"processor exception in trigger {self.at}"
        if kind is FaultKind.CLOCK_JUMP:
            return f"clock jumps {self.seconds:g} s before trigger {self.at}"
        if kind is FaultKind.OFFLOAD:
            if self.mode == "slow":
                return f"offload call {self.at} is slow ({self.seconds:g} s) and fails"
            return f"offload call {self.at} fails"
        return f"back pressure at {self.threshold} FlowFiles on connection '{self.connection}'"

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_json(cls, data: Any) -> Fault:
        if not isinstance(data, dict) or "kind" not in data:
            raise ConfigurationError(f"a fault must be an object with a 'kind', not {data!r}")
        unknown = set(data) - {f for f in cls.__dataclass_fields__}
        if unknown:
            raise ConfigurationError(f"unknown fault field(s): {', '.join(sorted(unknown))}")
        try:
            kind = FaultKind(data["kind"])
        except ValueError:
            known = ", ".join(k.value for k in FaultKind)
            raise ConfigurationError(
                f"unknown fault kind '{data['kind']}' (known: {known})"
            ) from None
        fault = cls(**{**data, "kind": kind})
        if kind is FaultKind.CRASH and fault.phase not in CRASH_PHASES:
            raise ConfigurationError(
                f"a crash's phase must be one of {', '.join(CRASH_PHASES)}, not {fault.phase!r}"
            )
        if not isinstance(fault.at, int) or fault.at < 1:
            raise ConfigurationError(f"a fault's 'at' counts from 1, not {fault.at!r}")
        return fault


@dataclass(frozen=True, slots=True)
class FaultSchedule:
    """The faults of one run, and the seed they were drawn from."""

    seed: int
    faults: tuple[Fault, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "faults": [f.to_json() for f in self.faults]}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2)

    @classmethod
    def from_json(cls, data: Any) -> FaultSchedule:
        if not isinstance(data, dict) or not isinstance(data.get("faults", []), list):
            raise ConfigurationError("a fault schedule is an object with 'seed' and 'faults'")
        seed = data.get("seed", 0)
        if not isinstance(seed, int):
            raise ConfigurationError(f"a schedule's seed must be an integer, not {seed!r}")
        return cls(seed, tuple(Fault.from_json(f) for f in data.get("faults", [])))

    @classmethod
    def load(cls, path: Path) -> FaultSchedule:
        try:
            return cls.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigurationError(f"cannot read the fault schedule {path}: {exc}") from None

    def without(self, index: int) -> FaultSchedule:
        return FaultSchedule(self.seed, self.faults[:index] + self.faults[index + 1 :])

    def describe(self) -> list[str]:
        return [f.describe() for f in self.faults]


@dataclass(frozen=True, slots=True)
class RunShape:
    """How much a fault-free run of the flow does: the ranges faults are drawn from."""

    commits: int
    triggers: int
    content_writes: int
    offload_calls: int
    connections: tuple[str, ...]


def draw_schedule(
    seed: int,
    shape: RunShape,
    kinds: tuple[FaultKind, ...] = DEFAULT_KINDS,
    max_faults: int = 3,
) -> FaultSchedule:
    """The faults for ``seed``: one to ``max_faults`` of them, of the given kinds, placed
    within what the fault-free run did (so that most of them are met)."""
    rng = random.Random(seed)
    usable = [k for k in kinds if _possible(k, shape)]
    if not usable or max_faults < 1:
        return FaultSchedule(seed)
    weights = [_WEIGHTS[k] for k in usable]
    faults: list[Fault] = []
    for _ in range(rng.randint(1, max_faults)):
        kind = rng.choices(usable, weights)[0]
        faults.append(_draw(rng, kind, shape))
    return FaultSchedule(seed, tuple(faults))


def _possible(kind: FaultKind, shape: RunShape) -> bool:
    if kind in (FaultKind.REPOSITORY_FULL,):
        return shape.commits > 0
    if kind is FaultKind.DISK_FULL:
        return shape.content_writes > 0
    if kind is FaultKind.OFFLOAD:
        return shape.offload_calls > 0
    if kind is FaultKind.BACK_PRESSURE:
        return bool(shape.connections)
    return shape.triggers > 0


def _draw(rng: random.Random, kind: FaultKind, shape: RunShape) -> Fault:
    if kind is FaultKind.CRASH:
        phase = rng.choice(CRASH_PHASES)
        if phase == "content write" and shape.content_writes > 0:
            return Fault(kind, rng.randint(1, shape.content_writes), phase=phase)
        if phase in ("trigger", "content write") or shape.commits == 0:
            return Fault(kind, rng.randint(1, shape.triggers), phase="trigger")
        return Fault(kind, rng.randint(1, shape.commits), phase=phase)
    if kind is FaultKind.REPOSITORY_FULL:
        return Fault(kind, rng.randint(1, shape.commits))
    if kind is FaultKind.DISK_FULL:
        return Fault(kind, rng.randint(1, shape.content_writes))
    if kind is FaultKind.PROCESSOR_EXCEPTION:
        return Fault(kind, rng.randint(1, shape.triggers))
    if kind is FaultKind.CLOCK_JUMP:
        seconds = rng.choice((1.0, 5.0, 30.0, 60.0, 300.0, 3600.0))
        return Fault(kind, rng.randint(1, shape.triggers), seconds=seconds)
    if kind is FaultKind.OFFLOAD:
        mode = rng.choice(("fail", "slow"))
        return Fault(
            kind,
            rng.randint(1, shape.offload_calls),
            mode=mode,
            seconds=rng.choice((10.0, 60.0, 600.0)) if mode == "slow" else None,
        )
    return Fault(kind, connection=rng.choice(shape.connections), threshold=rng.choice((1, 2, 3, 5)))
