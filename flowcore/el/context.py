"""What one evaluation sees: attributes, environment, parameters, state and the time.

A context is created per ``Expression.evaluate`` call, so compiled expressions stay
immutable and can be shared between threads. ``EvaluationFailure`` is what function
implementations raise; the compiler turns it into an ``ExpressionError`` naming the
function and its position. ``current`` is the value a multi-attribute expression
(``anyAttribute(...)`` and the like) is iterating over.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from flowcore.el.values import Value
from flowcore.errors import ExpressionError

__all__ = ["EvalContext", "EvaluationFailure", "LocatedExpressionError"]


class EvaluationFailure(Exception):
    """A function could not compute its result (bad index, division by zero, ...)."""


class LocatedExpressionError(ExpressionError):
    """An evaluation error that already names the function and position that failed."""


class EvalContext:
    __slots__ = ("_now_ms", "attributes", "current", "env", "parameters", "state")

    def __init__(
        self,
        attributes: Mapping[str, str],
        env: Mapping[str, str],
        parameters: Mapping[str, str] | None,
        now_ms: int | None,
        state: Mapping[str, str] | None = None,
    ) -> None:
        self.attributes = attributes
        self.env = env
        self.parameters = parameters
        self._now_ms = now_ms
        self.state = state
        self.current: Value = None

    def lookup(self, name: str) -> str | None:
        """An attribute's value, else the environment variable's, else None."""
        value = self.attributes.get(name)
        if value is None:
            value = self.env.get(name)
        return value

    def parameter(self, name: str, pos: int) -> str:
        value = None if self.parameters is None else self.parameters.get(name)
        if value is None:
            raise LocatedExpressionError(
                f"Parameter '{name}' referenced at position {pos} is not defined"
            )
        return value

    def now_ms(self) -> int:
        """The injected time, else the wall clock read once per evaluation."""
        if self._now_ms is None:
            self._now_ms = time.time_ns() // 1_000_000
        return self._now_ms
