"""Child process for the start-up crash tests: opens a node and is killed (SIGKILL) at one
step of the data directory's start-up.

Run as ``python identity_child.py DATA_DIR DURABILITY PHASE``.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from flowcore.clock import ManualClock
from flowcore.engine import Node, data_identity
from flowcore.flow import parse_flow
from flowcore.settings import EngineSettings
from tests.flowcore.engine.test_data_identity import port_flow


def main() -> None:
    data_dir, durability, phase = sys.argv[1:4]

    def kill_at(reached: str) -> None:
        if reached == phase:
            os.kill(os.getpid(), signal.SIGKILL)

    data_identity.phase_hook = kill_at
    settings = EngineSettings(data_dir=Path(data_dir), durability=durability)  # type: ignore[arg-type]
    Node.from_flow(settings, parse_flow(port_flow()), ManualClock())
    sys.exit(1)  # the phase was never reached


if __name__ == "__main__":
    main()
