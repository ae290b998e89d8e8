"""The merge source's configuration, parsed and checked once (Sesam's property names).

``parse_config`` turns the processor's property texts into a ``MergeConfig`` or raises
``ConfigError`` naming the property at fault, so the processor can report NiFi-style
validation results and the bulk path can be called with the same texts.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from processors.entities.expressions import Expression, ExpressionError, compile_expression

Identity = Literal["composite", "first"]
Strategy = Literal["default", "compact", "list"]
IDENTITIES: tuple[Identity, ...] = ("composite", "first")
STRATEGIES: tuple[Strategy, ...] = ("default", "compact", "list")
SUPPORTED_VERSION = 2
# A dataset's name is part of a keyed-state key (the "seen" marker), whose limit is 400.
MAX_DATASET_NAME_BYTES = 255
VERSION_MESSAGE = (
    "only version 2 of the merge source is supported (Sesam's version 1 is deprecated "
    "and behaves differently)"
)


class ConfigError(ValueError):
    """An invalid property value: ``prop`` is the property's name, ``str()`` the reason."""

    def __init__(self, prop: str, value: str, reason: str) -> None:
        super().__init__(reason)
        self.prop = prop
        self.value = value


@dataclass(frozen=True, slots=True)
class Dataset:
    """A dataset of the ``datasets`` list; ``offset`` is its index there."""

    name: str
    alias: str
    offset: int


@dataclass(frozen=True, slots=True)
class Rule:
    """One ``["eq", left, right]`` rule (``equality_sets`` are expanded into these)."""

    left: Expression
    right: Expression


@dataclass(frozen=True, slots=True)
class MergeConfig:
    """Everything the merge needs, validated."""

    datasets: tuple[Dataset, ...]
    rules: tuple[Rule, ...] = ()
    identity: Identity = "composite"
    strategy: Strategy = "default"
    max_merged: int = 50_000
    include_internal_properties: bool = False
    if_source_empty: Literal["accept", "fail"] = "accept"
    initial_datasets: tuple[str, ...] = ()
    ignore_non_existent_datasets: bool = True
    by_name: dict[str, Dataset] = field(init=False, repr=False, compare=False)
    partners: dict[bytes, tuple[bytes, ...]] = field(init=False, repr=False, compare=False)
    """Expression key -> the keys of the expressions it is compared with by some rule."""
    by_alias: dict[str, tuple[Expression, ...]] = field(init=False, repr=False, compare=False)
    """Alias -> the distinct expressions over it (what its entities are indexed under)."""
    sides: dict[bytes, tuple[tuple[int, int], ...]] = field(init=False, repr=False, compare=False)
    """Expression key -> the (rule number, side: 0 left, 1 right) places it has in rules."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {d.name: d for d in self.datasets})
        partners: dict[bytes, dict[bytes, None]] = {}
        by_alias: dict[str, dict[bytes, Expression]] = {}
        sides: dict[bytes, list[tuple[int, int]]] = {}
        for number, rule in enumerate(self.rules):
            sides.setdefault(rule.left.key, []).append((number, 0))
            sides.setdefault(rule.right.key, []).append((number, 1))
            partners.setdefault(rule.left.key, {})[rule.right.key] = None
            partners.setdefault(rule.right.key, {})[rule.left.key] = None
            for side in (rule.left, rule.right):
                by_alias.setdefault(side.alias, {})[side.key] = side
        object.__setattr__(self, "partners", {k: tuple(v) for k, v in partners.items()})
        object.__setattr__(self, "by_alias", {a: tuple(e.values()) for a, e in by_alias.items()})
        object.__setattr__(self, "sides", {k: tuple(v) for k, v in sides.items()})

    def offset(self, dataset: str) -> int:
        """A dataset's offset; datasets no longer configured sort after all others."""
        found = self.by_name.get(dataset)
        return found.offset if found is not None else len(self.datasets)

    def expressions_for(self, dataset: str) -> tuple[Expression, ...]:
        found = self.by_name.get(dataset)
        return self.by_alias.get(found.alias, ()) if found is not None else ()

    def populated(self, seen: set[str]) -> bool:
        """Sesam's "populated": every initial dataset (by default all) has delivered."""
        names = {d.name for d in self.datasets}
        wanted = self.initial_datasets or tuple(names)
        for name in wanted:
            if name not in names:
                if self.ignore_non_existent_datasets:
                    continue
                return False
            if name not in seen:
                return False
        return True


# -- parsing ---------------------------------------------------------------------------------


def _json(prop: str, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(prop, text, f"{prop} is not valid JSON: {exc}") from None


def parse_string_list(prop: str, text: str) -> list[str]:
    """A JSON array of strings, or plain items separated by commas or new lines."""
    stripped = text.strip()
    if not stripped:
        return []
    if stripped.startswith("["):
        items = _json(prop, stripped)
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise ConfigError(prop, text, f"{prop} must be a JSON array of strings")
        return [i.strip() for i in items]
    return [i.strip() for i in stripped.replace("\n", ",").split(",") if i.strip()]


def parse_datasets(prop: str, text: str) -> tuple[Dataset, ...]:
    items = parse_string_list(prop, text)
    if not items:
        raise ConfigError(prop, text, f'{prop} must list at least one "<dataset> <alias>"')
    datasets: list[Dataset] = []
    for item in items:
        parts = item.split()
        if len(parts) != 2:
            msg = f"{prop} item '{item}' is not of the form \"<dataset> <alias>\""
            raise ConfigError(prop, text, msg)
        name, alias = parts
        if any(d.name == name for d in datasets):
            raise ConfigError(prop, text, f"{prop} lists the dataset '{name}' more than once")
        if any(d.alias == alias for d in datasets):
            raise ConfigError(prop, text, f"{prop} uses the alias '{alias}' more than once")
        if "\x00" in name:
            raise ConfigError(prop, text, f"{prop}: a dataset name cannot contain NUL")
        if len(name.encode("utf-8")) > MAX_DATASET_NAME_BYTES:
            msg = (
                f"{prop}: the dataset name '{name[:40]}...' is over {MAX_DATASET_NAME_BYTES} bytes"
            )
            raise ConfigError(prop, text, msg)
        datasets.append(Dataset(name, alias, len(datasets)))
    return tuple(datasets)


def _compile(prop: str, text: str, spec: Any, aliases: Sequence[str]) -> Expression:
    try:
        return compile_expression(spec, aliases)
    except ExpressionError as exc:
        raise ConfigError(prop, text, f"{prop}: {exc}") from None


def parse_equality(prop: str, text: str, aliases: Sequence[str]) -> list[Rule]:
    """``[["eq", left, right], ...]``."""
    if not text.strip():
        return []
    rules = _json(prop, text)
    if not isinstance(rules, list):
        raise ConfigError(prop, text, f'{prop} must be a JSON array of ["eq", left, right]')
    parsed: list[Rule] = []
    for rule in rules:
        if not (isinstance(rule, list) and len(rule) == 3 and rule[0] == "eq"):
            msg = f'{prop}: {json.dumps(rule)} is not an ["eq", left, right] rule'
            raise ConfigError(prop, text, msg)
        parsed.append(
            Rule(_compile(prop, text, rule[1], aliases), _compile(prop, text, rule[2], aliases))
        )
    return parsed


def parse_equality_sets(prop: str, text: str, aliases: Sequence[str]) -> list[Rule]:
    """``[[e1, e2, ..., en], ...]`` expanded into ``eq(e1,e2), ..., eq(e(n-1),en)``."""
    if not text.strip():
        return []
    sets = _json(prop, text)
    if not isinstance(sets, list) or not all(isinstance(s, list) and s for s in sets):
        raise ConfigError(prop, text, f"{prop} must be a JSON array of non-empty arrays")
    rules: list[Rule] = []
    for each in sets:
        compiled = [_compile(prop, text, spec, aliases) for spec in each]
        rules.extend(Rule(a, b) for a, b in itertools.pairwise(compiled))
    return rules


def parse_config(
    properties: Mapping[str, str], labels: Mapping[str, str] | None = None
) -> MergeConfig:
    """A config from property texts by Sesam name (``datasets``, ``equality``, ...).

    ``labels`` gives the name to use in messages for each property (the processor's
    display names); a ``ConfigError``'s ``prop`` is that name.
    """
    names = dict(labels or {})

    def label(name: str) -> str:
        return names.get(name, name)

    def get(name: str, default: str = "") -> str:
        value = properties.get(name)
        return default if value is None else value

    version = get("version", "2").strip()
    if version != str(SUPPORTED_VERSION):
        raise ConfigError(label("version"), version, VERSION_MESSAGE)
    datasets = parse_datasets(label("datasets"), get("datasets"))
    aliases = [d.alias for d in datasets]
    rules = parse_equality(label("equality"), get("equality"), aliases)
    rules += parse_equality_sets(label("equality_sets"), get("equality_sets"), aliases)
    identity = get("identity", "composite").strip()
    if identity not in IDENTITIES:
        raise ConfigError(label("identity"), identity, "identity must be 'composite' or 'first'")
    strategy = get("strategy", "default").strip()
    if strategy not in STRATEGIES:
        msg = "strategy must be 'default', 'compact' or 'list'"
        raise ConfigError(label("strategy"), strategy, msg)
    max_text = get("max_merged", "50000").strip()
    try:
        max_merged = int(max_text)
    except ValueError:
        msg = f"{label('max_merged')} is not a valid integer"
        raise ConfigError(label("max_merged"), max_text, msg) from None
    if max_merged < 1:
        msg = f"{label('max_merged')} must be at least 1"
        raise ConfigError(label("max_merged"), max_text, msg)
    if_empty = get("if_source_empty", "accept").strip()
    if if_empty not in ("accept", "fail"):
        msg = "if_source_empty must be 'accept' or 'fail'"
        raise ConfigError(label("if_source_empty"), if_empty, msg)
    initial = tuple(parse_string_list(label("initial_datasets"), get("initial_datasets")))
    return MergeConfig(
        datasets=datasets,
        rules=tuple(rules),
        identity=_IDENTITY[identity],
        strategy=_STRATEGY[strategy],
        max_merged=max_merged,
        include_internal_properties=_bool(get("include_internal_properties", "false")),
        if_source_empty="fail" if if_empty == "fail" else "accept",
        initial_datasets=initial,
        ignore_non_existent_datasets=_bool(get("ignore_non_existent_datasets", "true")),
    )


_IDENTITY: dict[str, Identity] = {i: i for i in IDENTITIES}
_STRATEGY: dict[str, Strategy] = {s: s for s in STRATEGIES}


def _bool(text: str) -> bool:
    return text.strip().lower() == "true"
