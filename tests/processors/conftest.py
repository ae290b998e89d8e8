"""Fixtures shared by the processor tests."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest


@pytest.fixture
def switching_often() -> Iterator[None]:
    """The interpreter switches threads every microsecond for the test, so that the
    concurrent tasks of a processor (``TestRunner.set_thread_count``) interleave."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)
