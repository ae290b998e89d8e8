"""ControlRate: lets FlowFiles through at no more than a configured rate (bytes, FlowFiles
or an attribute's value per Time Duration), per group.

Follows NiFi's ControlRate and its throttle: a FlowFile passes while the amount that
passed in the last Time Duration is below the maximum; the one that takes the total over
the maximum passes, and its throttle then waits the share of the Time Duration it went
over before letting anything else through. "data rate or flowfile count" applies both.
With "Hold FlowFile" the others stay in the queue (the processor yields when none can
pass); with "Route to 'rate exceeded'" they go to that relationship with a ROUTE event
(as do those that pass, to success). A FlowFile whose Rate Controlled Attribute is
missing or not a positive integer goes to failure. Time is the engine's clock.

Choices made here: the window slides by the millisecond (NiFi's TimedBuffer counts in
bins of a second); throttles live in memory and are forgotten after two idle Time
Durations, as in NiFi, and kept across a stop and start unless what they count changes.
Without a Grouping Attribute a closed throttle leaves the queue
untouched; with one, the FlowFiles of a closed group are taken and returned to the back
of the queue (their order within the group is kept; NiFi leaves them in place).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

from flowcore.model import FlowFile
from flowcore.processor import (
    AllowableValue,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    Scheduling,
    ValidationResult,
    processor,
    validators,
)
from flowcore.session import ProcessSession
from flowcore.units import parse_data_size

HOLD_FLOWFILE = "Hold FlowFile"
ROUTE_TO_RATE_EXCEEDED = "Route to 'rate exceeded'"
DATA_RATE = "data rate"
FLOWFILE_RATE = "flowfile count"
ATTRIBUTE_RATE = "attribute value"
DATA_OR_FLOWFILE_RATE = "data rate or flowfile count"
MAX_FLOWFILES_PER_BATCH = 1000
_POSITIVE_LONG = re.compile(r"0*[1-9][0-9]*")
_DEFAULT_GROUP = "\x00default"

RATE_CONTROL_CRITERIA = PropertyDescriptor(
    name="Rate Control Criteria",
    display_name="Rate Control Criteria",
    description="Indicates the criteria that is used to control the throughput rate. "
    "Changing this value resets the rate counters.",
    default=DATA_RATE,
    required=True,
    allowable_values=[
        AllowableValue(
            DATA_RATE,
            DATA_RATE,
            "Rate is controlled by counting bytes transferred per time duration.",
        ),
        AllowableValue(
            FLOWFILE_RATE,
            FLOWFILE_RATE,
            "Rate is controlled by counting FlowFiles transferred per time duration",
        ),
        AllowableValue(
            ATTRIBUTE_RATE,
            ATTRIBUTE_RATE,
            "Rate is controlled by accumulating "
            "the value of a specified attribute that is transferred per time "
            "duration",
        ),
        AllowableValue(
            DATA_OR_FLOWFILE_RATE,
            DATA_OR_FLOWFILE_RATE,
            "Rate is controlled by "
            "counting bytes and FlowFiles transferred per time duration; if either "
            "threshold is met, throttling is enforced",
        ),
    ],
)
TIME_PERIOD = PropertyDescriptor(
    name="Time Duration",
    display_name="Time Duration",
    description="The amount of time to which the Maximum Rate pertains. Changing this value "
    "resets the rate counters.",
    default="1 min",
    required=True,
    validators=[validators.time_period],
)
MAX_RATE = PropertyDescriptor(
    name="Maximum Rate",
    display_name="Maximum Rate",
    description="The maximum rate at which data should pass through this processor. The "
    "format of this property is expected to be a positive integer, or a Data Size (such as "
    "'1 MB') if Rate Control Criteria is set to 'data rate'.",
    validators=[validators.non_empty],
)
MAX_DATA_RATE = PropertyDescriptor(
    name="Maximum Data Rate",
    display_name="Maximum Data Rate",
    description="The maximum rate at which data should pass through this processor. The "
    "format of this property is expected to be a Data Size (such as '1 MB') representing "
    "bytes per Time Duration.",
    validators=[validators.data_size],
)
MAX_COUNT_RATE = PropertyDescriptor(
    name="Maximum FlowFile Rate",
    display_name="Maximum FlowFile Rate",
    description="The maximum rate at which FlowFiles should pass through this processor. "
    "The format of this property is expected to be a positive integer representing "
    "FlowFiles count per Time Duration",
    validators=[validators.positive_integer],
)
RATE_EXCEEDED_STRATEGY = PropertyDescriptor(
    name="Rate Exceeded Strategy",
    display_name="Rate Exceeded Strategy",
    description="Specifies how to handle an incoming FlowFile when the maximum data rate has "
    "been exceeded.",
    default=HOLD_FLOWFILE,
    required=True,
    allowable_values=[
        AllowableValue(
            HOLD_FLOWFILE,
            HOLD_FLOWFILE,
            "The FlowFile will be held in its input "
            "queue until the rate of data has fallen below the configured maximum "
            "and will then be allowed through.",
        ),
        AllowableValue(
            ROUTE_TO_RATE_EXCEEDED,
            ROUTE_TO_RATE_EXCEEDED,
            "The FlowFile will be routed to the 'rate exceeded' Relationship.",
        ),
    ],
)
RATE_CONTROL_ATTRIBUTE_NAME = PropertyDescriptor(
    name="Rate Controlled Attribute",
    display_name="Rate Controlled Attribute",
    description="The name of an attribute whose values build toward the rate limit if Rate "
    "Control Criteria is set to 'attribute value'. The value of the attribute referenced by "
    "this property must be a positive long, or the FlowFile will be routed to failure.",
    validators=[validators.non_empty],
)
GROUPING_ATTRIBUTE_NAME = PropertyDescriptor(
    name="Grouping Attribute",
    display_name="Grouping Attribute",
    description='By default, a single "throttle" is used for all FlowFiles. If this value '
    "is specified, a separate throttle is used for each value specified by the attribute "
    "with this name. Changing this value resets the rate counters.",
    validators=[validators.non_empty],
)

SUCCESS = Relationship(
    "success", "FlowFiles are transferred to this relationship under normal conditions"
)
FAILURE = Relationship(
    "failure",
    "FlowFiles will be routed to this relationship if they "
    "are missing a necessary Rate Controlled Attribute or the attribute is "
    "not in the expected format",
)
RATE_EXCEEDED = Relationship(
    "rate exceeded",
    "A FlowFile will be routed to this relationship if it results in exceeding the maximum "
    "threshold allowed based on the Rate Control Criteria and the Rate Exceeded Strategy is "
    "configured to use this Relationship.",
)


@dataclass(slots=True)
class Throttle:
    """NiFi's Throttle: amounts in a sliding window, and the penalty for overshooting."""

    max_rate: int
    period_ms: int
    entries: deque[tuple[int, int]] = field(default_factory=deque)
    total: int = 0
    penalization_ms: int = 0
    penalized_until: int = 0
    last_update: int = 0

    def _expire(self, now: int) -> None:
        while self.entries and self.entries[0][0] <= now - self.period_ms:
            self.total -= self.entries.popleft()[1]

    def ready(self, now: int) -> bool:
        """Whether ``try_add`` would take an amount now (starting a due penalty, as it would)."""
        if self.penalized_until > now:
            return False
        self._expire(now)
        if self.entries and self.total >= self.max_rate:
            return False
        if self.penalization_ms > 0:
            self.penalized_until = now + self.penalization_ms
            self.penalization_ms = 0
            return False
        return True

    def try_add(self, value: int, now: int) -> bool:
        if value < 0 or self.penalized_until > now:
            return False
        self._expire(now)
        if self.entries and self.total >= self.max_rate:
            return False
        if self.penalization_ms > 0:
            self.penalized_until = now + self.penalization_ms
            self.penalization_ms = 0
            return False
        self.entries.append((now, value))
        self.total += value
        if self.total > self.max_rate:
            over = (self.total - self.max_rate) / self.max_rate
            self.penalization_ms = int(self.period_ms * over)
        self.last_update = now
        return True


def _parse_rate(text: str) -> int:
    stripped = text.strip()
    return int(stripped) if stripped.isdigit() else parse_data_size(stripped)


@processor("ControlRate")
class ControlRate(Processor):
    description = (
        "Controls the rate at which data is transferred to follow-on processors. If you "
        "configure a very small Time Duration, then the accuracy of the throttle gets worse. "
        "You can improve this accuracy by decreasing the Yield Duration, at the expense of "
        "more Tasks given to the processor."
    )
    tags = ("rate control", "throttle", "rate", "throughput")
    property_descriptors = (
        RATE_CONTROL_CRITERIA,
        TIME_PERIOD,
        MAX_RATE,
        MAX_DATA_RATE,
        MAX_COUNT_RATE,
        RATE_EXCEEDED_STRATEGY,
        RATE_CONTROL_ATTRIBUTE_NAME,
        GROUPING_ATTRIBUTE_NAME,
    )
    relationships = (SUCCESS, FAILURE)
    scheduling = Scheduling(trigger_serially=True)

    def __init__(self) -> None:
        super().__init__()
        self._data: dict[str, Throttle] = {}
        self._count: dict[str, Throttle] = {}
        self._last_clear = 0
        self._counted: tuple[str | None, ...] | None = None

    def get_relationships(self, properties: dict[str, str]) -> list[Relationship]:
        strategy = RATE_EXCEEDED_STRATEGY.canonical(
            properties.get(RATE_EXCEEDED_STRATEGY.name) or HOLD_FLOWFILE
        )
        if strategy == ROUTE_TO_RATE_EXCEEDED:
            return [SUCCESS, FAILURE, RATE_EXCEEDED]
        return [SUCCESS, FAILURE]

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        criteria = context.get_property(RATE_CONTROL_CRITERIA).as_str()
        results: list[ValidationResult] = []
        max_rate = context.get_property(MAX_RATE).as_str()
        if criteria == DATA_OR_FLOWFILE_RATE:
            results.append(
                validators.data_size(
                    MAX_DATA_RATE.label, context.get_property(MAX_DATA_RATE).as_str()
                )
            )
            results.append(
                validators.positive_integer(
                    MAX_COUNT_RATE.label, context.get_property(MAX_COUNT_RATE).as_str()
                )
            )
        elif criteria == DATA_RATE:
            results.append(validators.data_size(MAX_RATE.label, max_rate))
        else:
            if (
                criteria == ATTRIBUTE_RATE
                and not context.get_property(RATE_CONTROL_ATTRIBUTE_NAME).is_set
            ):
                results.append(
                    ValidationResult(
                        RATE_CONTROL_ATTRIBUTE_NAME.label,
                        False,
                        None,
                        "property must be set if using <Rate Control Criteria> of "
                        "'attribute value'",
                    )
                )
            results.append(validators.positive_integer(MAX_RATE.label, max_rate))
        return [result for result in results if not result.valid]

    def on_scheduled(self, context: ProcessContext) -> None:
        """Keep the throttles across a stop and start, as NiFi does: they are cleared only
        when what they count changes (criteria, attribute, grouping, Time Duration); a
        changed maximum applies to the throttles already there."""
        counted = tuple(
            context.get_property(descriptor).value
            for descriptor in (
                RATE_CONTROL_CRITERIA,
                RATE_CONTROL_ATTRIBUTE_NAME,
                GROUPING_ATTRIBUTE_NAME,
                TIME_PERIOD,
            )
        )
        if counted != self._counted:
            self._counted = counted
            self._data.clear()
            self._count.clear()
            self._last_clear = context.now_ms()
            return
        criteria = context.get_property(RATE_CONTROL_CRITERIA).as_str()
        data_key = MAX_DATA_RATE if criteria == DATA_OR_FLOWFILE_RATE else MAX_RATE
        count_key = MAX_COUNT_RATE if criteria == DATA_OR_FLOWFILE_RATE else MAX_RATE
        for throttles, key in ((self._data, data_key), (self._count, count_key)):
            if throttles:
                limit = _parse_rate(context.get_property(key).as_str())
                for throttle in throttles.values():
                    throttle.max_rate = limit

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        now = context.now_ms()
        period_ms = context.get_property(TIME_PERIOD).as_time_period_ms() or 1000
        self._clear_expired(now, period_ms)
        route = context.get_property(RATE_EXCEEDED_STRATEGY).as_str() == ROUTE_TO_RATE_EXCEEDED
        grouping = context.get_property(GROUPING_ATTRIBUTE_NAME).value
        passed = 0
        held: list[FlowFile] = []
        while passed + len(held) < MAX_FLOWFILES_PER_BATCH:
            if not route and grouping is None and not self._ready(now):
                break  # one throttle, closed: leave the queue as it is
            flowfile = session.get()
            if flowfile is None:
                break
            if not self._attribute_valid(context, flowfile):
                self.logger.error(
                    "Routing %s to 'failure' due to missing or invalid attribute", flowfile.uuid
                )
                if route:
                    session.provenance.route(flowfile, FAILURE.name)
                session.transfer(flowfile, FAILURE)
                passed += 1
                continue
            accepted = self._accept(context, flowfile, now, period_ms)
            if accepted or route:
                relationship = SUCCESS if accepted else RATE_EXCEEDED
                if route:
                    session.provenance.route(flowfile, relationship.name)
                session.transfer(flowfile, relationship)
                passed += 1
                continue
            held.append(flowfile)
            if grouping is None:
                break  # one throttle: nothing else can pass now
        for flowfile in held:
            session.transfer(flowfile)
        if passed == 0:
            context.yield_processor()

    def _ready(self, now: int) -> bool:
        throttles = [self._data.get(_DEFAULT_GROUP), self._count.get(_DEFAULT_GROUP)]
        return all(t.ready(now) for t in throttles if t is not None)

    def _clear_expired(self, now: int, period_ms: int) -> None:
        if self._last_clear < now - 2 * period_ms:
            last = self._last_clear
            self._last_clear = now
            for throttles in (self._data, self._count):
                for name in [n for n, t in throttles.items() if t.last_update < last]:
                    del throttles[name]

    @staticmethod
    def _attribute_valid(context: ProcessContext, flowfile: FlowFile) -> bool:
        if context.get_property(RATE_CONTROL_CRITERIA).as_str() != ATTRIBUTE_RATE:
            return True
        name = context.get_property(RATE_CONTROL_ATTRIBUTE_NAME).as_str()
        value = flowfile.attributes.get(name)
        return value is not None and _POSITIVE_LONG.fullmatch(value) is not None

    def _accept(
        self, context: ProcessContext, flowfile: FlowFile, now: int, period_ms: int
    ) -> bool:
        criteria = context.get_property(RATE_CONTROL_CRITERIA).as_str()
        grouping = context.get_property(GROUPING_ATTRIBUTE_NAME).value
        group = (flowfile.attributes.get(grouping) if grouping else None) or _DEFAULT_GROUP
        if criteria in (DATA_RATE, DATA_OR_FLOWFILE_RATE):
            key = MAX_RATE if criteria == DATA_RATE else MAX_DATA_RATE
            throttle = self._data.get(group)
            if throttle is None:
                limit = _parse_rate(context.get_property(key).as_str())
                throttle = self._data[group] = Throttle(limit, period_ms)
            if not throttle.try_add(flowfile.size, now):
                return False
            if criteria == DATA_RATE:
                return True
        key = MAX_COUNT_RATE if criteria == DATA_OR_FLOWFILE_RATE else MAX_RATE
        throttle = self._count.get(group)
        if throttle is None:
            throttle = self._count[group] = Throttle(
                int(context.get_property(key).as_str().strip()), period_ms
            )
        if criteria == ATTRIBUTE_RATE:
            name = context.get_property(RATE_CONTROL_ATTRIBUTE_NAME).as_str()
            amount = int(flowfile.attributes[name])
        else:
            amount = 1
        return throttle.try_add(amount, now)
