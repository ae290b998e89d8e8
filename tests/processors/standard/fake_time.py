"""A monotonic clock for code that paces itself in real time, advanced by its sleeps."""

from __future__ import annotations


class FakeTime:
    """A monotonic clock that moves only when slept on."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
