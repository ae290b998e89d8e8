"""Compiled EL texts: the public ``Expression`` and its cached constructors.

A text is parsed and compiled once into a tuple of parts, each either a constant string or
a closure; ``evaluate`` joins them. Two shapes skip even that: a text with no expression
(``is_literal``) returns its unescaped string, and a lone ``${attr}`` does one attribute
lookup with the environment as fallback, because UpdateAttribute and most properties
evaluate exactly those on every FlowFile.

Parameters (``#{name}``) are bound at evaluation time. Outside ``${...}`` a parameter's
value is itself EL text and is evaluated in place (NiFi substitutes parameters before EL);
inside ``${...}`` a parameter is a plain string value, as in ``${#{p}:toUpper()}``.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping

from flowcore.el.compiler import children, compile_node, references_attributes
from flowcore.el.context import EvalContext
from flowcore.el.nodes import (
    AttributeRef,
    Embedded,
    Node,
    ParameterRef,
    ParameterText,
    Part,
    Text,
)
from flowcore.el.parser import parse_template
from flowcore.el.values import Kind, render
from flowcore.errors import ExpressionError

__all__ = [
    "Expression",
    "compile_expression",
    "compile_template",
    "evaluate",
    "validate_expression",
]

_EMPTY: Mapping[str, str] = {}
Renderer = Callable[[EvalContext], str]


def _embedded_renderer(part: Embedded) -> tuple[Renderer, Kind]:
    node = part.node
    if isinstance(node, AttributeRef):
        name = node.name

        def attribute(ctx: EvalContext) -> str:
            value = ctx.attributes.get(name)
            if value is None:
                value = ctx.env.get(name)
            return "" if value is None else value

        return attribute, Kind.STRING
    evaluator, kind = compile_node(node)
    return (lambda ctx: render(evaluator(ctx))), kind


def _parameter_renderer(part: ParameterText) -> Renderer:
    name, pos = part.name, part.pos

    def parameter(ctx: EvalContext) -> str:
        value = ctx.parameter(name, pos)
        return _compile(value, False)._render(ctx)

    return parameter


class Expression:
    """A compiled EL text; immutable, thread-safe and reusable."""

    __slots__ = (
        "_kinds",
        "_literal",
        "_parameters",
        "_parts",
        "_references",
        "_single_attribute",
        "text",
    )

    text: str
    _parts: tuple[str | Renderer, ...]
    _literal: str | None
    _single_attribute: str | None
    _references: bool
    _parameters: frozenset[str]
    _kinds: tuple[Kind, ...]

    def __init__(self, text: str, *, parameters: bool = True) -> None:
        """Compile ``text``; raises ExpressionError. ``parameters=False`` keeps ``#{`` literal."""
        parsed: list[Part] = parse_template(text, parameters=parameters)
        parts: list[str | Renderer] = []
        kinds: list[Kind] = []
        for part in parsed:
            if isinstance(part, Text):
                parts.append(part.value)
            elif isinstance(part, Embedded):
                renderer, kind = _embedded_renderer(part)
                parts.append(renderer)
                kinds.append(kind)
            else:
                parts.append(_parameter_renderer(part))
        literal = None
        if all(isinstance(part, Text) for part in parsed):
            literal = "".join(part.value for part in parsed if isinstance(part, Text))
        single = None
        if len(parsed) == 1 and isinstance(parsed[0], Embedded):
            node = parsed[0].node
            if isinstance(node, AttributeRef):
                single = node.name
        setattr_ = object.__setattr__
        setattr_(self, "text", text)
        setattr_(self, "_parts", tuple(parts))
        setattr_(self, "_kinds", tuple(kinds))
        setattr_(self, "_literal", literal)
        setattr_(self, "_single_attribute", single)
        setattr_(
            self,
            "_references",
            any(
                isinstance(part, ParameterText)
                or (isinstance(part, Embedded) and references_attributes(part.node))
                for part in parsed
            ),
        )
        setattr_(
            self,
            "_parameters",
            frozenset(part.name for part in parsed if isinstance(part, ParameterText))
            | _inner_parameters(parsed),
        )

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Expression is immutable")

    def __repr__(self) -> str:
        return f"Expression({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Expression) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    @property
    def is_literal(self) -> bool:
        """True when the text has no ``${...}`` and no ``#{...}`` (after unescaping)."""
        return self._literal is not None

    @property
    def references_attributes(self) -> bool:
        """True when the result may depend on FlowFile attributes.

        A parameter outside ``${...}`` counts, since its value may be EL that reads them.
        """
        return self._references

    @property
    def expression_types(self) -> tuple[str, ...]:
        """NiFi's result type (``BOOLEAN``, ``STRING``...) of each ``${...}``, in order."""
        return tuple(_RESULT_TYPES[kind] for kind in self._kinds)

    @property
    def parameter_names(self) -> frozenset[str]:
        """The names of the parameters this text references."""
        return self._parameters

    def evaluate(
        self,
        attributes: Mapping[str, str] | None = None,
        *,
        env: Mapping[str, str] | None = None,
        parameters: Mapping[str, str] | None = None,
        now_ms: int | None = None,
        state: Mapping[str, str] | None = None,
    ) -> str:
        """The text with every expression replaced by its value.

        Names are looked up in ``attributes``, then in ``env`` (default ``os.environ``);
        missing names render as the empty string. ``now_ms`` fixes the time ``now()``
        reads (epoch milliseconds); ``state`` is what ``getStateValue`` reads (the
        component's state; none: null). Raises ExpressionError when a function fails at
        run time (for example an index out of range) or a parameter is not defined.
        """
        literal = self._literal
        if literal is not None:
            return literal
        name = self._single_attribute
        if name is not None:
            if attributes is not None:
                value = attributes.get(name)
                if value is not None:
                    return value
            value = (os.environ if env is None else env).get(name)
            return "" if value is None else value
        ctx = EvalContext(
            _EMPTY if attributes is None else attributes,
            os.environ if env is None else env,
            parameters,
            now_ms,
            state,
        )
        return self._render(ctx)

    def render(self, ctx: EvalContext) -> str:
        """Evaluate against an existing context (used by ``evaluateELString``)."""
        return self._render(ctx)

    def _render(self, ctx: EvalContext) -> str:
        return "".join([part if isinstance(part, str) else part(ctx) for part in self._parts])


def _inner_parameters(parsed: list[Part]) -> frozenset[str]:
    """Parameters referenced inside ``${...}`` (found by walking the syntax trees)."""
    names: set[str] = set()

    def walk(node: Node) -> None:
        if isinstance(node, ParameterRef):
            names.add(node.name)
        for child in children(node):
            walk(child)

    for part in parsed:
        if isinstance(part, Embedded):
            walk(part.node)
    return frozenset(names)


@functools.lru_cache(maxsize=4096)
def _compile(text: str, parameters: bool) -> Expression:
    return Expression(text, parameters=parameters)


def compile_template(text: str, *, parameters: bool = True) -> Expression:
    """The compiled (and cached) form of ``text``; ``parameters=False`` keeps ``#{`` literal."""
    return _compile(text, parameters)


def compile_expression(text: str) -> Expression:
    """The compiled (and cached) form of ``text``; raises ExpressionError if it is invalid."""
    return _compile(text, True)


def validate_expression(
    text: str, *, single: bool = False, result_type: str | None = None
) -> str | None:
    """None when ``text`` compiles, else the error message.

    ``single`` demands what NiFi demands of a property that must be one expression (a
    RouteOnAttribute rule): exactly one ``${...}``, nothing around it, and, when
    ``result_type`` is given ("BOOLEAN"...), that type. A value holding a ``#{parameter}``
    outside an expression is only compiled, since the parameter's value is not known here.
    """
    try:
        expression = compile_expression(text)
    except ExpressionError as exc:
        return str(exc)
    if not single or expression.parameter_names - _inner_parameter_names(expression):
        return None
    types = expression.expression_types
    if not types:
        start = text.find("${")
        if start >= 0:
            return f"No Expressions found: the '${{' at position {start} is never closed"
        return "No Expressions found"
    if len(types) > 1:
        return "Found multiple Expressions but expected only 1"
    if not (text.startswith("${") and text.endswith("}")):
        return "Found characters outside of Expression"
    if result_type is not None and types[0] != result_type:
        return (
            f"Expected Attribute Query to return type {result_type} but query returns type "
            f"{types[0]}"
        )
    return None


def _inner_parameter_names(expression: Expression) -> frozenset[str]:
    parsed = parse_template(expression.text)
    return _inner_parameters(parsed)


_RESULT_TYPES = {
    Kind.STRING: "STRING",
    Kind.BOOLEAN: "BOOLEAN",
    Kind.WHOLE: "WHOLE_NUMBER",
    Kind.DECIMAL: "DECIMAL",
    Kind.NUMBER: "NUMBER",
    Kind.DATE: "DATE",
    Kind.INSTANT: "INSTANT",
    Kind.ANY: "STRING",
}


def evaluate(
    text: str,
    attributes: Mapping[str, str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    parameters: Mapping[str, str] | None = None,
    now_ms: int | None = None,
    state: Mapping[str, str] | None = None,
) -> str:
    """Compile (cached) and evaluate ``text``; keywords as for ``Expression.evaluate``."""
    return compile_expression(text).evaluate(
        attributes, env=env, parameters=parameters, now_ms=now_ms, state=state
    )
