"""NiFi Expression Language: ``${attr:fn(args)}`` texts evaluated against FlowFile attributes.

Compile once with ``compile_expression`` (cached) and call ``Expression.evaluate`` per
FlowFile; ``evaluate`` is the one-shot convenience and ``validate_expression`` returns the
error message a property validator needs. Unknown functions and syntax errors raise
``flowcore.errors.ExpressionError`` at compile time. All of NiFi 2's functions are
supported; docs/expression-language.md lists them and the few deviations.
"""

from flowcore.el.expression import Expression, compile_expression, evaluate, validate_expression

__all__ = ["Expression", "compile_expression", "evaluate", "validate_expression"]
