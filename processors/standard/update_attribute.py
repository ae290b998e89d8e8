"""UpdateAttribute: sets and deletes FlowFile attributes with Expression Language.

Follows NiFi's UpdateAttribute (without its advanced rules). Choices made here:

* Each dynamic property is an attribute name whose value is EL evaluated against the
  FlowFile. Expressions are compiled once per schedule and kept in a cache keyed by the
  property value, so reconfiguring and restarting reuses them. All dynamic properties are
  evaluated against the FlowFile's attributes as they were on arrival (as NiFi does),
  and then applied together.
* Delete Attributes Expression is a Java regular expression (EL allowed) matched against
  the whole name of each attribute the FlowFile had on arrival; matching attributes are
  deleted even if a dynamic property sets them, as NiFi documents. ``uuid`` is never
  deleted. Compiled patterns are cached by their evaluated text.
* Setting ``alternate.identifier`` to a URI-like "namespace:identifier" reports an
  ADDINFO event, as NiFi does. Otherwise the session reports ATTRIBUTES_MODIFIED.
* FlowFiles are processed in batches of 1000 per trigger. A FlowFile whose expressions
  fail at run time is penalized and returned to its queue (logged as an error) instead of
  rolling back the whole batch; the others proceed.
* Store State = "Store state locally" keeps each dynamic property's last value in the
  processor's LOCAL state, which expressions read with ``getStateValue('name')`` (as in
  NiFi, the value the state had before the FlowFile: ``${getStateValue('count'):plus(1)}``
  counts). Names missing from the state start as "Stateful Variables Initial Value"
  (required then); they are written with the first FlowFile, where NiFi writes them when
  the processor is scheduled. FlowFiles of a batch are evaluated in order, each seeing the state the
  previous one left; the state is committed with the session, in the same repository
  transaction as the FlowFiles, so a restart resumes from it. A FlowFile that fails leaves
  the state as it was. With several concurrent tasks, stateful triggers take turns: each
  reads the state, evaluates and commits its session before the next one reads, so no
  update is lost. The "set state fail" relationship exists in this mode, as in NiFi, but
  nothing is routed to it, since a state update cannot be lost to another thread.
"""

from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

from flowcore.el import Expression, compile_expression
from flowcore.el.lookup import FlowFileLookup as values_of
from flowcore.el.regex import Pattern, java_regex
from flowcore.errors import ExpressionError
from flowcore.model import FlowFile
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

BATCH_SIZE = 1000
_PATTERN_CACHE_SIZE = 100
_UUID = "uuid"
_ALTERNATE_IDENTIFIER = "alternate.identifier"
_URI_LIKE = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):(.+)", re.DOTALL)

DELETE_ATTRIBUTES = PropertyDescriptor(
    name="Delete Attributes Expression",
    display_name="Delete Attributes Expression",
    description="Regular expression for attributes to be deleted from FlowFiles. Existing "
    "attributes that match will be deleted regardless of whether they are updated by this "
    "processor.",
    validators=[validators.java_regular_expression],
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)

DO_NOT_STORE_STATE = "Do not store state"
STORE_STATE_LOCALLY = "Store state locally"

STORE_STATE = PropertyDescriptor(
    name="Store State",
    display_name="Store State",
    description="Select whether or not state will be stored. Selecting 'Stateless' will offer the "
    "default functionality of purely updating the attributes on a FlowFile in a stateless "
    "manner. Selecting a stateful option will not only store the attributes on the FlowFile "
    "but also in the Processors state.",
    required=True,
    default=DO_NOT_STORE_STATE,
    allowable_values=[DO_NOT_STORE_STATE, STORE_STATE_LOCALLY],
)

STATEFUL_VARIABLES_INITIAL_VALUE = PropertyDescriptor(
    name="Stateful Variables Initial Value",
    display_name="Stateful Variables Initial Value",
    description="If using state to set/reference variables then this value is used to set the "
    "initial value of the stateful variable. This will only be used when state does not "
    "contain a value for the variable. This is required if running statefully but can be "
    "empty if needed.",
)

SUCCESS = Relationship("success", "All successful FlowFiles are routed to this relationship")
SET_STATE_FAIL = Relationship(
    "set state fail",
    "A failure to set the state after adding the attributes to the FlowFile will route the "
    "FlowFile here.",
)


@processor("UpdateAttribute")
class UpdateAttribute(Processor):
    description = (
        "Updates the Attributes for a FlowFile by using the Attribute Expression "
        "Language and/or deletes the attributes based on a regular expression"
    )
    tags = (
        "attributes",
        "modification",
        "update",
        "delete",
        "Attribute Expression Language",
        "state",
    )
    property_descriptors = (DELETE_ATTRIBUTES, STORE_STATE, STATEFUL_VARIABLES_INITIAL_VALUE)
    relationships = (SUCCESS,)
    supports_dynamic_properties = True

    def __init__(self) -> None:
        super().__init__()
        self._expressions: dict[str, Expression] = {}
        self._patterns: OrderedDict[str, Pattern] = OrderedDict()
        self._actions: list[tuple[str, Expression]] = []
        self._delete: Expression | None = None
        self._stateful = False
        self._initial_value = ""
        self._state_turn = threading.Lock()

    def get_relationships(self, properties: dict[str, str]) -> list[Relationship]:
        if properties.get(STORE_STATE.name) == STORE_STATE_LOCALLY:
            return [SUCCESS, SET_STATE_FAIL]
        return [SUCCESS]

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        stateful = context.get_property(STORE_STATE).value == STORE_STATE_LOCALLY
        if stateful and context.get_property(STATEFUL_VARIABLES_INITIAL_VALUE).value is None:
            return [
                ValidationResult(
                    STATEFUL_VARIABLES_INITIAL_VALUE.label,
                    False,
                    None,
                    "initial state value must be set if the processor is configured to store "
                    "state.",
                )
            ]
        return []

    def get_dynamic_property_descriptor(self, name: str) -> PropertyDescriptor | None:
        return PropertyDescriptor(
            name=name,
            display_name=name,
            description="Updates a FlowFile attribute specified by the Dynamic Property's key "
            "with the value specified by the Dynamic Property's value",
            dynamic=True,
            validators=[validators.attribute_key_property_name],
            expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
        )

    def _compile(self, text: str) -> Expression:
        expression = self._expressions.get(text)
        if expression is None:
            expression = compile_expression(text)
            self._expressions[text] = expression
        return expression

    def on_scheduled(self, context: ProcessContext) -> None:
        self._actions = [
            (name, self._compile(value)) for name, value in context.dynamic_properties().items()
        ]
        delete = context.get_property(DELETE_ATTRIBUTES).value
        self._delete = self._compile(delete) if delete else None
        self._stateful = context.get_property(STORE_STATE).value == STORE_STATE_LOCALLY
        self._initial_value = context.get_property(STATEFUL_VARIABLES_INITIAL_VALUE).value or ""
        # Keep the cache to what is configured now.
        live = {expression.text for _, expression in self._actions}
        if self._delete is not None:
            live.add(self._delete.text)
        self._expressions = {k: v for k, v in self._expressions.items() if k in live}

    def _pattern(self, text: str) -> Pattern:
        pattern = self._patterns.get(text)
        if pattern is None:
            pattern = java_regex(text)
            self._patterns[text] = pattern
            if len(self._patterns) > _PATTERN_CACHE_SIZE:
                self._patterns.popitem(last=False)
        return pattern

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfiles = session.get_batch(BATCH_SIZE)
        if not flowfiles:
            return
        if self._stateful:
            with self._state_turn:  # read, evaluate and commit before the next task reads
                self._trigger_stateful(context, session, flowfiles)
                session.commit()
            return
        env = os.environ
        now = context.now_ms()
        for flowfile in flowfiles:
            evaluated = self._evaluate(session, flowfile, env, now, None)
            if evaluated is not None:
                self._apply(session, flowfile, evaluated)

    def _trigger_stateful(
        self, context: ProcessContext, session: ProcessSession, flowfiles: list[FlowFile]
    ) -> None:
        """Evaluate with ``getStateValue`` reading the state each previous FlowFile left."""
        committed = session.get_state()
        state = dict(committed)
        for name, _ in self._actions:
            state.setdefault(name, self._initial_value)
        env = os.environ
        now = context.now_ms()
        for flowfile in flowfiles:
            evaluated = self._evaluate(session, flowfile, env, now, state)
            if evaluated is not None:
                state.update(evaluated.values)  # deleted attributes still set their state
                self._apply(session, flowfile, evaluated)
        if state != committed:
            session.set_state(state)

    def _evaluate(
        self,
        session: ProcessSession,
        flowfile: FlowFile,
        env: Mapping[str, str],
        now: int,
        state: Mapping[str, str] | None,
    ) -> _Evaluated | None:
        """The new values and the attributes to delete; None (the FlowFile penalized and
        returned to its queue, the error logged) when an expression fails."""
        attributes = flowfile.attributes
        lookup = values_of(flowfile)  # fileSize, entryDate, ... then the attributes
        try:
            values = {
                name: expression.evaluate(lookup, env=env, now_ms=now, state=state)
                for name, expression in self._actions
            }
            doomed: list[str] = []
            if self._delete is not None:
                regex = self._delete.evaluate(lookup, env=env, now_ms=now, state=state)
                if regex:
                    pattern = self._pattern(regex)
                    doomed = [key for key in attributes if key != _UUID and pattern.fullmatch(key)]
        except ExpressionError as exc:
            self.logger.error(
                "Could not update the attributes of %s (uuid %s); "
                "penalizing it and returning it to its queue: %s",
                attributes.get("filename"),
                attributes.get(_UUID),
                exc,
            )
            session.transfer(session.penalize(flowfile))
            return None
        return _Evaluated(values, doomed)

    def _apply(self, session: ProcessSession, flowfile: FlowFile, evaluated: _Evaluated) -> None:
        """Set the new values (deleted names excepted), delete, and transfer to success."""
        doomed = evaluated.doomed
        updates = {k: v for k, v in evaluated.values.items() if k not in doomed}
        if any(flowfile.attributes.get(key) != value for key, value in updates.items()):
            flowfile = session.put_all_attributes(flowfile, updates)
        if doomed:
            flowfile = session.remove_all_attributes(flowfile, doomed)
        identifier = updates.get(_ALTERNATE_IDENTIFIER)
        if identifier:
            self._associate(session, flowfile, identifier)
        session.transfer(flowfile, SUCCESS)

    @staticmethod
    def _associate(session: ProcessSession, flowfile: FlowFile, identifier: str) -> None:
        match = _URI_LIKE.match(identifier)
        if match is not None:
            session.provenance.associate(flowfile, match.group(1), match.group(2))


@dataclass(frozen=True, slots=True)
class _Evaluated:
    """One FlowFile's evaluated properties: attribute values and attributes to delete."""

    values: dict[str, str]
    doomed: list[str]
