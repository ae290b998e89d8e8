"""The syntax tree of a parsed EL text.

A text is a sequence of parts: literal ``Text``, embedded ``${...}`` expressions and
``#{...}`` parameter references outside any expression. Inside an expression, a subject
(attribute, parameter or subjectless function) is followed by a chain of function calls;
each call's ``subject`` is the node before it. Positions are 0-based offsets into the
original text, used in error messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from flowcore.el.values import Kind, Value

__all__ = [
    "AttributeRef",
    "DynamicAttribute",
    "Embedded",
    "FunctionCall",
    "Literal",
    "MultiAttribute",
    "Node",
    "ParameterRef",
    "ParameterText",
    "Part",
    "Template",
    "Text",
]


@dataclass(frozen=True, slots=True)
class Literal:
    """A string, number, boolean or ``null`` written in the expression."""

    value: Value
    kind: Kind
    pos: int


@dataclass(frozen=True, slots=True)
class AttributeRef:
    """``${name}`` or ``${'quoted name'}``: a FlowFile attribute, else an environment variable."""

    name: str
    pos: int


@dataclass(frozen=True, slots=True)
class ParameterRef:
    """``#{name}`` inside an expression: the parameter's value as a string."""

    name: str
    pos: int


@dataclass(frozen=True, slots=True)
class FunctionCall:
    """``subject:name(args)``, or ``name(args)`` for a subjectless function."""

    name: str
    subject: Node | None
    args: tuple[Node, ...]
    pos: int


@dataclass(frozen=True, slots=True)
class DynamicAttribute:
    """``${${expr}}`` or ``${'name ${x}'}``: the attribute named by an evaluated string."""

    name: Node
    pos: int


@dataclass(frozen=True, slots=True)
class MultiAttribute:
    """``allAttributes(...)``, ``anyMatchingAttribute(...)``, ``allDelineatedValues(...)``...

    The subject of a chain evaluated once per selected value, then reduced (``any``/``all``
    of a Boolean chain, or ``join``/``count``).
    """

    function: str
    args: tuple[Node, ...]
    pos: int


@dataclass(frozen=True, slots=True)
class Template:
    """A quoted string that contains ``${...}``: evaluated and concatenated, as NiFi does."""

    parts: tuple[Part, ...]
    pos: int


Node: TypeAlias = (
    Literal
    | AttributeRef
    | ParameterRef
    | FunctionCall
    | DynamicAttribute
    | MultiAttribute
    | Template
)


@dataclass(frozen=True, slots=True)
class Text:
    """Literal text (escapes already removed)."""

    value: str


@dataclass(frozen=True, slots=True)
class Embedded:
    """One ``${...}`` expression."""

    node: Node


@dataclass(frozen=True, slots=True)
class ParameterText:
    """``#{name}`` outside any expression: replaced by the parameter's value, itself EL."""

    name: str
    pos: int


Part: TypeAlias = Text | Embedded | ParameterText
