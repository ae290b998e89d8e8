"""Deterministic simulation: run a flow under seeded faults (crashes at every commit
phase, full repositories, processor exceptions, clock jumps, failing offload, back
pressure), restart it on the same data directory, and check the invariants every flow
keeps plus the user's own (docs/simulation.md)."""

from flowcore.simulation.faults import Fault, FaultKind, FaultSchedule, RunShape, draw_schedule
from flowcore.simulation.harness import RunResult, RunView, Simulation
from flowcore.simulation.injector import SimulatedCrash
from flowcore.simulation.invariants import Redelivery, Violation
from flowcore.simulation.shrink import shrink
from flowcore.simulation.spec import SimulationSpec

__all__ = [
    "Fault",
    "FaultKind",
    "FaultSchedule",
    "Redelivery",
    "RunResult",
    "RunShape",
    "RunView",
    "SimulatedCrash",
    "Simulation",
    "SimulationSpec",
    "Violation",
    "draw_schedule",
    "shrink",
]
