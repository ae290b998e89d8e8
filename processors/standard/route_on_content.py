"""RouteOnContent: routes FlowFiles to the relationships whose Java regex matches the
content (the first Content Buffer Size bytes of it).

Follows NiFi's RouteOnContent: each dynamic property is a relationship; "content must
match exactly" needs the whole buffered text to match, "content must contain match" any
part of it. A FlowFile matching several goes to the first (in property order) and a
clone to each other; each gets ``RouteOnContent.Route`` and a ROUTE event. Attribute
values read by Expression Language in a pattern are quoted (literal), as in NiFi. A
pattern that fails to evaluate or compile penalizes the FlowFile and returns it to its
queue.
"""

from __future__ import annotations

import os

from flowcore.el import compile_expression
from flowcore.el.lookup import FlowFileLookup
from flowcore.el.regex import java_regex
from flowcore.errors import ExpressionError
from flowcore.processor import (
    ExpressionLanguageScope,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    ValidationResult,
    processor,
    validators,
)
from flowcore.session import ProcessSession
from processors.standard._charsets import decode
from processors.standard._support import character_set
from processors.standard._text import DecoratedValues, java_quote, read_prefix

ROUTE_ATTRIBUTE = "RouteOnContent.Route"
MATCH_ALL = "content must match exactly"
MATCH_SUBSEQUENCE = "content must contain match"

BUFFER_SIZE = PropertyDescriptor(
    name="Content Buffer Size",
    display_name="Content Buffer Size",
    description="Specifies the maximum amount of data to buffer in order to apply the regular "
    "expressions. If the size of the FlowFile exceeds this value, any amount of this value "
    "will be ignored",
    default="1 MB",
    required=True,
    validators=[validators.data_size],
)
MATCH_REQUIREMENT = PropertyDescriptor(
    name="Match Requirement",
    display_name="Match Requirement",
    description="Specifies whether the entire content of the file must match the regular "
    "expression exactly, or if any part of the file (up to Content Buffer Size) can contain "
    "the regular expression in order to be considered a match",
    default=MATCH_ALL,
    required=True,
    allowable_values=[MATCH_ALL, MATCH_SUBSEQUENCE],
)
CHARACTER_SET = PropertyDescriptor(
    name="Character Set",
    display_name="Character Set",
    description="The Character Set in which the file is encoded",
    default="UTF-8",
    required=True,
    validators=[character_set],
)
UNMATCHED = Relationship(
    "unmatched",
    "FlowFiles that do not match any of the user-supplied regular expressions will be "
    "routed to this relationship",
)


def _pattern(subject: str, value: str) -> ValidationResult:
    if "${" in value:
        return ValidationResult(subject, True, value)
    return validators.java_regular_expression(subject, value)


@processor("RouteOnContent")
class RouteOnContent(Processor):
    description = (
        "Applies Regular Expressions to the content of a FlowFile and routes a copy of the "
        "FlowFile to each destination whose Regular Expression matches."
    )
    tags = ("route", "content", "regex", "regular expression", "regexp")
    property_descriptors = (MATCH_REQUIREMENT, CHARACTER_SET, BUFFER_SIZE)
    relationships = (UNMATCHED,)
    supports_dynamic_properties = True

    def get_relationships(self, properties: dict[str, str]) -> list[Relationship]:
        names = {d.name for d in self.property_descriptors}
        dynamic = [
            Relationship(name, f"FlowFiles that match the regular expression of '{name}'")
            for name in properties
            if name not in names and name != UNMATCHED.name
        ]
        return [UNMATCHED, *dynamic]

    def get_dynamic_property_descriptor(self, name: str) -> PropertyDescriptor | None:
        return PropertyDescriptor(
            name=name,
            display_name=name,
            description="Routes FlowFiles whose content matches the regular expression defined "
            "by Dynamic Property's value to the Relationship defined by the Dynamic "
            "Property's key",
            dynamic=True,
            validators=[_pattern],
            expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
        )

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        return [
            ValidationResult(name, False, value, "'unmatched' is the processor's own relationship")
            for name, value in context.dynamic_properties().items()
            if name == UNMATCHED.name
        ]

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        charset = context.get_property(CHARACTER_SET).as_str().strip()
        limit = context.get_property(BUFFER_SIZE).as_data_size() or 0
        whole = context.get_property(MATCH_REQUIREMENT).as_str() == MATCH_ALL
        text = decode(read_prefix(session.stream(flowfile), limit), charset)
        lookup = DecoratedValues(FlowFileLookup(flowfile), java_quote)
        destinations: list[str] = []
        try:
            for name, value in context.dynamic_properties().items():
                if "${" in value or "#{" in value:
                    value = compile_expression(value).evaluate(
                        lookup, env=os.environ, now_ms=context.now_ms()
                    )
                pattern = java_regex(value)
                found = pattern.fullmatch(text) if whole else pattern.search(text)
                if found is not None:
                    destinations.append(name)
        except ExpressionError as exc:
            self.logger.error(
                "Could not apply the patterns to %s; penalizing it: %s", flowfile.uuid, exc
            )
            session.transfer(session.penalize(flowfile))
            return
        if not destinations:
            destinations = [UNMATCHED.name]
        routed = [(destinations[0], flowfile)]
        routed += [(name, session.clone(flowfile)) for name in destinations[1:]]
        for name, each in routed:
            each = session.put_attribute(each, ROUTE_ATTRIBUTE, name)
            session.provenance.route(each, name)
            session.transfer(each, name)
