"""``streamed_in_chunks_of``: makes every ``session.stream`` hand over chunks of a few
bytes, so tests see line endings, multi-byte characters and compressed frames straddle
chunk borders (the content repository's own chunks are 1 MB)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from flowcore.model import FlowFile
from flowcore.session import ProcessSession


@contextmanager
def streamed_in_chunks_of(size: int) -> Iterator[None]:
    """Within the block, ``session.stream`` hands over chunks of ``size`` bytes."""
    original = ProcessSession.stream

    def stream(self: ProcessSession, flowfile: FlowFile, chunk_size: int = size) -> Iterator[bytes]:
        return original(self, flowfile, size)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ProcessSession, "stream", stream)
        yield
