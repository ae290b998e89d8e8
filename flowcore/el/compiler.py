"""Turns parsed EL nodes into closures, checking functions and types on the way.

Compilation is where NiFi's validation happens: unknown functions, wrong argument counts,
a subject given to a subjectless function (or missing from one that needs it), impossible
conversions such as a Boolean used as a number, and invalid literal regexes, date patterns
and time zones all raise ``ExpressionError`` here, so ``evaluate`` only runs code that was
already checked. Each node becomes one closure over its children; there is no interpreter
loop at evaluation time.
"""

from __future__ import annotations

import difflib

from flowcore.el.context import EvalContext, EvaluationFailure, LocatedExpressionError
from flowcore.el.functions import FUNCTIONS, NOT_LITERAL, Evaluator, FunctionSpec
from flowcore.el.nodes import AttributeRef, FunctionCall, Literal, Node, ParameterRef
from flowcore.el.values import Kind, Value, convertible
from flowcore.errors import ExpressionError

__all__ = ["compile_node", "references_attributes"]


def references_attributes(node: Node) -> bool:
    """Whether the node reads a FlowFile attribute anywhere."""
    if isinstance(node, AttributeRef):
        return True
    if isinstance(node, FunctionCall):
        if node.subject is not None and references_attributes(node.subject):
            return True
        return any(references_attributes(arg) for arg in node.args)
    return False


def compile_node(node: Node) -> tuple[Evaluator, Kind]:
    """A closure computing ``node``'s value, and the data type NiFi would give it."""
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
    return _compile_call(node)


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
    if spec.subject is None and node.subject is not None:
        raise ExpressionError(
            f"Function '{name}' at position {pos} does not take a subject; "
            f"use it as ${{{name}(...)}}"
        )
    if spec.subject is not None and node.subject is None:
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
        subject, subject_kind = compile_node(node.subject)
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
