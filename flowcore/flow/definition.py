"""The YAML flow definition, validated with pydantic.

A flow names its processors, controller services, input ports and connections. Values
keep NiFi's syntax: time periods ("10 sec"), data sizes ("1 MB"), Expression Language
and ``#{parameter}`` references. Engine settings (paths, durability) are not part of it.
An invalid flow is refused with the offending key and the reason.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from flowcore.errors import ConfigurationError
from flowcore.units import parse_data_size, parse_time_period


class FlowDefinitionError(ConfigurationError):
    """A flow definition that cannot be used; ``key`` is the dotted path of the problem.

    ``problems`` holds every problem found (this one alone unless built by ``combine``),
    so a user mends them all in one go; ``key`` and ``reason`` are the first one's.
    """

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"{key}: {reason}")
        self.key = key
        self.reason = reason
        self.problems: list[FlowDefinitionError] = [self]

    @classmethod
    def combine(cls, problems: Sequence[FlowDefinitionError]) -> FlowDefinitionError:
        """One error carrying several problems; its message lists each on its own line."""
        flat = [p for problem in problems for p in problem.problems]
        if len(flat) == 1:
            return flat[0]
        error = cls(flat[0].key, flat[0].reason)
        error.args = (
            f"{len(flat)} problems:\n" + "\n".join(f"  {p.key}: {p.reason}" for p in flat),
        )
        error.problems = flat
        return error


def _period(value: str) -> str:
    parse_time_period(value)
    return value


def _size(value: str) -> str:
    parse_data_size(value)
    return value


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class BackPressureSpec(_Model):
    object_threshold: int | None = Field(default=None, ge=0)
    data_size_threshold: str | None = None

    _sizes = field_validator("data_size_threshold")(lambda v: v if v is None else _size(v))


class ScheduleSpec(_Model):
    strategy: Literal["TIMER_DRIVEN"] = "TIMER_DRIVEN"
    period: str = "0 sec"
    concurrent_tasks: int = Field(default=1, ge=1)
    max_runs: int | None = Field(default=None, ge=0)

    _periods = field_validator("period")(_period)


class ProcessorSpec(_Model):
    type: str
    properties: dict[str, str] = Field(default_factory=dict)
    schedule: ScheduleSpec = Field(default_factory=ScheduleSpec)
    auto_terminate: list[str] = Field(default_factory=list)
    penalty_duration: str = "30 sec"
    yield_duration: str = "1 sec"
    run_state: Literal["RUNNING", "STOPPED"] = "RUNNING"

    _periods = field_validator("penalty_duration", "yield_duration")(_period)

    @field_validator("properties", mode="before")
    @classmethod
    def _stringify(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: _to_text(v) for k, v in value.items()}
        return value


class ControllerServiceSpec(_Model):
    type: str
    properties: dict[str, str] = Field(default_factory=dict)

    @field_validator("properties", mode="before")
    @classmethod
    def _stringify(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: _to_text(v) for k, v in value.items()}
        return value


class InputPortSpec(_Model):
    description: str = ""


class ConnectionSpec(_Model):
    source: str = Field(alias="from")
    destination: str = Field(alias="to")
    relationships: list[str] = Field(default_factory=list)
    name: str | None = None
    prioritizers: list[str] = Field(default_factory=list)
    back_pressure: BackPressureSpec | None = None

    @property
    def identifier(self) -> str:
        if self.name:
            return self.name
        rels = "+".join(self.relationships) if self.relationships else "out"
        return f"{self.source}.{rels}->{self.destination}"


class DefaultsSpec(_Model):
    back_pressure: BackPressureSpec = Field(default_factory=BackPressureSpec)


class FlowSpec(_Model):
    name: str
    parameters: dict[str, str] = Field(default_factory=dict)
    defaults: DefaultsSpec = Field(default_factory=DefaultsSpec)
    input_ports: dict[str, InputPortSpec] = Field(default_factory=dict)
    processors: dict[str, ProcessorSpec] = Field(default_factory=dict)
    controller_services: dict[str, ControllerServiceSpec] = Field(default_factory=dict)
    connections: list[ConnectionSpec] = Field(default_factory=list)

    @field_validator("input_ports", mode="before")
    @classmethod
    def _ports(cls, value: Any) -> Any:
        if isinstance(value, list):
            return {name: {} for name in value}
        return {k: (v or {}) for k, v in value.items()} if isinstance(value, dict) else value

    @model_validator(mode="after")
    def _names_are_unique(self) -> FlowSpec:
        clash = set(self.input_ports) & set(self.processors)
        if clash:
            name = sorted(clash)[0]
            raise ValueError(f"'{name}' names both an input port and a processor")
        return self


class FlowDefinition(_Model):
    version: Literal[1] = 1
    flow: FlowSpec
    simulation: dict[str, Any] | None = None
    """How ``flowcore simulate`` runs the flow (``flowcore.simulation.spec``); ignored
    by ``run``."""
    _folder: Path | None = PrivateAttr(default=None)

    @property
    def folder(self) -> Path | None:
        """The folder of the file the flow was read from (None if not read from one)."""
        return self._folder

    def set_folder(self, folder: Path) -> None:
        """Record the folder the flow was read from (where its relative paths and its
        ``python/extensions`` are)."""
        self._folder = folder.resolve()

    def __eq__(self, other: object) -> bool:
        """The same flow, wherever it was read from."""
        if not isinstance(other, FlowDefinition):
            return NotImplemented
        return self.version == other.version and self.flow == other.flow

    __hash__ = None  # type: ignore[assignment]


_PARAM = re.compile(r"#\{([^}]+)\}")


_OVERRIDES: ContextVar[Mapping[str, str] | None] = ContextVar(
    "flowcore_parameter_overrides", default=None
)


@contextmanager
def parameter_overrides(values: Mapping[str, str]) -> Iterator[None]:
    """Parameter values that take the place of a flow's own in the flows parsed within.

    A name matches a parameter exactly or, as environment variables spell names, in
    upper case with every character other than a letter or a digit as ``_``
    (``INPUT_DIR`` for ``input.dir``); a name no parameter has is a new parameter.
    """
    token = _OVERRIDES.set({**(_OVERRIDES.get() or {}), **values})
    try:
        yield
    finally:
        _OVERRIDES.reset(token)


def parse_flow(data: Any, source: str = "flow") -> FlowDefinition:
    """Validate a loaded YAML document; errors name the offending key.

    ``#{name}`` references are replaced by the flow's parameters, overridden by any
    ``parameter_overrides`` in force.
    """
    if not isinstance(data, dict):
        raise FlowDefinitionError(source, "a flow definition must be a mapping")
    try:
        definition = FlowDefinition.model_validate(data)
    except ValidationError as exc:
        raise FlowDefinitionError.combine(
            [
                FlowDefinitionError(
                    ".".join(str(part) for part in error["loc"]) or source, error["msg"]
                )
                for error in exc.errors()
            ]
        ) from None
    problems = _check_references(definition)
    definition = _substitute_parameters(definition, problems)
    if problems:
        raise FlowDefinitionError.combine(problems)
    return definition


def load_flow(path: Path, *, allow_unsupported: bool = False) -> FlowDefinition:
    """Read and validate a flow file: flowcore YAML or a NiFi flow definition (JSON).

    A NiFi flow with components flowcore lacks is refused, listing each, unless
    ``allow_unsupported`` puts them in place as stopped stubs.
    """
    document = read_flow_document(path, allow_unsupported=allow_unsupported)
    definition = parse_flow(document, str(path))
    definition.set_folder(path.parent)
    return definition


def read_flow_document(path: Path, *, allow_unsupported: bool = False) -> Any:
    """The flow document of a file, not yet validated; NiFi JSON (also gzipped, as NiFi's
    ``flow.json.gz``) is recognised by its content and converted."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise FlowDefinitionError(str(path), "no such file") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise FlowDefinitionError(str(path), f"not valid gzip: {exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FlowDefinitionError(str(path), f"not UTF-8 text: {exc}") from None
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise FlowDefinitionError(str(path), f"not valid JSON: {exc}") from None
        from flowcore.flow.nifi import is_nifi_flow, nifi_document

        if is_nifi_flow(data):
            return nifi_document(data, str(path), allow_unsupported=allow_unsupported)
        return data
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise FlowDefinitionError(str(path), f"not valid YAML: {exc}") from None


def _check_references(definition: FlowDefinition) -> list[FlowDefinitionError]:
    flow = definition.flow
    nodes = set(flow.processors) | set(flow.input_ports)
    seen: set[str] = set()
    problems: list[FlowDefinitionError] = []
    for index, connection in enumerate(flow.connections):
        key = f"flow.connections.{index}"
        if connection.source not in nodes:
            problems.append(
                FlowDefinitionError(
                    f"{key}.from", f"no processor or input port named '{connection.source}'"
                )
            )
        if connection.destination not in flow.processors:
            problems.append(
                FlowDefinitionError(f"{key}.to", f"no processor named '{connection.destination}'")
            )
        if connection.source in flow.processors and not connection.relationships:
            problems.append(
                FlowDefinitionError(
                    f"{key}.relationships", "a connection from a processor needs relationships"
                )
            )
        if connection.source in flow.input_ports and connection.relationships:
            problems.append(
                FlowDefinitionError(
                    f"{key}.relationships", "a connection from an input port takes no relationships"
                )
            )
        if connection.identifier in seen:
            problems.append(
                FlowDefinitionError(
                    f"{key}.name", f"connection name '{connection.identifier}' is used twice"
                )
            )
        seen.add(connection.identifier)
    return problems


def _substitute_parameters(
    definition: FlowDefinition, problems: list[FlowDefinitionError]
) -> FlowDefinition:
    """Replace ``#{name}`` references; each unknown parameter is added to ``problems``."""
    flow = definition.flow
    overrides = _OVERRIDES.get() or {}
    spelled = {_env_spelling(name): value for name, value in overrides.items()}
    for name in list(flow.parameters):
        if name in overrides or _env_spelling(name) in spelled:
            flow.parameters[name] = overrides.get(name, spelled.get(_env_spelling(name), ""))

    def value_of(name: str) -> str | None:
        if name in flow.parameters:
            return flow.parameters[name]
        return overrides.get(name, spelled.get(_env_spelling(name)))

    def substitute(text: str, key: str) -> str:
        def replace(match: re.Match[str]) -> str:
            name = match.group(1).strip()
            value = value_of(name)
            if value is None:
                problems.append(FlowDefinitionError(key, f"unknown parameter '#{{{name}}}'"))
                return match.group(0)
            return value

        return _PARAM.sub(replace, text)

    for proc_name, spec in flow.processors.items():
        spec.properties = {
            k: substitute(v, f"flow.processors.{proc_name}.properties.{k}")
            for k, v in spec.properties.items()
        }
    for svc_name, svc in flow.controller_services.items():
        svc.properties = {
            k: substitute(v, f"flow.controller_services.{svc_name}.properties.{k}")
            for k, v in svc.properties.items()
        }
    return definition


def _env_spelling(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", name).upper()


def _to_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, list | dict):
        return json.dumps(value)
    return str(value)
