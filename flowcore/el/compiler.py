"""Turns parsed EL nodes into closures, checking functions and types on the way.

Compilation is where NiFi's validation happens: unknown functions, wrong argument counts,
a subject given to a subjectless function (or missing from one that needs it), impossible
conversions such as a Boolean used as a number, and invalid literal regexes, date patterns
and time zones all raise ``ExpressionError`` here, so ``evaluate`` only runs code that was
already checked. Each node becomes one closure over its children; there is no interpreter
loop at evaluation time.

A chain whose subject is a multi-attribute function (``${anyAttribute('a', 'b'):isEmpty()}``)
is compiled once and run per selected value: a Boolean chain is reduced with any/all, as
NiFi does, and a chain ending in ``join`` or ``count`` is folded value by value.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator

from flowcore.el import functions_more  # noqa: F401  (registers the remaining functions)
from flowcore.el.context import EvalContext, EvaluationFailure, LocatedExpressionError
from flowcore.el.functions import FUNCTIONS, NOT_LITERAL, Evaluator, FunctionSpec
from flowcore.el.nodes import (
    AttributeRef,
    DynamicAttribute,
    Embedded,
    FunctionCall,
    Literal,
    MultiAttribute,
    Node,
    ParameterRef,
    Template,
    Text,
)
from flowcore.el.regex import java_regex, java_split
from flowcore.el.values import Kind, Value, convertible, render, to_str
from flowcore.errors import ExpressionError

_REDUCERS = frozenset({"join", "count"})

__all__ = ["compile_node", "references_attributes"]


def children(node: Node) -> Iterator[Node]:
    """The nodes directly inside ``node`` (subject, arguments, template expressions)."""
    if isinstance(node, FunctionCall):
        if node.subject is not None:
            yield node.subject
        yield from node.args
    elif isinstance(node, MultiAttribute):
        yield from node.args
    elif isinstance(node, DynamicAttribute):
        yield node.name
    elif isinstance(node, Template):
        for part in node.parts:
            if isinstance(part, Embedded):
                yield part.node


def references_attributes(node: Node) -> bool:
    """Whether the node reads a FlowFile attribute (or state) anywhere."""
    if isinstance(node, AttributeRef | DynamicAttribute | MultiAttribute):
        return True
    if isinstance(node, FunctionCall) and node.name in ("getStateValue", "evaluateELString"):
        return True
    return any(references_attributes(child) for child in children(node))


def _root(node: Node) -> Node:
    while isinstance(node, FunctionCall) and node.subject is not None:
        node = node.subject
    return node


def compile_node(node: Node) -> tuple[Evaluator, Kind]:
    """A closure computing ``node``'s value, and the data type NiFi would give it."""
    if isinstance(node, FunctionCall | MultiAttribute):
        root = _root(node)
        if isinstance(root, MultiAttribute):
            return _compile_multi(node, root)
    return _compile_single(node)


def _compile_single(node: Node) -> tuple[Evaluator, Kind]:
    if isinstance(node, AttributeRef):
        name = node.name

        def attribute(ctx: EvalContext) -> Value:
            value = ctx.attributes.get(name)
            if value is None:
                value = ctx.env.get(name)
            return value

        return attribute, Kind.STRING
    if isinstance(node, Literal):
        constant = node.value
        return (lambda _ctx: constant), node.kind
    if isinstance(node, ParameterRef):
        parameter_name, pos = node.name, node.pos
        return (lambda ctx: ctx.parameter(parameter_name, pos)), Kind.STRING
    if isinstance(node, DynamicAttribute):
        name_of = compile_node(node.name)[0]

        def dynamic(ctx: EvalContext) -> Value:
            name = to_str(name_of(ctx))
            return None if name is None else ctx.lookup(name)

        return dynamic, Kind.STRING
    if isinstance(node, Template):
        return _compile_template(node), Kind.STRING
    if isinstance(node, MultiAttribute):
        return (lambda ctx: ctx.current), Kind.STRING
    return _compile_call(node)


def _compile_template(node: Template) -> Evaluator:
    pieces: list[str | Evaluator] = []
    for part in node.parts:
        if isinstance(part, Text):
            pieces.append(part.value)
        elif isinstance(part, Embedded):  # quoted strings are parsed without #{...}
            pieces.append(compile_node(part.node)[0])
    fixed = tuple(pieces)

    def template(ctx: EvalContext) -> Value:
        return "".join([piece if isinstance(piece, str) else render(piece(ctx)) for piece in fixed])

    return template


_NOT_REDUCED = (
    "Cannot evaluate expression because it attempts to reference multiple attributes but "
    "does not use a reducing function"
)


def _multi_values(root: MultiAttribute) -> Callable[[EvalContext], list[Value]]:
    """The values a multi-attribute subject selects (at least one, possibly null)."""
    function, pos = root.function, root.pos
    if not root.args:
        raise ExpressionError(f"Function '{function}' at position {pos} needs at least 1 argument")
    args = [compile_node(arg)[0] for arg in root.args]
    if function.endswith("DelineatedValue") or function.endswith("DelineatedValues"):
        if len(args) != 2:
            raise ExpressionError(
                f"Function '{function}' at position {pos} takes 2 arguments "
                "(the delimited text and the delimiter regular expression)"
            )
        subject_of, delimiter_of = args
        delimiter = root.args[1]
        if isinstance(delimiter, Literal) and isinstance(delimiter.value, str):
            java_regex(delimiter.value)

        def delineated(ctx: EvalContext) -> list[Value]:
            text = to_str(subject_of(ctx))
            if text is None:
                return [None]
            separator = to_str(delimiter_of(ctx))
            if separator is None:
                return [None]
            pieces: list[Value] = list(java_split(java_regex(separator), text))
            return pieces or [None]

        return delineated
    if function.endswith("MatchingAttribute") or function.endswith("MatchingAttributes"):
        for arg in root.args:
            if isinstance(arg, Literal) and isinstance(arg.value, str):
                java_regex(arg.value)

        def matching(ctx: EvalContext) -> list[Value]:
            names: list[str] = []
            for arg in args:
                regex = to_str(arg(ctx))
                if regex is None:
                    continue
                pattern = java_regex(regex)
                names += [name for name in ctx.attributes if pattern.fullmatch(name)]
            return [ctx.attributes.get(name) for name in names] or [None]

        return matching

    def named(ctx: EvalContext) -> list[Value]:
        values: list[Value] = []
        for arg in args:
            name = to_str(arg(ctx))
            values.append(None if name is None else ctx.lookup(name))
        return values

    return named


def _compile_multi(node: Node, root: MultiAttribute) -> tuple[Evaluator, Kind]:
    values_of = _multi_values(root)
    if isinstance(node, FunctionCall) and node.name in _REDUCERS and node.subject is not None:
        if not root.function.startswith("all"):
            raise ExpressionError(_NOT_REDUCED)
        _check_shape(node, FUNCTIONS[node.name])
        item_of = _compile_single(node.subject)[0]
        if node.name == "count":

            def count(ctx: EvalContext) -> Value:
                saved, total = ctx.current, 0
                try:
                    for value in values_of(ctx):
                        ctx.current = value
                        item = item_of(ctx)
                        if item is not None and item is not False:
                            total += 1
                finally:
                    ctx.current = saved
                return total

            return count, Kind.WHOLE
        delimiter_of = compile_node(node.args[0])[0]

        def join(ctx: EvalContext) -> Value:
            saved = ctx.current
            out: list[str] = []
            try:
                for index, value in enumerate(values_of(ctx)):
                    ctx.current = value
                    item = to_str(item_of(ctx))
                    if index:
                        delimiter = to_str(delimiter_of(ctx))
                        out.append("null" if delimiter is None else delimiter)  # StringBuilder
                    out.append(item or "")
            finally:
                ctx.current = saved
            return "".join(out)

        return join, Kind.STRING
    logic, kind = _compile_single(node)
    if kind is not Kind.BOOLEAN:
        raise ExpressionError(_NOT_REDUCED)
    want_any = root.function.startswith("any")

    def reduce(ctx: EvalContext) -> Value:
        saved = ctx.current
        try:
            for index, value in enumerate(values_of(ctx)):
                ctx.current = value
                result = logic(ctx)
                if result is None:
                    if index == 0:
                        return False
                    continue
                if result is want_any:
                    return want_any
        finally:
            ctx.current = saved
        return not want_any

    return reduce, Kind.BOOLEAN


def _unknown(name: str, pos: int) -> ExpressionError:
    message = f"Unknown Expression Language function '{name}' at position {pos}"
    close = difflib.get_close_matches(name, FUNCTIONS, n=1)
    if close:
        message += f" (did you mean '{close[0]}'?)"
    return ExpressionError(message)


def _kind_error(source: Kind, target: Kind, what: str, name: str, pos: int) -> ExpressionError:
    return ExpressionError(
        f"Cannot implicitly convert Data Type {source.value} to {target.value} for the {what} "
        f"of '{name}' at position {pos}"
    )


def _check_shape(node: FunctionCall, spec: FunctionSpec) -> None:
    name, pos = node.name, node.pos
    if spec.subject is None and node.subject is not None and not spec.optional_subject:
        raise ExpressionError(
            f"Function '{name}' at position {pos} does not take a subject; "
            f"use it as ${{{name}(...)}}"
        )
    if spec.subject is not None and node.subject is None and not spec.optional_subject:
        raise ExpressionError(
            f"Function '{name}' at position {pos} needs a subject, as in ${{attribute:{name}(...)}}"
        )
    if not spec.accepts(len(node.args)):
        given = len(node.args)
        raise ExpressionError(
            f"Function '{name}' at position {pos} takes {spec.arity()} but "
            f"{given} {'was' if given == 1 else 'were'} given"
        )


def _compile_call(node: FunctionCall) -> tuple[Evaluator, Kind]:
    name, pos = node.name, node.pos
    spec = FUNCTIONS.get(name)
    if spec is None:
        raise _unknown(name, pos)
    _check_shape(node, spec)
    subject: Evaluator | None = None
    if node.subject is not None and spec.subject is not None:
        if isinstance(node.subject, FunctionCall) and node.subject.name in _REDUCERS:
            raise ExpressionError(
                f"Expression attempts to call function '{name}' on the result of "
                f"'{node.subject.name}'. This is not allowed. Instead, use "
                f'"${{literal( ${{<embedded expression>}} ):{name}(...)}}"'
            )
        subject, subject_kind = _compile_single(node.subject)
        if spec.exact_subject and subject_kind is not spec.subject:
            raise ExpressionError(
                f"Function '{name}' at position {pos} needs a subject of Data Type "
                f"{spec.subject.value}, not {subject_kind.value}"
            )
        if not convertible(subject_kind, spec.subject):
            raise _kind_error(subject_kind, spec.subject, "subject", name, pos)
    args: list[Evaluator] = []
    for index, arg in enumerate(node.args):
        evaluator, kind = compile_node(arg)
        target = spec.param_kind(index)
        if not convertible(kind, target):
            raise _kind_error(kind, target, f"argument {index + 1}", name, pos)
        args.append(evaluator)
    if spec.check is not None:
        literals = tuple(
            arg.value if isinstance(arg, Literal) else NOT_LITERAL for arg in node.args
        )
        try:
            spec.check(literals)
        except ExpressionError as exc:
            raise ExpressionError(
                f"Invalid argument to '{name}' at position {pos}: {exc}"
            ) from None
    returns = spec.returns
    if name == "literal" and node.args:
        returns = compile_node(node.args[0])[1]
    return _call(spec, subject, tuple(args), pos), returns


def _call(
    spec: FunctionSpec, subject: Evaluator | None, args: tuple[Evaluator, ...], pos: int
) -> Evaluator:
    impl, name = spec.impl, spec.name
    if subject is None and spec.subjectless_impl is not None:
        impl = spec.subjectless_impl

    def fail(exc: Exception) -> LocatedExpressionError:
        return LocatedExpressionError(f"Function '{name}' at position {pos} failed: {exc}")

    if subject is None:

        def call_subjectless(ctx: EvalContext) -> Value:
            try:
                return impl(ctx, None, args)
            except LocatedExpressionError:
                raise
            except (EvaluationFailure, ExpressionError, ArithmeticError, ValueError) as exc:
                raise fail(exc) from exc

        return call_subjectless

    evaluate_subject = subject

    def call(ctx: EvalContext) -> Value:
        value = evaluate_subject(ctx)
        try:
            return impl(ctx, value, args)
        except LocatedExpressionError:
            raise
        except (EvaluationFailure, ExpressionError, ArithmeticError, ValueError) as exc:
            raise fail(exc) from exc

    return call
