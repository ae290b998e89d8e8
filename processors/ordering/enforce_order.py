"""EnforceOrder: restores the order of FlowFiles within a group, as Apache NiFi does.

Follows NiFi's EnforceOrder (``nifi-standard-processors``) rule for rule; the exact
behaviour is written down in ``docs/processors/enforce_order.md``. Where NiFi's
documentation and its code disagree, this processor follows the **code**:

* ``EnforceOrder.startedAt`` is *not* added to FlowFiles routed to failure (the
  documentation says "all FlowFiles"); an existing value is kept.
* ``EnforceOrder.expectedOrder`` is also written for ``overtook`` (the target before the
  overtake), not only for ``wait`` and ``skipped``.
* Maximum Order is stored in state *before* it is checked: an empty or non-numeric result
  is kept as ``<group>.max`` and every later FlowFile of the group fails until the group is
  cleaned up as inactive (the documentation says it "will be left unknown until
  consecutive FlowFiles provide a valid maximum order").
* A group is "inactive" when ``<group>.updatedAt`` (its last initialisation or target
  change) is older than Inactive Timeout; waiting FlowFiles do not refresh it (the
  documentation says "not seen").
* At the maximum order the target stays at the maximum, so a duplicate of the max-order
  FlowFile also goes to success; an overtaking max-order FlowFile sets the target to
  the maximum, not maximum + 1 (the documentation says "order + 1").
* A negative Initial Order produced by Expression Language is accepted; only a literal
  value is checked to be non-negative.

Orders are parsed as Java's ``Integer.parseInt`` does (sign allowed, no whitespace, 32-bit
range) and failure details carry Java's ``NumberFormatException`` messages; groups are
routed in Java ``String`` order (UTF-16 code units). Time comes from the injected clock,
read once per trigger.

Beyond NiFi: the new state map and the routing of every FlowFile of the trigger are
committed in one repository transaction (the state is set on the same session), so a
crash can never leave ``<group>.target`` ahead of or behind the FlowFiles.

FlowFiles leave in the order EnforceOrder transfers them (the session enqueues in
transfer order, as NiFi does), so ``success`` is in order.

When ``wait`` loops straight back, a FlowFile that has to wait is parked instead of going
round the loop: held in flight, untouched, by a long-lived session, its startedAt in keyed
state (committed with the routing), and looked at again only when it could leave (its
turn came, or its Wait Timeout passed); it then leaves exactly as the loop would let it
(``processors/ordering/parking.py``; the design and its choices are in the notes).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from flowcore.processor import (
    ExpressionLanguageScope,
    ProcessContext,
    PropertyDescriptor,
    Relationship,
    Scheduling,
    SessionFactory,
    SessionFactoryProcessor,
    ValidationResult,
    processor,
    validators,
)
from flowcore.session import ProcessSession
from flowcore.units import parse_time_period
from processors.ordering.parking import Arrival, Parked, ParkingLot, reachable

# -- attributes and state keys ------------------------------------------------------------

ATTR_STARTED_AT = "EnforceOrder.startedAt"
ATTR_RESULT = "EnforceOrder.result"
ATTR_DETAIL = "EnforceOrder.detail"
ATTR_EXPECTED_ORDER = "EnforceOrder.expectedOrder"

STATE_TARGET = ".target"
STATE_UPDATED_AT = ".updatedAt"
STATE_MAX = ".max"

# -- properties ---------------------------------------------------------------------------

GROUP_IDENTIFIER = PropertyDescriptor(
    name="Group Identifier",
    display_name="Group Identifier",
    description="EnforceOrder is capable of multiple ordering groups. 'Group Identifier' is "
    "used to determine which group a FlowFile belongs to. This property will be evaluated "
    "with each incoming FlowFile. If evaluated result is empty, the FlowFile will be routed "
    "to failure.",
    required=True,
    default="${filename}",
    validators=[validators.non_blank],
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
ORDER_ATTRIBUTE = PropertyDescriptor(
    name="Order Attribute",
    display_name="Order Attribute",
    description="A name of FlowFile attribute whose value will be used to enforce order of "
    "FlowFiles within a group. If a FlowFile does not have this attribute, or its value is "
    "not an integer, the FlowFile will be routed to failure.",
    required=True,
    validators=[validators.non_blank],
)
INITIAL_ORDER = PropertyDescriptor(
    name="Initial Order",
    display_name="Initial Order",
    description="When the first FlowFile of a group arrives, initial target order will be "
    "computed and stored in the managed state. After that, target order will start being "
    "tracked by EnforceOrder and stored in the state management store. If Expression "
    "Language is used but evaluated result was not an integer, then the FlowFile will be "
    "routed to failure, and initial order will be left unknown until consecutive FlowFiles "
    "provide a valid initial order.",
    required=True,
    default="0",
    validators=[validators.non_negative_integer],
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
MAXIMUM_ORDER = PropertyDescriptor(
    name="Maximum Order",
    display_name="Maximum Order",
    description="If specified, any FlowFiles that have larger order will be routed to "
    "failure. This property is computed only once for a given group. After a maximum order "
    "is computed, it will be persisted in the state management store and used for other "
    "FlowFiles belonging to the same group. (NiFi's documentation adds that an invalid "
    "evaluated result is left unknown; NiFi's code stores it, and so does this processor.)",
    required=False,
    validators=[validators.positive_integer],
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
BATCH_COUNT = PropertyDescriptor(
    name="Batch Count",
    display_name="Batch Count",
    description="The maximum number of FlowFiles that EnforceOrder can process at an execution.",
    required=True,
    default="1000",
    validators=[validators.positive_integer],
)
WAIT_TIMEOUT = PropertyDescriptor(
    name="Wait Timeout",
    display_name="Wait Timeout",
    description="Indicates the duration after which waiting FlowFiles will be routed to the "
    "'overtook' relationship.",
    required=True,
    default="10 min",
    validators=[validators.time_period],
)
INACTIVE_TIMEOUT = PropertyDescriptor(
    name="Inactive Timeout",
    display_name="Inactive Timeout",
    description="Indicates the duration after which state for an inactive group will be "
    "cleared from managed state. A group is inactive when its target order has not been "
    "initialised or changed for this duration. Inactive Timeout must be longer than Wait "
    "Timeout.",
    required=True,
    default="30 min",
    validators=[validators.time_period],
)

# -- relationships ------------------------------------------------------------------------

SUCCESS = Relationship(
    "success", "A FlowFile with a matching order number will be routed to this relationship."
)
WAIT = Relationship(
    "wait", "A FlowFile with non matching order will be routed to this relationship"
)
OVERTOOK = Relationship(
    "overtook",
    "A FlowFile that waited for preceding FlowFiles longer than Wait Timeout and overtook "
    "those FlowFiles, will be routed to this relationship.",
)
SKIPPED = Relationship(
    "skipped",
    "A FlowFile that has an order younger than current, which means arrived too late and "
    "skipped, will be routed to this relationship.",
)
FAILURE = Relationship(
    "failure",
    "A FlowFiles which does not have required attributes, or fails to compute those will be "
    "routed to this relationship",
)

# -- Java number parsing ------------------------------------------------------------------

_JAVA_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


class JavaNumberFormatError(ValueError):
    """Java's ``NumberFormatException``; ``str()`` is Java's message."""


def _parse_java(text: str | None, low: int, high: int) -> int:
    if text is None:
        raise JavaNumberFormatError("Cannot parse null string: null")
    if len(text) < 19 and text.isascii() and text.isdigit():
        value = int(text)  # the common case: plain digits
        if value <= high:
            return value
    if not _JAVA_INTEGER.fullmatch(text):
        raise JavaNumberFormatError(f'For input string: "{text}"')
    value = int(text)
    if not low <= value <= high:
        raise JavaNumberFormatError(f'For input string: "{text}"')
    return value


def parse_java_int(text: str | None) -> int:
    """``Integer.parseInt``: a sign is allowed, whitespace and decimals are not."""
    return _parse_java(text, _INT_MIN, _INT_MAX)


def parse_java_long(text: str | None) -> int:
    """``Long.parseLong``."""
    return _parse_java(text, _LONG_MIN, _LONG_MAX)


def _is_blank(text: str | None) -> bool:
    return text is None or not text.strip()


def _java_string_key(text: str) -> bytes:
    """Sort key giving Java ``String.compareTo`` order (UTF-16 code units)."""
    return text.encode("utf-16-be", "surrogatepass")


def _nfe(exc: JavaNumberFormatError) -> str:
    return f"java.lang.NumberFormatException: {exc}"


# -- the decision, independent of sessions -------------------------------------------------


@dataclass(slots=True)
class Outcome:
    """Where one FlowFile of the batch goes, and how its attributes change."""

    index: int
    relationship: Relationship
    put: dict[str, str] = field(default_factory=dict)
    remove: tuple[str, ...] = ()
    order: int | None = None  # the parsed order, for ``wait`` (parking needs it)
    started_ms: int | None = None  # the parsed startedAt, for ``wait``


@dataclass(slots=True)
class _Valid:
    index: int
    order: int
    started_at: str


Evaluator = Callable[[Mapping[str, str]], str]


@dataclass(frozen=True, slots=True)
class Settings:
    """The configuration one trigger needs, with EL evaluators for the three properties."""

    group_id: Evaluator
    order_attribute: str
    initial_order: Evaluator
    maximum_order: Evaluator | None
    wait_timeout_ms: int
    inactive_timeout_ms: int


def decide(
    batch: list[Mapping[str, str]],
    settings: Settings,
    state: dict[str, str],
    now: int,
    group_ids: Sequence[str] | None = None,
) -> list[Outcome]:
    """NiFi's algorithm for one trigger (B.6); ``state`` is updated in place.

    Returns the outcomes in transfer order: failures in queue order first, then each
    group in Java String order, each sorted (stably) by order. ``group_ids``, when given,
    are the already evaluated Group Identifiers of the batch.
    """
    outcomes: list[Outcome] = []
    groups: dict[str, list[_Valid]] = {}

    def fail(index: int, attributes: Mapping[str, str], detail: str) -> None:
        outcomes.append(
            Outcome(
                index,
                FAILURE,
                {ATTR_RESULT: FAILURE.name, ATTR_DETAIL: detail},
                (ATTR_EXPECTED_ORDER,),
            )
        )

    # 3. Validation pass, in queue order.
    for index, attributes in enumerate(batch):
        group = group_ids[index] if group_ids is not None else settings.group_id(attributes)
        if _is_blank(group):
            fail(index, attributes, "Failed to get Group Identifier.")
            continue
        try:
            order = parse_java_int(attributes.get(settings.order_attribute))
        except JavaNumberFormatError as exc:
            fail(index, attributes, f"Failed to parse order attribute due to {_nfe(exc)}")
            continue
        target_key = group + STATE_TARGET
        if target_key not in state:
            initial = settings.initial_order(attributes)
            try:
                parse_java_int(initial)
            except JavaNumberFormatError as exc:
                fail(
                    index,
                    attributes,
                    f"Failed to get Initial Order for Group [{group}] due to {_nfe(exc)}",
                )
                continue
            state[target_key] = initial
            state[group + STATE_UPDATED_AT] = str(now)
        if settings.maximum_order is not None:
            max_key = group + STATE_MAX
            if max_key not in state:
                state[max_key] = settings.maximum_order(attributes)
            stored = state[max_key]
            if _is_blank(stored):
                fail(index, attributes, "Maximum Order was specified but result was empty.")
                continue
            try:
                maximum = parse_java_int(stored)
            except JavaNumberFormatError as exc:
                fail(
                    index,
                    attributes,
                    f"Failed to get Maximum Order for group [{group}] due to {_nfe(exc)}",
                )
                continue
            if order > maximum:
                fail(
                    index,
                    attributes,
                    f"Order ({order}) is greater than the Maximum Order ({maximum}) "
                    f"for Group [{group}]",
                )
                continue
        started_at = attributes.get(ATTR_STARTED_AT)
        if started_at is None or _is_blank(started_at):
            started_at = str(now)
        groups.setdefault(group, []).append(_Valid(index, order, started_at))

    # 4. Routing pass: groups in Java String order, stable sort by order inside each.
    for group in sorted(groups, key=_java_string_key):
        members = sorted(groups[group], key=lambda v: v.order)
        stored_target = int(state[group + STATE_TARGET])
        target = stored_target
        stored_max = state.get(group + STATE_MAX)
        group_max = None if _is_blank(stored_max) else int(str(stored_max))
        for valid in members:
            order = valid.order
            is_max = group_max is not None and order == group_max
            started = {ATTR_STARTED_AT: valid.started_at}
            if order == target:
                outcomes.append(
                    Outcome(
                        valid.index,
                        SUCCESS,
                        {**started, ATTR_RESULT: SUCCESS.name},
                        (ATTR_EXPECTED_ORDER, ATTR_DETAIL),
                    )
                )
                if not is_max:
                    target += 1
            elif order > target:
                started_ms = parse_java_long(valid.started_at)
                relationship = OVERTOOK if now - started_ms > settings.wait_timeout_ms else WAIT
                outcomes.append(
                    Outcome(
                        valid.index,
                        relationship,
                        {
                            **started,
                            ATTR_RESULT: relationship.name,
                            ATTR_EXPECTED_ORDER: str(target),
                        },
                        (ATTR_DETAIL,),
                        order,
                        started_ms,
                    )
                )
                if relationship is OVERTOOK:
                    target = order if is_max else order + 1
            else:
                outcomes.append(
                    Outcome(
                        valid.index,
                        SKIPPED,
                        {
                            **started,
                            ATTR_RESULT: SKIPPED.name,
                            ATTR_EXPECTED_ORDER: str(target),
                            ATTR_DETAIL: f"Skipped, FlowFile order was {order} but current "
                            f"target is {target}",
                        },
                    )
                )
        if target != stored_target:
            state[group + STATE_TARGET] = str(target)
            state[group + STATE_UPDATED_AT] = str(now)

    # 5. Inactive clean-up.
    for key in [k for k in state if k.endswith(STATE_UPDATED_AT)]:
        if now - parse_java_long(state[key]) > settings.inactive_timeout_ms:
            group = key[: -len(STATE_UPDATED_AT)]
            for suffix in (STATE_TARGET, STATE_UPDATED_AT, STATE_MAX):
                state.pop(group + suffix, None)
    return outcomes


# -- the processor ------------------------------------------------------------------------


def _period_ms(text: str) -> int:
    return int(parse_time_period(text) * 1000)


_PARKED_PREFIX = b"parked\x00"
_ATTRIBUTE_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_.]*)\}", re.ASCII)


def _parked_key(flowfile_id: int) -> bytes:
    """The keyed-state key of a parked FlowFile's index entry (value: its startedAt)."""
    return _PARKED_PREFIX + flowfile_id.to_bytes(8, "big")


def _timed_out(started_at: str | None, now: int, wait_timeout_ms: int) -> bool:
    if _is_blank(started_at):
        return False
    try:
        return now - parse_java_long(started_at) > wait_timeout_ms
    except JavaNumberFormatError:
        return False  # the routing reports it


def _as_int(text: str | None) -> int | None:
    try:
        return None if _is_blank(text) else parse_java_int(text)
    except JavaNumberFormatError:
        return None


_SCHEDULING = Scheduling(trigger_serially=True, input_required=True, extra={"stateful": "LOCAL"})
# While FlowFiles are parked the processor is also triggered with nothing queued: a Wait
# Timeout or an inactive group's clean-up can come due by time alone.
_SCHEDULING_PARKED = dataclasses.replace(_SCHEDULING, trigger_when_empty=True)


@processor("EnforceOrder")
class EnforceOrder(SessionFactoryProcessor):
    """NiFi's EnforceOrder (see the module docstring for where it follows NiFi's code)."""

    description = (
        "Enforces expected ordering of FlowFiles that belong to the same data group within a "
        "single node. In order to take effect of EnforceOrder, FirstInFirstOutPrioritizer "
        "should be used at every downstream relationship until the order of FlowFiles is "
        "physically fixed by an operation such as MergeContent or storing them."
    )
    tags = ("sort", "order")
    property_descriptors = (
        GROUP_IDENTIFIER,
        ORDER_ATTRIBUTE,
        INITIAL_ORDER,
        MAXIMUM_ORDER,
        BATCH_COUNT,
        WAIT_TIMEOUT,
        INACTIVE_TIMEOUT,
    )
    relationships = (SUCCESS, WAIT, OVERTOOK, SKIPPED, FAILURE)
    # NiFi: @TriggerSerially, @Stateful(scopes = Scope.LOCAL), @InputRequirement(REQUIRED).
    scheduling = _SCHEDULING

    def __init__(self) -> None:
        super().__init__()
        self._lot = ParkingLot()
        self._parking: ProcessSession | None = None
        self._index: dict[int, str] | None = None
        self._cleanup_at: int | None = None

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        wait = context.get_property(WAIT_TIMEOUT).as_str()
        inactive = context.get_property(INACTIVE_TIMEOUT).as_str()
        try:
            wait_us = round(parse_time_period(wait) * 1_000_000)
            inactive_us = round(parse_time_period(inactive) * 1_000_000)
        except ValueError:
            return []  # the property validators report it
        if wait_us >= inactive_us:
            return [
                ValidationResult(
                    INACTIVE_TIMEOUT.label,
                    False,
                    inactive,
                    f"{INACTIVE_TIMEOUT.label} should be longer than {WAIT_TIMEOUT.label}",
                )
            ]
        return []

    def _settings(self, context: ProcessContext) -> Settings:
        def evaluator(descriptor: PropertyDescriptor) -> Evaluator:
            value = context.get_property(descriptor)

            def evaluate(attributes: Mapping[str, str]) -> str:
                return value.evaluate(attributes).as_str()

            reference = _ATTRIBUTE_REFERENCE.fullmatch(value.value or "")
            if reference is None:
                return evaluate
            name = reference.group(1)

            def attribute(attributes: Mapping[str, str]) -> str:
                # ``${name}`` is the attribute itself when the FlowFile has it.
                found = attributes.get(name)
                return found if found is not None else evaluate(attributes)

            return attribute

        maximum = context.get_property(MAXIMUM_ORDER)
        return Settings(
            group_id=evaluator(GROUP_IDENTIFIER),
            order_attribute=context.get_property(ORDER_ATTRIBUTE).as_str(),
            initial_order=evaluator(INITIAL_ORDER),
            maximum_order=evaluator(MAXIMUM_ORDER) if maximum.is_set else None,
            wait_timeout_ms=_period_ms(context.get_property(WAIT_TIMEOUT).as_str()),
            inactive_timeout_ms=_period_ms(context.get_property(INACTIVE_TIMEOUT).as_str()),
        )

    # -- lifecycle ------------------------------------------------------------------------

    def on_scheduled(self, context: ProcessContext) -> None:
        self._unpark_all()

    def on_stopped(self, context: ProcessContext) -> None:
        """Parked FlowFiles go back to their queues untouched; the index keeps startedAt."""
        self._unpark_all()

    def _unpark_all(self) -> None:
        parking, self._parking = self._parking, None
        self._lot.clear()
        self._schedule(parked=False)
        self._index = None
        self._cleanup_at = None
        if parking is not None:
            parking.rollback()

    def _schedule(self, *, parked: bool) -> None:
        # An instance's own traits (the framework reads ``processor.scheduling``).
        self.__dict__["scheduling"] = _SCHEDULING_PARKED if parked else _SCHEDULING

    def next_wake_ms(self, now_ms: int) -> int | None:
        """When time alone next gives work: a Wait Timeout or an inactive group's clean-up."""
        wakes = [w for w in (self._lot.next_wake_ms(now_ms), self._cleanup_at) if w is not None]
        return min(wakes) if wakes else None

    # -- triggering -----------------------------------------------------------------------

    def on_trigger_with_factory(self, context: ProcessContext, factory: SessionFactory) -> None:
        """One NiFi trigger over the new FlowFiles and the parked ones that can now leave."""
        session = factory.create_session()
        try:
            worked = self._trigger(context, factory, session)
        except BaseException:
            session.rollback(penalize=True)
            # The parked FlowFiles are read again from their queues (startedAt from the index).
            self._unpark_all()
            raise
        finally:
            self._schedule(parked=bool(len(self._lot)))
        if not worked and len(self._lot):
            context.yield_processor()  # FlowFiles wait, nothing is due: no busy loop

    def _load_index(self, session: ProcessSession) -> dict[int, str]:
        if self._index is None:
            size = len(_PARKED_PREFIX)
            self._index = {
                int.from_bytes(key[size:], "big"): value.decode()
                for key, value in session.keyed_state.scan(_PARKED_PREFIX)
            }
        return self._index

    def _trigger(
        self, context: ProcessContext, factory: SessionFactory, session: ProcessSession
    ) -> bool:
        settings = self._settings(context)
        batch_count = context.get_property(BATCH_COUNT).as_int() or 1000
        flowfiles = session.get_batch(batch_count)
        now = context.now_ms()
        lot = self._lot
        due, recheck = lot.take_due(now)
        cleanup = self._cleanup_at is not None and self._cleanup_at <= now
        if not (flowfiles or due or recheck or cleanup):
            return False
        hold = session.loops_back(WAIT)
        index = self._load_index(session)
        wait_ms = settings.wait_timeout_ms
        state = session.get_state()

        # The arrivals, as the routing sees them: one parked before a restart gets back the
        # startedAt it had.
        attributes: list[Mapping[str, str]] = []
        groups: list[str] = []
        restored: dict[int, str] = {}
        arrivals: dict[str, list[Arrival]] = {}
        for position, flowfile in enumerate(flowfiles):
            attrs = flowfile.attributes
            started = index.get(flowfile.id)
            if started is not None:
                if _is_blank(attrs.get(ATTR_STARTED_AT)):
                    attrs = {**attrs, ATTR_STARTED_AT: started}
                restored[position] = attrs[ATTR_STARTED_AT]
            group = settings.group_id(attrs)
            attributes.append(attrs)
            groups.append(group)
            if lot.held(group):
                order = _as_int(attrs.get(settings.order_attribute))
                if order is not None:
                    arrivals.setdefault(group, []).append(
                        Arrival(order, _timed_out(attrs.get(ATTR_STARTED_AT), now, wait_ms))
                    )

        # The parked FlowFiles that could leave now; the others would only wait again.
        selected: list[Parked] = []
        selected_attributes: list[Mapping[str, str]] = []
        for group in sorted(set(arrivals) | due | recheck, key=_java_string_key):
            held = lot.held(group)
            if not held:
                continue
            target = _as_int(state.get(group + STATE_TARGET))
            maximum = _as_int(state.get(group + STATE_MAX))
            count = reachable(
                held, arrivals.get(group, ()), target, maximum, now, wait_ms, group in due
            )
            for parked in held[:count]:
                attrs = parked.flowfile.attributes
                if _is_blank(attrs.get(ATTR_STARTED_AT)):
                    attrs = {**attrs, ATTR_STARTED_AT: str(parked.started_at)}
                selected.append(parked)
                selected_attributes.append(attrs)

        parked_count = len(selected)
        batch = selected_attributes + attributes
        outcomes = decide(batch, settings, state, now, [p.group for p in selected] + groups)

        # Parked FlowFiles that leave join this session; new ones that wait are parked.
        leaving: dict[str, list[Parked]] = {}
        for outcome in outcomes:
            if outcome.index < parked_count and outcome.relationship is not WAIT:
                parked = selected[outcome.index]
                leaving.setdefault(parked.group, []).append(parked)
        parking = self._parking
        if leaving:
            assert parking is not None
            parking.migrate(session, [p.flowfile for ps in leaving.values() for p in ps])
        newly: list[Parked] = []
        for outcome in outcomes:
            position = outcome.index
            put = outcome.put
            if position < parked_count:
                if outcome.relationship is WAIT:
                    continue
                flowfile = selected[position].flowfile
                put = {**put, ATTR_STARTED_AT: batch[position][ATTR_STARTED_AT]}
                self._unindex(session, index, flowfile.id)
            else:
                flowfile = flowfiles[position - parked_count]
                if outcome.relationship is WAIT and hold:
                    started = put[ATTR_STARTED_AT]
                    assert outcome.order is not None and outcome.started_ms is not None
                    group = groups[position - parked_count]
                    newly.append(Parked(flowfile, group, outcome.order, outcome.started_ms))
                    if index.get(flowfile.id) != started:
                        session.keyed_state.put(_parked_key(flowfile.id), started.encode())
                        index[flowfile.id] = started
                    continue
                if (position - parked_count) in restored:
                    put = {**put, ATTR_STARTED_AT: restored[position - parked_count]}
                    self._unindex(session, index, flowfile.id)
            if put:
                flowfile = session.put_all_attributes(flowfile, put)
            if outcome.remove and not flowfile.attributes.keys().isdisjoint(outcome.remove):
                flowfile = session.remove_all_attributes(flowfile, outcome.remove)
            session.transfer(flowfile, outcome.relationship)
        if newly:
            if parking is None:
                parking = self._parking = factory.create_session()
            session.migrate(parking, [p.flowfile for p in newly])
            for parked in newly:
                lot.add(parked, wait_ms)
        for group, gone in leaving.items():
            lot.remove(group, gone)
        self._after_routing(state, settings.inactive_timeout_ms)
        session.set_state(state)
        session.commit()
        return True

    @staticmethod
    def _unindex(session: ProcessSession, index: dict[int, str], flowfile_id: int) -> None:
        if index.pop(flowfile_id, None) is not None:
            session.keyed_state.delete(_parked_key(flowfile_id))

    def _after_routing(self, state: Mapping[str, str], inactive_timeout_ms: int) -> None:
        """Keep NiFi's loop timing while FlowFiles are parked.

        NiFi's wait loop triggers EnforceOrder all the time: the next pass routes a
        waiting FlowFile whose group's target has moved to or past it in this pass (an
        overtake can leave it behind), an inactive group is cleared soon after its
        Inactive Timeout, and a cleared group with waiting FlowFiles is started afresh.
        Here such groups are looked at again on the next trigger, and that trigger is
        scheduled for the first clean-up.
        """
        lot = self._lot
        if not len(lot):
            self._cleanup_at = None
            return
        for group in list(lot.groups()):
            target = _as_int(state.get(group + STATE_TARGET))
            if target is None or lot.held(group)[0].order <= target:
                lot.recheck(group)
        deadlines = [
            int(value) + inactive_timeout_ms + 1  # written by this processor
            for key, value in state.items()
            if key.endswith(STATE_UPDATED_AT)
        ]
        self._cleanup_at = min(deadlines) if deadlines else None
