"""Running a callable as an ordinary user would: file permissions apply even to root.

NiFi's tests make files unreadable with ``setReadable(false)``, which root ignores. Here the
callable runs in a thread of its own that has given up the capabilities that let root
override file permissions (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH); capabilities are per
thread on Linux, so the rest of the process keeps them.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Callable

_VERSION_3 = 0x20080522
_DAC_CAPABILITIES = (1 << 1) | (1 << 2)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH


class _Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _Data(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def _drop_dac_capabilities() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    header = _Header(_VERSION_3, 0)
    data = (_Data * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capget failed")
    for part in data:
        part.effective &= ~_DAC_CAPABILITIES
        part.permitted &= ~_DAC_CAPABILITIES
        part.inheritable &= ~_DAC_CAPABILITIES
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def run_unprivileged(action: Callable[[], None]) -> None:
    """Run ``action`` where file permissions apply (as root: in a thread without the
    capabilities that override them); its exception is raised here."""
    if os.geteuid() != 0:
        action()
        return
    failure: list[BaseException] = []

    def body() -> None:
        try:
            _drop_dac_capabilities()
            action()
        except BaseException as exc:  # handed to the caller
            failure.append(exc)

    thread = threading.Thread(target=body, name="unprivileged")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
