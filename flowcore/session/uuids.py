"""Random (version 4) UUID strings for new FlowFiles, made without a ``uuid.UUID``.

Every FlowFile a session creates, clones or copies for an extra connection gets one.
``str(uuid.uuid4())`` builds a ``UUID`` object and formats it through its integer;
formatting the hex of the same 16 random bytes directly costs about a third of that.
The result is the same: 122 random bits from ``os.urandom``, version 4, RFC 4122 variant.
"""

from __future__ import annotations

import os

# The variant's two top bits are 10: the first hex digit of the fourth group is 8-b.
_VARIANT = {f"{digit:x}": f"{(digit & 0x3) | 0x8:x}" for digit in range(16)}


def random_uuid() -> str:
    """A random UUID in its canonical lower-case 36-character form."""
    digits = os.urandom(16).hex()
    return (
        f"{digits[:8]}-{digits[8:12]}-4{digits[13:16]}-"
        f"{_VARIANT[digits[16]]}{digits[17:20]}-{digits[20:]}"
    )
