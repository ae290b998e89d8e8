"""RouteOnAttribute: routes FlowFiles by boolean Expression Language on their attributes.

Follows NiFi's RouteOnAttribute. The Routing Strategy's values are NiFi's stored ones
("Route to 'match' if all match", "Route to 'match' if any matches", "Route to Property
name"); the display names ("Route to 'matched' if ...") are accepted too. Choices made
here:

* With "Route to Property name", a FlowFile matching several properties goes to the
  first matching one (in the order the properties are configured) and a clone goes to
  each other one (the session reports the CLONE). Each FlowFile routed, clone or not,
  gets the attribute ``RouteOnAttribute.Route`` naming its relationship and a ROUTE
  event; NiFi reports ROUTE only for the original.
* An expression is true when it evaluates to "true" (any case), as NiFi's ``asBoolean``;
  anything else is false. As in NiFi, each rule must be exactly one ``${...}`` expression
  of type Boolean: an unclosed ``${``, text around the expression or a String result
  (``${flag}``) is invalid.
* A dynamic property may not be named "unmatched" (nor "matched" with the all/any
  strategies), since the relationship would clash.
* With "Route to 'matched' if all match" and no dynamic property, every FlowFile is
  matched (vacuous truth), as in NiFi.
* FlowFiles are processed in batches of 1000. A FlowFile whose expression fails at run
  time is penalized and returned to its queue, the others proceed.
"""

from __future__ import annotations

import os

from flowcore.el import Expression, compile_expression
from flowcore.el.lookup import FlowFileLookup as values_of
from flowcore.errors import ExpressionError
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

BATCH_SIZE = 1000
ROUTE_ATTRIBUTE = "RouteOnAttribute.Route"

ROUTE_PROPERTY_NAME = "Route to Property name"
# NiFi stores these values (with 'match', a typo it keeps for compatibility) and shows
# the display names with 'matched'; either is accepted.
ROUTE_ALL_MATCH = "Route to 'match' if all match"
ROUTE_ANY_MATCHES = "Route to 'match' if any matches"

ROUTING_STRATEGY = PropertyDescriptor(
    name="Routing Strategy",
    display_name="Routing Strategy",
    description="Specifies how to determine which relationship to use when evaluating the "
    "Expression Language",
    default=ROUTE_PROPERTY_NAME,
    required=True,
    allowable_values=[
        AllowableValue(
            ROUTE_PROPERTY_NAME,
            ROUTE_PROPERTY_NAME,
            "A copy of the FlowFile will be routed to each relationship whose "
            "corresponding expression evaluates to 'true'",
        ),
        AllowableValue(
            ROUTE_ALL_MATCH,
            "Route to 'matched' if all match",
            "Requires that all user-defined expressions evaluate to 'true' for "
            "the FlowFile to be considered a match",
        ),
        AllowableValue(
            ROUTE_ANY_MATCHES,
            "Route to 'matched' if any matches",
            "Requires that at least one user-defined expression evaluate to "
            "'true' for the FlowFile to be considered a match",
        ),
    ],
)

UNMATCHED = Relationship(
    "unmatched", "FlowFiles that do not match any user-define expression will be routed here"
)
MATCHED = Relationship(
    "matched",
    "FlowFiles will be routed to 'matched' if one or all "
    "Expressions match, depending on the configuration of the Routing "
    "Strategy property",
)


def _strategy(properties: dict[str, str]) -> str:
    return ROUTING_STRATEGY.canonical(properties.get(ROUTING_STRATEGY.name) or ROUTE_PROPERTY_NAME)


def _dynamic_names(properties: dict[str, str]) -> list[str]:
    return [name for name in properties if name != ROUTING_STRATEGY.name]


@processor("RouteOnAttribute")
class RouteOnAttribute(Processor):
    description = (
        "Routes FlowFiles based on their Attributes using the Attribute Expression Language"
    )
    tags = (
        "attributes",
        "routing",
        "Attribute Expression Language",
        "regexp",
        "regex",
        "Regular Expression",
        "Expression Language",
        "find",
        "text",
        "string",
        "search",
        "filter",
        "detect",
    )
    property_descriptors = (ROUTING_STRATEGY,)
    relationships = (UNMATCHED,)
    supports_dynamic_properties = True

    def __init__(self) -> None:
        super().__init__()
        self._rules: list[tuple[str, Expression]] = []
        self._strategy = ROUTE_PROPERTY_NAME

    def get_relationships(self, properties: dict[str, str]) -> list[Relationship]:
        if _strategy(properties) == ROUTE_PROPERTY_NAME:
            dynamic = [
                Relationship(name, f"Relationship created from dynamic property '{name}'")
                for name in _dynamic_names(properties)
                if name != UNMATCHED.name
            ]
            return [UNMATCHED, *dynamic]
        return [MATCHED, UNMATCHED]

    def get_dynamic_property_descriptor(self, name: str) -> PropertyDescriptor | None:
        return PropertyDescriptor(
            name=name,
            display_name=name,
            description="Routes FlowFiles whose attributes match the Expression Language "
            "specified in the Dynamic Property Value to the Relationship specified in the "
            "Dynamic Property Key",
            dynamic=True,
            required=True,
            validators=[validators.boolean_expression],
            expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
        )

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        strategy = _strategy(context.properties)
        reserved = (
            {UNMATCHED.name} if strategy == ROUTE_PROPERTY_NAME else {UNMATCHED.name, MATCHED.name}
        )
        return [
            ValidationResult(
                name,
                False,
                context.properties[name],
                f"'{name}' is the name of a relationship the processor already "
                "has; choose another property name",
            )
            for name in _dynamic_names(context.properties)
            if name in reserved
        ]

    def on_scheduled(self, context: ProcessContext) -> None:
        self._strategy = _strategy(context.properties)
        self._rules = [
            (name, compile_expression(value))
            for name, value in context.dynamic_properties().items()
        ]

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfiles = session.get_batch(BATCH_SIZE)
        if not flowfiles:
            return
        rules = self._rules
        strategy = self._strategy
        env = os.environ
        now = context.now_ms()
        for flowfile in flowfiles:
            attributes = flowfile.attributes
            lookup = values_of(flowfile)  # fileSize, entryDate, ... then the attributes
            try:
                matching = [
                    name
                    for name, expression in rules
                    if expression.evaluate(lookup, env=env, now_ms=now).strip().lower() == "true"
                ]
            except ExpressionError as exc:
                self.logger.error(
                    "Could not evaluate the routing expressions for %s (uuid "
                    "%s); penalizing it and returning it to its queue: %s",
                    attributes.get("filename"),
                    attributes.get("uuid"),
                    exc,
                )
                session.transfer(session.penalize(flowfile))
                continue
            if strategy == ROUTE_PROPERTY_NAME:
                destinations = matching
            elif strategy == ROUTE_ALL_MATCH:
                destinations = [MATCHED.name] if len(matching) == len(rules) else []
            else:
                destinations = [MATCHED.name] if matching else []
            if not destinations:
                destinations = [UNMATCHED.name]
            routed = [(destinations[0], flowfile)]
            routed += [(name, session.clone(flowfile)) for name in destinations[1:]]
            for name, each in routed:
                each = session.put_attribute(each, ROUTE_ATTRIBUTE, name)
                session.provenance.route(each, name)
                session.transfer(each, name)
