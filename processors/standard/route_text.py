"""RouteText: routes each line of a text FlowFile to relationships by matching it against
the dynamic properties, gathering the lines of each relationship (and group) into new
FlowFiles.

Follows NiFi's RouteText: a line goes to every matching property's relationship ("Route
to each matching Property Name", unmatched if none), or to matched / unmatched when all
or any properties match. Lines keep their line endings. With a Grouping Regular
Expression the lines whose whole (trimmed) text matches it are gathered by the values of
its groups; each new FlowFile is a child of the original with ``RouteText.Route`` and
``RouteText.Group`` (the group values joined by ", ") and a ROUTE event; the original
goes to original with ``RouteText.Route`` = original. Choices made here:

* The content is read as it streams, one line at a time; each output FlowFile's content
  is written as lines arrive. Lines go to a relationship even when it is auto-terminated
  (NiFi skips writing those; the result is the same).
* Patterns are Java's through flowcore's translation; Ignore Case applies to the regex
  strategies and the text comparisons, not to Satisfies Expression. "Satisfies
  Expression" sees the attributes and ``line`` (with its ending) and ``lineNo`` (from 1).
* A property whose Expression Language fails for a FlowFile penalizes it and returns it
  to its queue, with nothing emitted.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from flowcore.el import compile_expression, validate_expression
from flowcore.el.lookup import FlowFileLookup
from flowcore.el.regex import Pattern, java_regex
from flowcore.errors import ExpressionError
from flowcore.model import FlowFile
from flowcore.processor import (
    AllowableValue,
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
from flowcore.session.session import OpenContent
from processors.standard._support import character_set
from processors.standard._text import DecoratedValues, TextSink, iter_text_lines

ROUTE_ATTRIBUTE = "RouteText.Route"
GROUP_ATTRIBUTE = "RouteText.Group"

ROUTE_ALL_MATCH = "Route to 'matched' if line matches all conditions"
ROUTE_ANY_MATCH = "Route to 'matched' if lines matches any condition"
ROUTE_PROPERTY_NAME = "Route to each matching Property Name"
STARTS_WITH = "Starts With"
ENDS_WITH = "Ends With"
CONTAINS = "Contains"
EQUALS = "Equals"
MATCHES_REGEX = "Matches Regular Expression"
CONTAINS_REGEX = "Contains Regular Expression"
SATISFIES_EXPRESSION = "Satisfies Expression"

ROUTE_STRATEGY = PropertyDescriptor(
    name="Routing Strategy",
    display_name="Routing Strategy",
    description="Specifies how to determine which Relationship(s) to use when evaluating the "
    "lines of incoming text against the 'Matching Strategy' and user-defined properties.",
    default=ROUTE_PROPERTY_NAME,
    required=True,
    allowable_values=[
        AllowableValue(
            ROUTE_PROPERTY_NAME,
            ROUTE_PROPERTY_NAME,
            "Lines will be routed to each "
            "relationship whose corresponding expression evaluates to 'true'",
        ),
        AllowableValue(
            ROUTE_ALL_MATCH,
            ROUTE_ALL_MATCH,
            "Requires that all user-defined "
            "expressions evaluate to 'true' for the line to be considered a match",
        ),
        AllowableValue(
            ROUTE_ANY_MATCH,
            ROUTE_ANY_MATCH,
            "Requires that at least one "
            "user-defined expression evaluate to 'true' for the line to be "
            "considered a match",
        ),
    ],
)
MATCH_STRATEGY = PropertyDescriptor(
    name="Matching Strategy",
    display_name="Matching Strategy",
    description="Specifies how to evaluate each line of incoming text against the "
    "user-defined properties.",
    required=True,
    allowable_values=[
        SATISFIES_EXPRESSION,
        STARTS_WITH,
        ENDS_WITH,
        CONTAINS,
        EQUALS,
        MATCHES_REGEX,
        CONTAINS_REGEX,
    ],
)
CHARACTER_SET = PropertyDescriptor(
    name="Character Set",
    display_name="Character Set",
    description="The Character Set in which the incoming text is encoded",
    default="UTF-8",
    required=True,
    validators=[character_set],
)
TRIM_WHITESPACE = PropertyDescriptor(
    name="Ignore Leading/Trailing Whitespace",
    display_name="Ignore Leading/Trailing Whitespace",
    description="Indicates whether or not the whitespace at the beginning and end of the "
    "lines should be ignored when evaluating the line.",
    default="true",
    required=True,
    validators=[validators.boolean],
)
IGNORE_CASE = PropertyDescriptor(
    name="Ignore Case",
    display_name="Ignore Case",
    description="If true, capitalization will not be taken into account when comparing "
    "values. E.g., matching against 'HELLO' or 'hello' will have the same result. This "
    "property is ignored if the 'Matching Strategy' is set to 'Satisfies Expression'.",
    default="false",
    required=True,
    allowable_values=["true", "false"],
)
GROUPING_REGEX = PropertyDescriptor(
    name="Grouping Regular Expression",
    display_name="Grouping Regular Expression",
    description="Specifies a Regular Expression to evaluate against each line to determine "
    "which Group the line should be placed in. The Regular Expression must have at least "
    "one Capturing Group that defines the line's Group.",
    validators=[validators.java_regular_expression],
)

ORIGINAL = Relationship(
    "original",
    "The original input file will be routed to this destination when the lines have been "
    "successfully routed to 1 or more relationships",
)
UNMATCHED = Relationship(
    "unmatched",
    "Data that does not satisfy the required user-defined rules will be routed to this "
    "Relationship",
)
MATCHED = Relationship(
    "matched",
    "Data that satisfies the required user-defined rules will be routed to this Relationship",
)

_JAVA_WHITESPACE = "".join(chr(i) for i in range(33))  # String.trim() strips <= ' '

Matcher = Callable[[str, str, int], bool]


def _strip_ending(line: str) -> str:
    """NiFi's cut at the first "\\r" or "\\n" after the first character."""
    cut = [i for i in (line.find("\r"), line.find("\n")) if i > 0]
    return line[: min(cut)] if cut else line


def _strategy(properties: dict[str, str]) -> str:
    return properties.get(ROUTE_STRATEGY.name) or ROUTE_PROPERTY_NAME


@processor("RouteText")
class RouteText(Processor):
    description = (
        "Routes textual data based on a set of user-defined rules. Each line in an incoming "
        "FlowFile is compared against the values specified by user-defined Properties. The "
        "mechanism by which the text is compared to these user-defined properties is defined "
        "by the 'Matching Strategy'. The data is then routed according to these rules, "
        "routing each line of the text individually."
    )
    tags = (
        "attributes",
        "routing",
        "text",
        "regexp",
        "regex",
        "Regular Expression",
        "Expression Language",
        "csv",
        "filter",
        "logs",
        "delimited",
        "find",
        "string",
        "search",
        "filter",
        "detect",
    )
    property_descriptors = (
        ROUTE_STRATEGY,
        MATCH_STRATEGY,
        CHARACTER_SET,
        TRIM_WHITESPACE,
        IGNORE_CASE,
        GROUPING_REGEX,
    )
    relationships = (ORIGINAL, UNMATCHED)
    supports_dynamic_properties = True

    def get_relationships(self, properties: dict[str, str]) -> list[Relationship]:
        if _strategy(properties) == ROUTE_PROPERTY_NAME:
            names = {d.name for d in self.property_descriptors}
            dynamic = [
                Relationship(name, f"Lines matching the property '{name}'")
                for name in properties
                if name not in names and name not in (ORIGINAL.name, UNMATCHED.name)
            ]
            return [ORIGINAL, UNMATCHED, *dynamic]
        return [ORIGINAL, UNMATCHED, MATCHED]

    def get_dynamic_property_descriptor(self, name: str) -> PropertyDescriptor | None:
        return PropertyDescriptor(
            name=name,
            display_name=name,
            description="Routes data that matches the value specified in the Dynamic Property "
            "Value to the Relationship specified in the Dynamic Property Key.",
            dynamic=True,
            validators=[validators.non_empty],
            expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
        )

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        results: list[ValidationResult] = []
        strategy = context.get_property(MATCH_STRATEGY).as_str()
        dynamic = context.dynamic_properties()
        for name, value in dynamic.items():
            if strategy in (MATCHES_REGEX, CONTAINS_REGEX) and "${" not in value:
                result = validators.java_regular_expression(name, value)
                if not result.valid:
                    results.append(result)
            elif strategy == SATISFIES_EXPRESSION:
                problem = validate_expression(value, single=True, result_type="BOOLEAN")
                if problem is not None:
                    results.append(ValidationResult(name, False, value, problem))
        grouping = context.get_property(GROUPING_REGEX).value
        if grouping:
            try:
                if java_regex(grouping).groups < 1:
                    results.append(
                        ValidationResult(
                            GROUPING_REGEX.label,
                            False,
                            grouping,
                            "the Regular Expression must have at least one Capturing Group",
                        )
                    )
            except ExpressionError:
                pass  # the property's validator says so
        if not dynamic:
            results.append(
                ValidationResult(
                    "Dynamic Properties",
                    False,
                    None,
                    "In order to route text there must be dynamic properties to match against",
                )
            )
        return results

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        original = session.get()
        if original is None:
            return
        try:
            matchers = self._matchers(context, original)
        except ExpressionError as exc:
            self.logger.error("Could not evaluate the properties for %s: %s", original.uuid, exc)
            session.transfer(session.penalize(original))
            return
        charset = context.get_property(CHARACTER_SET).as_str().strip()
        trim = context.get_property(TRIM_WHITESPACE).as_bool()
        strategy = context.get_property(ROUTE_STRATEGY).as_str()
        grouping_text = context.get_property(GROUPING_REGEX).value
        grouping = java_regex(grouping_text) if grouping_text else None
        outputs: dict[tuple[str, tuple[str, ...]], tuple[OpenContent, TextSink]] = {}

        def append(relationship: str, match_line: str, line: str) -> None:
            group: tuple[str, ...] = ()
            if grouping is not None:
                found = grouping.fullmatch(match_line)
                if found is not None:
                    group = tuple(value or "" for value in found.groups())
            key = (relationship, group)
            if key not in outputs:
                handle = session.open_write(session.create(original))
                outputs[key] = (handle, TextSink(handle.write, charset))
            outputs[key][1](line)

        try:
            for number, line in enumerate(iter_text_lines(session.stream(original), charset), 1):
                match_line = line.strip(_JAVA_WHITESPACE) if trim else _strip_ending(line)
                matched = [name for name, test in matchers if test(match_line, line, number)]
                if strategy == ROUTE_PROPERTY_NAME:
                    for name in matched:
                        append(name, match_line, line)
                    if not matched:
                        append(UNMATCHED.name, match_line, line)
                    continue
                if strategy == ROUTE_ANY_MATCH:
                    hit = bool(matched)
                else:
                    hit = len(matched) == len(matchers)
                append(MATCHED.name if hit else UNMATCHED.name, match_line, line)
        except ExpressionError as exc:
            for handle, _ in outputs.values():
                handle.abort()
            self.logger.error("Could not route the lines of %s: %s", original.uuid, exc)
            session.rollback(penalize=True)
            return
        for (relationship, group), (handle, sink) in outputs.items():
            sink.flush()
            child = handle.close()
            child = session.put_all_attributes(
                child, {ROUTE_ATTRIBUTE: relationship, GROUP_ATTRIBUTE: ", ".join(group)}
            )
            session.provenance.route(child, relationship)
            session.transfer(child, relationship)
        session.provenance.route(original, ORIGINAL.name)
        original = session.put_attribute(original, ROUTE_ATTRIBUTE, ORIGINAL.name)
        session.transfer(original, ORIGINAL)

    @staticmethod
    def _matchers(context: ProcessContext, flowfile: FlowFile) -> list[tuple[str, Matcher]]:
        strategy = context.get_property(MATCH_STRATEGY).as_str()
        ignore_case = context.get_property(IGNORE_CASE).as_bool()
        matchers: list[tuple[str, Matcher]] = []
        lookup = FlowFileLookup(flowfile)
        now = context.now_ms()
        for name, text in context.dynamic_properties().items():
            if strategy == SATISFIES_EXPRESSION:
                matchers.append((name, _expression_matcher(text, lookup, now)))
                continue
            value = context.get_property(name).evaluate(flowfile).as_str()
            if strategy in (MATCHES_REGEX, CONTAINS_REGEX):
                pattern = java_regex(("(?i)" if ignore_case else "") + value)
                matchers.append((name, _regex_matcher(pattern, strategy == MATCHES_REGEX)))
                continue
            if ignore_case:
                value = value.lower()
            matchers.append((name, _text_matcher(strategy, value, ignore_case)))
        return matchers


def _regex_matcher(pattern: Pattern, whole: bool) -> Matcher:
    if whole:
        return lambda s, _l, _n: pattern.fullmatch(s) is not None
    return lambda s, _l, _n: pattern.search(s) is not None


def _text_matcher(strategy: str, value: str, ignore_case: bool) -> Matcher:
    def fold(text: str) -> str:
        return text.lower() if ignore_case else text

    if strategy == STARTS_WITH:
        return lambda s, _l, _n: fold(s).startswith(value)
    if strategy == ENDS_WITH:
        return lambda s, _l, _n: fold(s).endswith(value)
    if strategy == CONTAINS:
        return lambda s, _l, _n: value in fold(s)
    return lambda s, _l, _n: fold(s) == value


def _expression_matcher(text: str, lookup: FlowFileLookup, now: int) -> Matcher:
    expression = compile_expression(text)
    env = os.environ

    def test(_match_line: str, line: str, number: int) -> bool:
        values = DecoratedValues(lookup, str, {"line": line, "lineNo": str(number)})
        result = expression.evaluate(values, env=env, now_ms=now)
        return result.strip().lower() == "true"

    return test
