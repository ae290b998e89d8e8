"""RecordPath syntax: a hand-written recursive-descent parser from text to an AST.

Follows NiFi's RecordPath grammar (``RecordPathLexer.g``/``RecordPathParser.g``): paths
absolute (``/a/b``) or relative (``.``, ``..``, ``./a``, ``../a``), steps ``/name``,
``/'quoted name'``, ``/*``, ``//name``, ``//*``, ``/..``, ``/.``; brackets ``[0]``,
``[-1]``, ``[0..2]``, ``[0, 2]``, ``[*]``, ``['key']``, ``['a', 'b']`` and predicates
``[./age >= 18]``, ``[. = 'x']``, ``[isEmpty(./x)]``; function calls ``name(arg, ...)``
whose arguments are paths, string or number literals, calls or comparisons.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


class RecordPathError(ValueError):
    """A RecordPath that cannot be compiled (the message says where and why)."""


# -- AST ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Child:
    name: str


@dataclass(frozen=True, slots=True)
class Wildcard:
    pass


@dataclass(frozen=True, slots=True)
class Descendant:
    name: str | None
    """None: every descendant (``//*``)."""


@dataclass(frozen=True, slots=True)
class Parent:
    pass


@dataclass(frozen=True, slots=True)
class Current:
    pass


@dataclass(frozen=True, slots=True)
class AllElements:
    pass


@dataclass(frozen=True, slots=True)
class Indexes:
    ranges: tuple[tuple[int, int], ...]
    """Inclusive (first, last) pairs; a single index is (i, i)."""


@dataclass(frozen=True, slots=True)
class MapKeys:
    keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Filter:
    predicate: Expr


Step = Child | Wildcard | Descendant | Parent | Current | AllElements | Indexes | MapKeys | Filter


@dataclass(frozen=True, slots=True)
class Path:
    absolute: bool
    start: Call | None = None
    """A function call the steps apply to (``mapOf(...)['k']``), or None."""
    steps: tuple[Step, ...] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class Literal:
    value: str | int | float


@dataclass(frozen=True, slots=True)
class Call:
    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Compare:
    op: str
    left: Expr
    right: Expr


Expr = Path | Literal | Call | Compare

# -- parser -------------------------------------------------------------------------------

_NAME = re.compile(r"[^\s/\[\]()=!<>,'\"*.]+")
_FUNCTION = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?=\s*\()")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?![\w.])|-?\d+(?=\.\.)")
_OPERATOR = re.compile(r"!=|<=|>=|=|<|>")
_INDEX_LIST = re.compile(r"\s*-?\d+(?:\s*\.\.\s*-?\d+)?(?:\s*,\s*-?\d+(?:\s*\.\.\s*-?\d+)?)*\s*\]")
_INDEX_ITEM = re.compile(r"(-?\d+)(?:\s*\.\.\s*(-?\d+))?")
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\\\", "'": "'", '"': '"'}
# Escapes in literals: a doubled backslash stays doubled (a regex or a replacement then
# sees an escaped backslash, as in NiFi); any other backslash pair stays as written.


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, what: str) -> RecordPathError:
        return RecordPathError(f"{what} at position {self.pos} of '{self.text}'")

    def peek(self, token: str) -> bool:
        return self.text.startswith(token, self.pos)

    def skip_ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def expect(self, token: str) -> None:
        self.skip_ws()
        if not self.peek(token):
            raise self.fail(f"expected '{token}'")
        self.pos += len(token)

    def top(self) -> Expr:
        self.skip_ws()
        if self.pos >= len(self.text):
            msg = "the RecordPath is empty"
            raise RecordPathError(msg)
        expr = self.argument()  # NiFi's pathOrFunction is a filter: "/age >= 18" too
        if isinstance(expr, Literal):
            raise self.fail("a RecordPath must be a path or a function, not a literal")
        self.skip_ws()
        if self.pos != len(self.text):
            raise self.fail(f"unexpected '{self.text[self.pos]}'")
        return expr

    def expr(self) -> Expr:
        self.skip_ws()
        if self.pos >= len(self.text):
            raise self.fail("expected a path, a literal or a function")
        char = self.text[self.pos]
        if char in "'\"":
            return Literal(self.string())
        number = _NUMBER.match(self.text, self.pos)
        if number:
            self.pos = number.end()
            literal = number.group()
            return Literal(float(literal) if "." in literal else int(literal))
        if char == "/":
            return Path(True, None, self.steps())
        if char == ".":
            return Path(False, None, self.relative())
        function = _FUNCTION.match(self.text, self.pos)
        if function:
            self.pos = function.end()
            call = self.call(function.group())
            if self.peek("[") or self.peek("/"):
                return Path(False, call, self.steps())
            return call
        if _NAME.match(self.text, self.pos):
            raise self.fail("a path starts with '/' or '.'")
        raise self.fail(f"unexpected '{char}'")

    def argument(self) -> Expr:
        left = self.expr()
        self.skip_ws()
        operator = _OPERATOR.match(self.text, self.pos)
        if operator is None:
            return left
        self.pos = operator.end()
        return Compare(operator.group(), left, self.expr())

    def call(self, name: str) -> Call:
        self.expect("(")
        args: list[Expr] = []
        self.skip_ws()
        if self.peek(")"):
            self.pos += 1
            return Call(name, ())
        while True:
            args.append(self.argument())
            self.skip_ws()
            if self.peek(","):
                self.pos += 1
                continue
            self.expect(")")
            return Call(name, tuple(args))

    def string(self) -> str:
        quote = self.text[self.pos]
        self.pos += 1
        out: list[str] = []
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == "\\" and self.pos + 1 < len(self.text):
                nxt = self.text[self.pos + 1]
                out.append(_ESCAPES.get(nxt, "\\" + nxt))
                self.pos += 2
                continue
            if char == quote:
                self.pos += 1
                return "".join(out)
            out.append(char)
            self.pos += 1
        raise self.fail("unterminated string literal")

    def relative(self) -> tuple[Step, ...]:
        first: Step
        if self.peek(".."):
            self.pos += 2
            first = Parent()
        else:
            self.pos += 1
            first = Current()
        return (first, *self.steps())

    def steps(self) -> tuple[Step, ...]:
        steps: list[Step] = []
        while self.pos < len(self.text):
            if self.peek("//"):
                self.pos += 2
                if self.peek("*"):
                    self.pos += 1
                    steps.append(Descendant(None))
                else:
                    steps.append(Descendant(self.name()))
            elif self.peek("/"):
                self.pos += 1
                if self.peek(".."):
                    self.pos += 2
                    steps.append(Parent())
                elif self.peek("."):
                    self.pos += 1
                    steps.append(Current())
                elif self.peek("*"):
                    self.pos += 1
                    steps.append(Wildcard())
                elif self.pos >= len(self.text) or self.text[self.pos].isspace():
                    if steps:
                        raise self.fail("expected a field name after '/'")
                    return ()  # "/" alone: the root record
                else:
                    steps.append(Child(self.name()))
            elif self.peek("["):
                self.pos += 1
                steps.append(self.bracket())
            else:
                break
        return tuple(steps)

    def name(self) -> str:
        if self.pos < len(self.text) and self.text[self.pos] in "'\"":
            return self.string()
        match = _NAME.match(self.text, self.pos)
        if match is None:
            raise self.fail("expected a field name")
        self.pos = match.end()
        return match.group()

    def bracket(self) -> Step:
        self.skip_ws()
        if self.peek("*"):
            self.pos += 1
            self.expect("]")
            return AllElements()
        indexes = _INDEX_LIST.match(self.text, self.pos)
        if indexes:
            ranges = tuple(
                (int(m.group(1)), int(m.group(2) if m.group(2) is not None else m.group(1)))
                for m in _INDEX_ITEM.finditer(indexes.group())
            )
            self.pos = indexes.end()
            return Indexes(ranges)
        if self.pos < len(self.text) and self.text[self.pos] in "'\"":
            start = self.pos
            keys = [self.string()]
            self.skip_ws()
            while self.peek(","):
                self.pos += 1
                self.skip_ws()
                if self.pos >= len(self.text) or self.text[self.pos] not in "'\"":
                    raise self.fail("expected a quoted map key")
                keys.append(self.string())
                self.skip_ws()
            if self.peek("]"):
                self.pos += 1
                return MapKeys(tuple(keys))
            self.pos = start
        predicate = self.argument()
        self.expect("]")
        return Filter(predicate)


def parse(text: str) -> Expr:
    """The AST of ``text``; raises RecordPathError saying where it is wrong."""
    return _Parser(text).top()
