"""Every Tier 1 EL function, including NiFi's null handling and number rendering."""

from __future__ import annotations

import re
import socket

import pytest

from flowcore.el import evaluate
from flowcore.errors import ExpressionError

ATTRS = {
    "filename": "hello.txt",
    "path": "/a/b/c.tar.gz",
    "word": "Hello World",
    "empty": "",
    "blank": " \t ",
    "spaced": "  x  ",
    "num": "10",
    "neg": "-7",
    "dec": "2.5",
    "seven": "7",
    "yes": "true",
    "TRUE": "TRUE",
    "no": "false",
    "other": "hello.txt",
    "regex": "(",
}


def run(text: str) -> str:
    return evaluate(text, ATTRS, env={}, now_ms=1_700_000_000_123)


STRINGS = [
    ("${word:toUpper()}", "HELLO WORLD"),
    ("${word:toLower()}", "hello world"),
    ("${spaced:trim()}", "x"),
    ("${word:substring(6)}", "World"),
    ("${word:substring(0, 5)}", "Hello"),
    ("${word:substring(11)}", ""),
    # past the end or reversed: Java's IndexOutOfBoundsException becomes "" in NiFi
    ("${word:substring(12)}", ""),
    ("${word:substring(2, 1)}", ""),
    ("${word:substring(-1)}", ""),
    ("${word:substring(3, 99)}", ""),
    ("${word:substring(${seven:minus(7)}, ${seven:minus(2)})}", "Hello"),
    ("${path:substringBefore('.')}", "/a/b/c"),
    ("${path:substringBefore('#')}", "/a/b/c.tar.gz"),
    ("${path:substringBeforeLast('.')}", "/a/b/c.tar"),
    ("${path:substringBeforeLast('#')}", "/a/b/c.tar.gz"),
    ("${path:substringAfter('.')}", "tar.gz"),
    ("${path:substringAfter('')}", "/a/b/c.tar.gz"),
    ("${path:substringAfterLast('/')}", "c.tar.gz"),
    ("${path:substringAfterLast('#')}", "/a/b/c.tar.gz"),
    ("${word:replace('o', '0')}", "Hell0 W0rld"),
    ("${word:replace('', '-')}", "-H-e-l-l-o- -W-o-r-l-d-"),
    ("${word:replaceAll('(\\w+) (\\w+)', '$2 $1')}", "World Hello"),
    ("${word:replaceAll('o', '\\$')}", "Hell$ W$rld"),
    ("${word:replaceAll('l+', '[$0]')}", "He[ll]o Wor[l]d"),
    # NiFi evaluates ${...} inside a quoted argument, so a named group is written $${first}.
    ("${word:replaceAll('(?<first>\\w+) .*', '$${first}!')}", "Hello!"),
    ("${word:replaceAll('(?<first>\\w+) .*', '${first}!')}", "!"),
    ("${word:replaceAll('.*', '')}", ""),
    ("${filename:append('.bak')}", "hello.txt.bak"),
    ("${filename:prepend('new-')}", "new-hello.txt"),
    ("${word:length()}", "11"),
    ("${empty:length()}", "0"),
    ("${seven:padLeft(3, '0')}", "007"),
    ("${seven:padLeft(3)}", "__7"),
    ("${seven:padLeft(6, 'ab')}", "ababa7"),
    ("${seven:padRight(4, 'ab')}", "7aba"),
    ("${seven:padRight(2)}", "7_"),
    ("${word:padLeft(3)}", "Hello World"),
    ("${seven:padLeft(0, 'x')}", "7"),
    ("${word:urlEncode()}", "Hello+World"),
    ("${literal('a/b?c=d&e~f*g.h-i_j'):urlEncode()}", "a%2Fb%3Fc%3Dd%26e%7Ef*g.h-i_j"),
    ("${literal('é'):urlEncode()}", "%C3%A9"),
    ("${word:base64Encode()}", "SGVsbG8gV29ybGQ="),
    ("${literal('é'):base64Encode()}", "w6k="),
]

# A missing attribute is null; NiFi's functions treat null differently, one by one.
NULLS = [
    ("${missing:toUpper()}", ""),
    ("${missing:toUpper():isNull()}", "true"),
    ("${missing:toLower():isNull()}", "true"),
    ("${missing:trim():isNull()}", "true"),
    ("${missing:substring(0, 1):isNull()}", "false"),
    ("${missing:substringBefore('a'):isNull()}", "false"),
    ("${missing:substringAfterLast('a'):isNull()}", "false"),
    ("${missing:replace('a', 'b'):isNull()}", "true"),
    ("${missing:replaceAll('a', 'b'):isNull()}", "true"),
    ("${missing:append('x')}", "x"),
    ("${missing:prepend('x')}", "x"),
    ("${missing:length()}", "0"),
    ("${missing:padLeft(3):isNull()}", "true"),
    ("${missing:urlEncode():isNull()}", "true"),
    ("${missing:base64Encode():isNull()}", "true"),
    ("${missing:equals('')}", "false"),
    ("${missing:contains('')}", "false"),
    ("${missing:matches('.*')}", "false"),
    ("${missing:in('')}", "false"),
    ("${missing:gt(0)}", "false"),
    ("${missing:plus(1)}", ""),
    ("${missing:plus(1):isNull()}", "true"),
    ("${num:plus(${missing}):isNull()}", "true"),
    ("${missing:toNumber():isNull()}", "true"),
    ("${missing:format('yyyy'):isNull()}", "true"),
    ("${missing:toDate('yyyy'):isNull()}", "true"),
    ("${missing:not():isNull()}", "true"),
    ("${missing:toString():isNull()}", "true"),
]

BOOLEANS = [
    ("${filename:equals('hello.txt')}", "true"),
    ("${filename:equals('HELLO.TXT')}", "false"),
    ("${filename:equals(${other})}", "true"),
    ("${num:equals(10)}", "true"),
    ("${num:toNumber():equals(10)}", "true"),
    ("${num:toDecimal():equals(10)}", "false"),  # "10.0" is not "10", as in NiFi
    ("${num:toDecimal():equals(10.0)}", "true"),
    ("${yes:equals(true)}", "true"),
    ("${now():equals(1700000000123)}", "true"),
    ("${filename:equalsIgnoreCase('HELLO.TXT')}", "true"),
    ("${filename:equalsIgnoreCase('HELLO.TX')}", "false"),
    ("${empty:isEmpty()}", "true"),
    ("${blank:isEmpty()}", "true"),
    ("${missing:isEmpty()}", "true"),
    ("${word:isEmpty()}", "false"),
    ("${missing:isNull()}", "true"),
    ("${empty:isNull()}", "false"),
    ("${missing:notNull()}", "false"),
    ("${empty:notNull()}", "true"),
    ("${word:contains('lo W')}", "true"),
    ("${word:contains('low')}", "false"),
    ("${word:startsWith('Hell')}", "true"),
    ("${word:startsWith('hell')}", "false"),
    ("${word:endsWith('World')}", "true"),
    ("${word:endsWith('world')}", "false"),
    ("${filename:matches('.*\\.txt')}", "true"),
    ("${filename:matches('hello')}", "false"),  # matches() is a whole-string match
    ("${filename:matches('[a-z]+\\.(txt|csv)')}", "true"),
    ("${filename:in('a.txt', 'hello.txt')}", "true"),
    ("${filename:in('a.txt')}", "false"),
    ("${filename:in(${other})}", "true"),
    ("${num:gt(9)}", "true"),
    ("${num:gt(10)}", "false"),
    ("${num:ge(10)}", "true"),
    ("${num:lt(10.5)}", "true"),
    ("${num:le(9)}", "false"),
    ("${dec:gt(2)}", "true"),
    ("${neg:lt(${dec})}", "true"),
    ("${word:gt(1)}", "false"),
    ("${num:gt(5):and(${num:lt(20)})}", "true"),
    ("${num:gt(5):and(${num:gt(20)})}", "false"),
    ("${num:gt(50):or(${num:lt(20)})}", "true"),
    ("${num:gt(50):or(${num:lt(5)})}", "false"),
    ("${yes:and(true)}", "true"),
    ("${TRUE:and(${yes})}", "true"),
    ("${no:or(false)}", "false"),
    ("${num:gt(50):not()}", "true"),
    ("${yes:not()}", "false"),
    ("${num:gt(5):ifElse('big', 'small')}", "big"),
    ("${num:gt(50):ifElse('big', 'small')}", "small"),
    ("${yes:ifElse(${filename}, 'no')}", "hello.txt"),
    ("${missing:ifElse('a', 'b')}", "b"),
    ("${word:ifElse('a', 'b')}", "b"),
]

NUMBERS = [
    ("${num:toNumber()}", "10"),
    ("${dec:toNumber()}", "2"),
    ("${neg:toNumber()}", "-7"),
    ("${literal(' 42 '):toNumber()}", "42"),
    ("${literal('0x1F'):toNumber()}", "31"),
    ("${word:toNumber():isNull()}", "true"),
    ("${num:toDecimal()}", "10.0"),
    ("${dec:toDecimal()}", "2.5"),
    ("${literal('1e3'):toDecimal()}", "1000.0"),
    ("${literal(10000000):toDecimal()}", "1.0E7"),
    ("${literal(0.0001):toDecimal()}", "1.0E-4"),
    ("${num:plus(5)}", "15"),
    ("${num:plus(0.5)}", "10.5"),
    ("${dec:plus(1)}", "3.5"),
    ("${num:plus(-15)}", "-5"),
    ("${num:minus(15)}", "-5"),
    ("${num:multiply(3)}", "30"),
    ("${dec:multiply(2)}", "5.0"),
    ("${num:divide(3)}", "3"),
    ("${neg:divide(2)}", "-3"),  # Java long division truncates toward zero
    ("${num:divide(4.0)}", "2.5"),
    ("${num:toDecimal():divide(4)}", "2.5"),
    ("${num:divide(0.0)}", "Infinity"),
    ("${neg:divide(0.0)}", "-Infinity"),
    ("${num:mod(3)}", "1"),
    ("${neg:mod(3)}", "-1"),  # Java's % keeps the sign of the dividend
    ("${num:mod(-3)}", "1"),
    ("${dec:mod(1)}", "0.5"),
    ("${num:plus(1):multiply(2):minus(2):divide(5)}", "4"),
    ("${now():plus(877)}", "1700000001000"),
]

MISC = [
    ("${literal('abc')}", "abc"),
    ("${literal(5):plus(1)}", "6"),
    ("${literal(true):and(true)}", "true"),
    ("${literal('${notEvaluated}')}", ""),
    ("${literal('$${escaped}')}", "${escaped}"),
    ("${missing:replaceNull('dflt')}", "dflt"),
    ("${empty:replaceNull('dflt')}", ""),
    ("${word:replaceNull('dflt')}", "Hello World"),
    ("${missing:replaceEmpty('dflt')}", "dflt"),
    ("${empty:replaceEmpty('dflt')}", "dflt"),
    ("${blank:replaceEmpty('dflt')}", "dflt"),
    ("${word:replaceEmpty('dflt')}", "Hello World"),
    ("${num:toNumber():toString():length()}", "2"),
    ("${num:gt(1):toString():toUpper()}", "TRUE"),
    ("${dec:toDecimal():multiply(2):toString()}", "5.0"),
]


@pytest.mark.parametrize(("text", "expected"), STRINGS + NULLS + BOOLEANS + NUMBERS + MISC)
def test_function(text: str, expected: str) -> None:
    assert run(text) == expected


def test_uuid() -> None:
    first, second = run("${UUID()}"), run("${UUID()}")
    pattern = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
    assert re.fullmatch(pattern, first)
    assert first != second


def test_hostname() -> None:
    assert run("${hostname()}") == socket.gethostname()
    assert run("${hostname(false)}") == socket.gethostname()
    assert run("${hostname(true)}") == socket.getfqdn()


def test_next_int_counts_per_process() -> None:
    first = int(run("${nextInt()}"))
    assert first >= 0
    assert int(run("${nextInt()}")) == first + 1
    assert run("${nextInt():minus(${nextInt()})}") == "-1"


def test_lazy_branches_are_not_evaluated() -> None:
    # The unused branch would fail (index out of range) if it were evaluated.
    assert run("${yes:ifElse('ok', ${word:substring(99)})}") == "ok"
    assert run("${no:and(${word:substring(99):equals('x')})}") == "false"
    assert run("${yes:or(${word:substring(99):equals('x')})}") == "true"
    assert run("${word:replaceNull(${word:substring(99)})}") == "Hello World"


def test_json_path_lone_surrogate_escape_is_a_question_mark() -> None:
    """JSON may escape half a surrogate pair; an attribute cannot hold one (the session
    refused to commit it, and the FlowFile went back to its queue for good), and Java's
    getBytes writes it as "?"."""
    document = '{"a": "x\\ud800", "b": "\\ud83d\\ude00", "c\\uDC00": 1}'
    assert evaluate("${j:jsonPath('$.a')}", {"j": document}) == "x?"
    assert evaluate("${j:jsonPath('$.b')}", {"j": document}) == "\U0001f600"
    assert evaluate("${j:jsonPathDelete('$.a')}", {"j": document}) == '{"b":"\U0001f600","c?":1}'


def test_json_path_is_read_as_jayway_compiles_it() -> None:
    """A dot-notation name runs to the next '.', '[' or '(' whatever its characters, and a
    path not at '$' starts at '$.', as in Jayway; a name with a space is refused."""
    document = '{"a@#b": {"c": 1}, "x": [{"#y": 2}], "p": {"q": 3}}'
    assert evaluate("${j:jsonPath('$.a@#b.c')}", {"j": document}) == "1"
    assert evaluate('${j:jsonPath("$.x[0]#y")}', {"j": document}) == "2"
    assert evaluate("${j:jsonPath('p.q')}", {"j": document}) == "3"
    assert evaluate("${j:jsonPath('$..q')}", {"j": document}) == "3"
    for invalid in ("$.p. q", "$.p."):
        with pytest.raises(ExpressionError):
            evaluate(f"${{j:jsonPath('{invalid}')}}", {"j": document})
