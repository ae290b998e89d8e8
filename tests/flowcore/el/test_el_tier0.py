"""Tier 0 of the EL: interpolation, quoting, escapes, lookups, parameters, the fast paths."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from flowcore.el import Expression, compile_expression, evaluate, validate_expression
from flowcore.errors import ConfigurationError, ExpressionError

ATTRS = {
    "filename": "hello.txt",
    "absolute.path": "/data/in",
    "uuid": "hello.txt",
    "abc": "xyz",
    "a": "x",
    "my attr": "spaced",
    "it's": "quoted",
    "x-y": "dash",
    "num": "10",
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain text", "plain text"),
        ("", ""),
        ("${filename}", "hello.txt"),
        ("${absolute.path}/${filename}", "/data/in/hello.txt"),
        ("pre-${filename}-post", "pre-hello.txt-post"),
        ("${a}${a}${a}", "xxx"),
        ("${x-y}", "dash"),
        ("${'my attr'}", "spaced"),
        ('${"my attr"}', "spaced"),
        ("${'it\\'s'}", "quoted"),
        ('${"it\'s"}', "quoted"),
        ("${'filename':toUpper()}", "HELLO.TXT"),
        ("${missing}", ""),
        ("[${missing}]", "[]"),
        ("${filename:toUpper():equals('HELLO.TXT')}", "true"),
        ("${filename:equals('nope')}", "false"),
        ("${num:plus(1)}", "11"),
        ("${filename:equals(${uuid})}", "true"),
        ("${filename:append(${a:toUpper():append(${abc})})}", "hello.txtXxyz"),
        ("${ filename : toUpper ( ) : equals ( 'HELLO.TXT' ) }", "true"),
        ("${\tfilename\n:substring( 0 , 5 )}", "hello"),
        ("{braces} and ${a}", "{braces} and x"),
        ("${filename:equals('}')}", "false"),
        ("${literal('a}b{c')}", "a}b{c"),
    ],
)
def test_interpolation(text: str, expected: str) -> None:
    assert evaluate(text, ATTRS) == expected


# The escaping table of NiFi's Expression Language guide, with abc=xyz.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${abc}", "xyz"),
        ("$${abc}", "${abc}"),
        ("$$${abc}", "$xyz"),
        ("$$$${abc}", "$${abc}"),
        ("$$$$${abc}", "$$xyz"),
        ("I owe you $5", "I owe you $5"),
        ("You owe me $$5 too", "You owe me $$5 too"),
        ("Unescaped $$${5 because no closing brace", "Unescaped $$${5 because no closing brace"),
        ("Unescaped $$${'5'} because no closing brace", "Unescaped $ because no closing brace"),
        ("$${a}", "${a}"),
        ("$$${a}", "$x"),
        ("cost: $$ and ${a}", "cost: $$ and x"),
        ("$${a:nosuchfunction()}", "${a:nosuchfunction()}"),
        ("${unclosed", "${unclosed"),
        ("${a ${a}", "${a x"),
        ("$", "$"),
        ("${'unterminated}", "${'unterminated}"),
    ],
)
def test_dollar_escapes(text: str, expected: str) -> None:
    assert evaluate(text, ATTRS) == expected


def test_escaped_text_is_literal() -> None:
    expression = compile_expression("$${a}")
    assert expression.is_literal
    assert not expression.references_attributes
    assert expression.evaluate({"a": "ignored"}) == "${a}"


def test_leading_digit_attribute_must_be_quoted() -> None:
    with pytest.raises(ExpressionError, match=r"Attribute name '5' at position 2"):
        compile_expression("${5}")
    assert evaluate("${'5'}", {"5": "five"}) == "five"


def test_environment_fallback() -> None:
    env = {"HOME_DIR": "/home/me", "filename": "from-env"}
    assert evaluate("${HOME_DIR}", {}, env=env) == "/home/me"
    assert evaluate("${HOME_DIR}/${filename}", ATTRS, env=env) == "/home/me/hello.txt"
    assert evaluate("${filename}", ATTRS, env=env) == "hello.txt"  # attribute wins
    assert evaluate("${filename}", None, env=env) == "from-env"
    assert evaluate("${nothing}", None, env=env) == ""
    assert evaluate("${HOME_DIR:toUpper()}", None, env=env) == "/HOME/ME"


def test_environment_defaults_to_os_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLOWCORE_EL_TEST_VAR", "from-os")
    assert evaluate("${FLOWCORE_EL_TEST_VAR}") == "from-os"
    assert evaluate("v=${FLOWCORE_EL_TEST_VAR:toUpper()}") == "v=FROM-OS"
    assert evaluate("${FLOWCORE_EL_TEST_VAR}", {"FLOWCORE_EL_TEST_VAR": "attr"}) == "attr"


def test_empty_attribute_value_is_not_missing() -> None:
    assert evaluate("${e}", {"e": ""}, env={"e": "env"}) == ""


PARAMS = {"abc": "xxx", "def": "yyy", "File": "${filename}", "Num": "5", "With Space": "sp"}


# The parameter table of NiFi's user guide, plus references inside expressions.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("#{abc}", "xxx"),
        ("#{abc}/data", "xxx/data"),
        ("#{abc}/#{def}", "xxx/yyy"),
        ("#{abc", "#{abc"),
        ("#abc", "#abc"),
        ("##{abc}", "#{abc}"),
        ("###{abc}", "#xxx"),
        ("####{abc}", "##{abc}"),
        ("#####{abc}", "##xxx"),
        ("#{With Space}", "sp"),
        ("#{File}", "hello.txt"),  # a parameter's value is EL when substituted
        ("${ #{abc}:replace('xxx', 'zzz') }", "zzz"),
        ("${#{abc}:toUpper()}", "XXX"),
        ("${num:plus(#{Num})}", "15"),
        ("${filename:equals(#{File})}", "false"),  # inside ${} a parameter is a plain string
        ("$${#{abc}}", "${#{abc}}"),
    ],
)
def test_parameters(text: str, expected: str) -> None:
    assert evaluate(text, {"filename": "hello.txt", "num": "10"}, parameters=PARAMS) == expected


def test_parameter_names_and_missing_parameters() -> None:
    expression = compile_expression("#{abc}-${x:append(#{def})}")
    assert expression.parameter_names == frozenset({"abc", "def"})
    assert not expression.is_literal
    with pytest.raises(ExpressionError, match=r"Parameter 'abc' referenced at position 0"):
        expression.evaluate({})
    with pytest.raises(ExpressionError, match=r"Parameter 'def' referenced at position 18"):
        expression.evaluate({}, parameters={"abc": "1"})


def test_invalid_parameter_name() -> None:
    assert validate_expression("#{abc/data}") == (
        "Invalid parameter name 'abc/data' at position 2: "
        "only letters, digits, space, '.', '-' and '_' are allowed"
    )


def test_parameter_value_is_not_reparsed_for_parameters() -> None:
    assert evaluate("#{p}", parameters={"p": "#{p}"}) == "#{p}"


@pytest.mark.parametrize(
    ("text", "literal", "references"),
    [
        ("plain", True, False),
        ("", True, False),
        ("$${a}", True, False),
        ("${a}", False, True),
        ("x${a}", False, True),
        ("${now()}", False, False),
        ("${literal('a'):toUpper()}", False, False),
        ("${literal(${a})}", False, True),
        ("${now():format(${fmt})}", False, True),
        ("#{p}", False, True),
        ("${#{p}}", False, False),
    ],
)
def test_expression_properties(text: str, literal: bool, references: bool) -> None:
    expression = compile_expression(text)
    assert expression.is_literal is literal
    assert expression.references_attributes is references
    assert expression.text == text


def test_rendering_of_types() -> None:
    assert evaluate("${literal(true)}") == "true"
    assert evaluate("${a:isNull()}") == "true"
    assert evaluate("${literal(12)}") == "12"
    assert evaluate("${literal(2.50)}") == "2.5"
    assert evaluate("${literal(-3)}") == "-3"


def test_compile_is_cached_and_expressions_are_values() -> None:
    first = compile_expression("${filename:toUpper()}")
    assert compile_expression("${filename:toUpper()}") is first
    assert Expression("${filename:toUpper()}") == first
    assert hash(Expression("${filename:toUpper()}")) == hash(first)
    assert repr(first) == "Expression('${filename:toUpper()}')"


def test_expression_is_immutable() -> None:
    expression = compile_expression("${a}")
    with pytest.raises(AttributeError):
        expression.text = "other"


def test_single_attribute_fast_path_matches_general_path() -> None:
    fast = compile_expression("${a}")
    general = compile_expression("${a}${missing}")
    for attributes in ({"a": "1"}, {}, None):
        assert fast.evaluate(attributes, env={"a": "env"}) == general.evaluate(
            attributes, env={"a": "env"}
        )


def test_validate_expression() -> None:
    assert validate_expression("${filename:toUpper()}") is None
    assert validate_expression("plain") is None
    message = validate_expression("${filename:toUpperr()}")
    assert message is not None
    assert message.startswith("Unknown Expression Language function 'toUpperr' at position 11")


def test_expression_error_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError):
        compile_expression("${a:bogus()}")


def test_concurrent_evaluation_shares_one_expression() -> None:
    expression = compile_expression("${n:plus(1):toString():prepend(${p})}")
    barrier = threading.Barrier(8)

    def work(n: int) -> list[str]:
        barrier.wait()
        return [expression.evaluate({"n": str(n), "p": f"t{n}-"}) for _ in range(200)]

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(work, range(8)))
    for n, values in enumerate(results):
        assert set(values) == {f"t{n}-{n + 1}"}
