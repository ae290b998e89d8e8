"""The ``simulation:`` section of a flow file: inputs, outputs, faults and invariants.

Every key is optional. Without the section, a parameter named ``input_dir`` (or ending
in ``input_dir``) is an input folder and one named ``out_dir`` (or ending in
``out_dir`` / ``output_dir``) an output folder, as in the samples.

```yaml
simulation:
  inputs: {input_dir: input}     # parameter -> folder copied afresh into every run
  outputs: [out_dir]             # parameters given a new, empty folder in every run
  faults: [crash, disk_full]     # the kinds drawn (default: all)
  max_faults: 3
  invariants:
    lines_delivered_once: {input: input_dir, skip_header: true}
    exactly_once_delivery: false
    same_outputs_as_fault_free: false
    same_state_as_fault_free: false
  hook: checks.py:check          # or a module: package.module:function
```
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from flowcore.errors import ConfigurationError
from flowcore.simulation.faults import DEFAULT_KINDS, FaultKind


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LinesSpec(_Model):
    """Every line of the input files appears exactly once across the delivered files."""

    input: str
    """The input parameter whose folder holds the input files."""
    skip_header: bool = False
    """The first line of every input and output file is a header, not a record."""


class InvariantsSpec(_Model):
    lines_delivered_once: LinesSpec | None = None
    exactly_once_delivery: bool = False
    """A delivery made again after a crash fails the run (otherwise it is reported)."""
    same_outputs_as_fault_free: bool = False
    """The output folders hold the same files, byte for byte, as after a run without
    faults."""
    same_state_as_fault_free: bool = False
    """Every processor's state and keyed state end as after a run without faults."""


class SimulationSpec(_Model):
    inputs: dict[str, str] | None = None
    outputs: list[str] | None = None
    parameters: dict[str, str] = Field(default_factory=dict)
    settings: dict[str, Any] = Field(default_factory=dict)
    """Engine settings for the simulated node (as in ``EngineSettings``)."""
    faults: list[FaultKind] = Field(default_factory=lambda: list(DEFAULT_KINDS))
    max_faults: int = Field(default=3, ge=0)
    max_triggers: int = Field(default=20_000, ge=1)
    run_once_sources: bool = False
    """Give every processor no connection feeds ``max_runs: 1`` (as ``make demo`` does for
    a NiFi flow whose GetFile keeps its files and would never be idle)."""
    count_failed_runs: bool = True
    """False: a trigger that fails (an injected fault, say) does not count toward a
    processor's ``max_runs``, so a Run Once source runs again after a failed run."""
    idle_wait: str = "2 min"
    """How long the same FlowFiles may wait for retries before the run counts as idle."""
    invariants: InvariantsSpec = Field(default_factory=InvariantsSpec)
    hook: str | None = None

    @classmethod
    def parse(cls, data: Any, source: str = "simulation") -> SimulationSpec:
        try:
            return cls.model_validate(data or {})
        except ValidationError as exc:
            problems = "; ".join(
                f"{source}.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
            )
            raise ConfigurationError(problems) from None

    def input_parameters(self, parameters: dict[str, str]) -> dict[str, str]:
        """Input parameter -> the folder (as written) it is copied from."""
        if self.inputs is not None:
            return dict(self.inputs)
        return {
            name: value
            for name, value in parameters.items()
            if name.replace(".", "_").endswith("input_dir")
        }

    def output_parameters(self, parameters: dict[str, str]) -> list[str]:
        if self.outputs is not None:
            return list(self.outputs)
        return [
            name
            for name in parameters
            if name.replace(".", "_").endswith(("out_dir", "output_dir"))
        ]
