"""EL errors: syntax, unknown functions, arity and types at compile time; failures at run time."""

from __future__ import annotations

import re

import pytest

from flowcore.el import compile_expression, evaluate, validate_expression
from flowcore.errors import ExpressionError

UNKNOWN = "Unknown Expression Language function"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # unknown functions, wherever they are
        (
            "${filename:toUpperr()}",
            "Unknown Expression Language function 'toUpperr' at position 11",
        ),
        ("${nowx()}", f"{UNKNOWN} 'nowx' at position 2"),
        ("${a:equals(${b:nope()})}", f"{UNKNOWN} 'nope' at position 15"),
        (
            "x ${a} ${b:jsonPth('$.a')}",
            "Unknown Expression Language function 'jsonPth' at position 11",
        ),
        # syntax
        ("${}", "Unexpected '}' at position 2: expected an attribute name or a function"),
        ("${ }", "Unexpected '}' at position 3: expected an attribute name or a function"),
        ("${a:toUpper(}", "Unexpected '}' at position 12: expected an argument"),
        (
            "${a:toUpper}",
            "Unexpected '}' at position 11: expected '(' after function name 'toUpper'",
        ),
        ("${a:b:c()}", "Unexpected ':' at position 5: expected '(' after function name 'b'"),
        ("${a:}", "Unexpected '}' at position 4: expected a function name after ':'"),
        ("${a:substring(1 2)}", "Unexpected '2' at position 16: expected ',' or ')'"),
        ("${a:substring(1,)}", "Unexpected ')' at position 16: expected an argument"),
        ("${a:equals(b)}", "Unexpected 'b' at position 11: expected an argument"),
        ("${a:equals(1x)}", "Unexpected '1' at position 11: expected an argument"),
        ("${my attr}", "Unexpected 'a' at position 5: expected ':' or '}' (quote attribute names"),
        ("${a b}", "Unexpected 'b' at position 4: expected ':' or '}'"),
        ("${5}", "Attribute name '5' at position 2: names that start with a digit must be quoted"),
        ("${${a}:x(}", "Unexpected '}' at position 9"),
        ("${a:equals('x'}", "Unexpected '}' at position 14: expected ',' or ')'"),
        ("${a.b()}", "Invalid function name 'a.b' at position 2"),
        ("${#{a/b}}", "Invalid parameter reference at position 2"),
        # arity
        (
            "${a:substring()}",
            "Function 'substring' at position 4 takes 1 or 2 arguments but 0 were given",
        ),
        ("${a:substring(1, 2, 3)}", "takes 1 or 2 arguments but 3 were given"),
        ("${a:toUpper(1)}", "Function 'toUpper' at position 4 takes 0 arguments but 1 was given"),
        ("${a:equals()}", "takes 1 argument but 0 were given"),
        ("${a:ifElse('x')}", "takes 2 arguments but 1 was given"),
        ("${a:in()}", "takes at least 1 argument but 0 were given"),
        ("${now(1)}", "Function 'now' at position 2 takes 0 arguments but 1 was given"),
        ("${a:format()}", "takes 1 or 2 arguments but 0 were given"),
        ("${a:toDate('a', 'b', 'c')}", "takes 0 to 2 arguments but 3 were given"),
        # subjects
        ("${a:now()}", "Function 'now' at position 4 does not take a subject"),
        ("${toUpper()}", "Function 'toUpper' at position 2 needs a subject"),
        # types
        (
            "${a:equals('x'):plus(1)}",
            "Cannot implicitly convert Data Type Boolean to Number for the subject of 'plus' "
            "at position 16",
        ),
        ("${now():and(true)}", "Cannot implicitly convert Data Type Date to Boolean"),
        ("${a:substring(true)}", "Cannot implicitly convert Data Type Boolean to Whole Number"),
        ("${a:isNull():format('yyyy')}", "Cannot implicitly convert Data Type Boolean to Date"),
        # literal arguments checked when compiled
        (
            "${a:matches('(')}",
            "Invalid argument to 'matches' at position 4: Invalid regular expression '('",
        ),
        ("${a:replaceAll('[', 'x')}", "Invalid regular expression '['"),
    ],
)
def test_compile_errors(text: str, message: str) -> None:
    with pytest.raises(ExpressionError, match=re.escape(message)):
        compile_expression(text)
    error = validate_expression(text)
    assert error is not None and message in error


def test_unknown_function_suggests_the_closest_name() -> None:
    message = validate_expression("${filename:toUpperr()}")
    assert message == (
        "Unknown Expression Language function 'toUpperr' at position 11 (did you mean 'toUpper'?)"
    )


def test_function_names_are_case_sensitive() -> None:
    assert validate_expression("${a:toupper()}") is not None
    assert validate_expression("${uuid()}") is not None
    assert validate_expression("${UUID()}") is None


@pytest.mark.parametrize(
    ("text", "attributes", "message"),
    [
        ("${a:substring(${b})}", {"a": "abc"}, "substring index is null"),
        ("${a:divide(0)}", {"a": "5"}, "Function 'divide' at position 4 failed: division by zero"),
        ("${a:mod(0)}", {"a": "5"}, "division by zero"),
        ("${a:matches(${p})}", {"a": "x", "p": "("}, "Invalid regular expression '('"),
        ("${a:replaceAll('(x)', '$2')}", {"a": "x"}, "No group 2 in replacement '$2'"),
        ("${a:replaceAll('x', '$')}", {"a": "x"}, "Illegal group reference"),
        ("${a:replaceAll('x', '$${n}')}", {"a": "x"}, "No group named 'n'"),
        ("x${a:append(${b:repeat(0)})}", {"a": "", "b": "b"}, "'repeat' at position 16 failed"),
    ],
)
def test_runtime_errors(text: str, attributes: dict[str, str], message: str) -> None:
    assert validate_expression(text) is None
    with pytest.raises(ExpressionError, match=re.escape(message)):
        evaluate(text, attributes)


def test_runtime_error_names_only_the_failing_function() -> None:
    with pytest.raises(ExpressionError) as info:
        evaluate("${a:append(${b:repeat(0)}):toUpper()}", {"a": "", "b": "b"})
    assert str(info.value).count("failed") == 1
