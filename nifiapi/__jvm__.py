"""NiFi's holder of the py4j gateway. flowcore has no JVM: both are None.

Kept so that ``from nifiapi.__jvm__ import JvmHolder`` imports; a processor that calls
into the JVM through it cannot run in flowcore.
"""

from __future__ import annotations

from typing import Any


class JvmHolder:
    jvm: Any = None
    gateway: Any = None
    java_gateway: Any = None


def ArrayList() -> list[Any]:
    """NiFi's helper returns a Java list; here a Python list serves."""
    return []
