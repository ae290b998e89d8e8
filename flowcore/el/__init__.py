"""NiFi Expression Language: ``${attr:fn(args)}`` texts evaluated against FlowFile attributes.

Compile once with ``compile_expression`` (cached) and call ``Expression.evaluate`` per
FlowFile; ``evaluate`` is the one-shot convenience and ``validate_expression`` returns the
error message a property validator needs. All of NiFi 2's functions are supported; see
docs/expression-language.md for the list and the few deviations. Unknown functions and syntax errors raise
``flowcore.errors.ExpressionError`` at compile time.
"""

from flowcore.el.expression import Expression, compile_expression, evaluate, validate_expression

__all__ = ["Expression", "compile_expression", "evaluate", "validate_expression"]
