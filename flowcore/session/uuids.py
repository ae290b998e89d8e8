"""Random (version 4) UUID strings for new FlowFiles, made without a ``uuid.UUID``.

Every FlowFile a session creates, clones or copies for an extra connection gets one.
``str(uuid.uuid4())`` builds a ``UUID`` object and formats it through its integer and
reads 16 bytes from ``os.urandom`` (one system call) each time. Here the random bytes
come from ``os.urandom`` in blocks of 256 UUIDs' worth, hex-encoded once, and each UUID is
sliced from the block. The result is the same: 122 random bits from the operating
system's generator, version 4, RFC 4122 variant. The block is per thread and dropped in a
forked child, so no two threads or processes hand out the same bytes.
"""

from __future__ import annotations

import os
import threading

# The variant's two top bits are 10: the first hex digit of the fourth group is 8-b.
_VARIANT = {f"{digit:x}": f"{(digit & 0x3) | 0x8:x}" for digit in range(16)}
_PER_BLOCK = 256
_HEX_PER_UUID = 32


class _Block(threading.local):
    def __init__(self) -> None:
        self.digits = ""
        self.next = 0


_block = _Block()


def _forget_block() -> None:
    global _block
    _block = _Block()


os.register_at_fork(after_in_child=_forget_block)


def random_uuid() -> str:
    """A random UUID in its canonical lower-case 36-character form."""
    block = _block
    start = block.next
    digits = block.digits
    if start >= len(digits):
        digits = block.digits = os.urandom(_PER_BLOCK * 16).hex()
        start = 0
    block.next = start + _HEX_PER_UUID
    return (
        f"{digits[start : start + 8]}-{digits[start + 8 : start + 12]}-"
        f"4{digits[start + 13 : start + 16]}-"
        f"{_VARIANT[digits[start + 16]]}{digits[start + 17 : start + 20]}-"
        f"{digits[start + 20 : start + 32]}"
    )
