"""Wait: holds FlowFiles until a release signal from Notify reaches its target count.

Follows NiFi's Wait. Choices made here:

* Each trigger takes up to Wait Buffer Count FlowFiles of one Release Signal Identifier
  (the first FlowFile's); FlowFiles of other identifiers taken with them go back to the
  queue untouched. ``wait.start.timestamp`` (injected clock) is set on first sight and
  Expiration Duration is measured from it; expired FlowFiles go to ``expired``. It is
  removed from every FlowFile that leaves the wait (success, expired, failure), as NiFi does.
* Releasable FlowFile Count > 0: signals are turned into passes (Target Signal Count
  signals per pass, each pass releasing that many FlowFiles), NiFi's releaseCandidates; the
  signal is removed once nothing is left in it, otherwise updated. 0: every FlowFile is
  released while the count is at the target (an open gate), and the signal is kept.
* Released FlowFiles get the signal's cached attributes (Attribute Copy Mode) and
  ``wait.counter.<name>`` and ``wait.counter.total`` (the counts before consumption).
* Wait Mode ``Keep in the upstream connection`` returns waiting FlowFiles to their queue;
  ``Transfer to wait relationship`` routes them to ``wait``. With a Wait Penalty Duration,
  an identifier whose FlowFiles had to wait is not checked again until the duration has
  passed, and its waiting FlowFiles are penalized: under the deterministic scheduler this
  is what lets the manual clock move (towards a release or the Expiration Duration)
  instead of the ``wait`` loop spinning.
* The signal is consumed before the session commits (as in NiFi); a concurrent change or
  removal of the signal (another task of this Wait, or Notify) rolls the trigger back
  without penalty and fails it with a ProcessException, so it is tried again.
"""

from __future__ import annotations

import threading
from typing import ClassVar

from flowcore.model import FlowFile
from flowcore.processor import (
    AllowableValue,
    ExpressionLanguageScope,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    processor,
    validators,
)
from flowcore.session import ProcessSession
from processors.standard import _signals
from processors.standard.map_cache import MapCache

WAIT_START_TIMESTAMP = "wait.start.timestamp"
COPY_REPLACE = "replace"
COPY_KEEP_ORIGINAL = "keeporiginal"
MODE_WAIT = "wait"
MODE_KEEP = "keep"

CACHE_SERVICE = PropertyDescriptor(
    name="distributed-cache-service",
    display_name="Distributed Cache Service",
    description="The Controller Service that is used to check for release signals from a "
    "corresponding Notify processor",
    required=True,
    controller_service=MapCache,
)
RELEASE_SIGNAL_IDENTIFIER = PropertyDescriptor(
    name="release-signal-id",
    display_name="Release Signal Identifier",
    description="A value, or the results of an Attribute Expression Language statement, "
    "which will be evaluated against a FlowFile in order to determine the release signal "
    "cache key",
    required=True,
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
TARGET_SIGNAL_COUNT = PropertyDescriptor(
    name="target-signal-count",
    display_name="Target Signal Count",
    description="A value, or the results of an Attribute Expression Language statement, "
    "which will be evaluated against a FlowFile in order to determine the target signal "
    "count. This processor checks whether the signal count has reached this number. If "
    "Signal Counter Name is specified, this processor checks a particular counter, "
    "otherwise checks against total count in a signal.",
    required=True,
    default="1",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
SIGNAL_COUNTER_NAME = PropertyDescriptor(
    name="signal-counter-name",
    display_name="Signal Counter Name",
    description="A value, or the results of an Attribute Expression Language statement, "
    "which will be evaluated against a FlowFile in order to determine the signal counter "
    "name. If not specified, this processor checks the total count in a signal.",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
WAIT_BUFFER_COUNT = PropertyDescriptor(
    name="wait-buffer-count",
    display_name="Wait Buffer Count",
    description="Specify the maximum number of incoming FlowFiles that can be buffered to "
    "check whether it can move forward. The more buffer can provide the better performance, "
    "as it reduces the number of interactions with cache service by grouping FlowFiles by "
    "signal identifier. Only a signal identifier can be processed at a processor execution.",
    required=True,
    default="1",
    validators=[validators.positive_integer],
)
RELEASABLE_FLOWFILE_COUNT = PropertyDescriptor(
    name="releasable-flowfile-count",
    display_name="Releasable FlowFile Count",
    description="A value, or the results of an Attribute Expression Language statement, "
    "which will be evaluated against a FlowFile in order to determine the releasable "
    "FlowFile count. This specifies how many FlowFiles can be released when a target count "
    "reaches target signal count. Zero (0) has a special meaning, any number of FlowFiles "
    "can be released as long as signal count matches target.",
    required=True,
    default="1",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
EXPIRATION_DURATION = PropertyDescriptor(
    name="expiration-duration",
    display_name="Expiration Duration",
    description="Indicates the duration after which waiting FlowFiles will be routed to the "
    "'expired' relationship",
    required=True,
    default="10 min",
    validators=[validators.time_period],
)
ATTRIBUTE_COPY_MODE = PropertyDescriptor(
    name="attribute-copy-mode",
    display_name="Attribute Copy Mode",
    description="Specifies how to handle attributes copied from FlowFiles entering the "
    "Notify processor",
    required=True,
    default=COPY_KEEP_ORIGINAL,
    allowable_values=(
        AllowableValue(COPY_REPLACE, "Replace if present"),
        AllowableValue(COPY_KEEP_ORIGINAL, "Keep original"),
    ),
)
WAIT_MODE = PropertyDescriptor(
    name="wait-mode",
    display_name="Wait Mode",
    description="Specifies how to handle a FlowFile waiting for a notify signal",
    required=True,
    default=MODE_WAIT,
    allowable_values=(
        AllowableValue(MODE_WAIT, "Transfer to wait relationship"),
        AllowableValue(MODE_KEEP, "Keep in the upstream connection"),
    ),
)
WAIT_PENALTY_DURATION = PropertyDescriptor(
    name="wait-penalty-duration",
    display_name="Wait Penalty Duration",
    description="If configured, after a signal identifier got processed but did not meet the "
    "release criteria, the signal identifier is penalized and FlowFiles having the signal "
    "identifier will not be processed again for the specified period of time, so that the "
    "signal identifier will not block others to be processed.",
    validators=[validators.time_period],
)

REL_SUCCESS = Relationship(
    "success",
    "A FlowFile with a matching release signal in the cache will be routed to this relationship",
)
REL_FAILURE = Relationship(
    "failure",
    "When the cache cannot be reached, or if the Release Signal Identifier evaluates to "
    "null or empty, FlowFiles will be routed to this relationship",
)
REL_WAIT = Relationship(
    "wait",
    "A FlowFile with no matching release signal in the cache will be routed to this relationship",
)
REL_EXPIRED = Relationship(
    "expired",
    "A FlowFile that has exceeded the configured Expiration Duration will be routed to this "
    "relationship",
)


@processor("Wait")
class Wait(Processor):
    description: ClassVar[str] = (
        "Routes incoming FlowFiles to the 'wait' relationship until a matching release signal "
        "is stored in the distributed cache from a corresponding Notify processor."
    )
    tags: ClassVar[tuple[str, ...]] = (
        "map",
        "cache",
        "wait",
        "hold",
        "distributed",
        "signal",
        "release",
    )
    property_descriptors: ClassVar[tuple[PropertyDescriptor, ...]] = (
        RELEASE_SIGNAL_IDENTIFIER,
        TARGET_SIGNAL_COUNT,
        SIGNAL_COUNTER_NAME,
        WAIT_BUFFER_COUNT,
        RELEASABLE_FLOWFILE_COUNT,
        EXPIRATION_DURATION,
        CACHE_SERVICE,
        ATTRIBUTE_COPY_MODE,
        WAIT_MODE,
        WAIT_PENALTY_DURATION,
    )
    relationships: ClassVar[tuple[Relationship, ...]] = (
        REL_SUCCESS,
        REL_WAIT,
        REL_EXPIRED,
        REL_FAILURE,
    )

    def __init__(self) -> None:
        super().__init__()
        self._penalized: dict[str, int] = {}
        """Release Signal Identifiers under Wait Penalty Duration, until when (ms)."""
        self._penalized_lock = threading.Lock()
        """Guards ``_penalized``: concurrent tasks share it (one forgetting expired
        penalties while another adds one made the first fail)."""

    def on_scheduled(self, context: ProcessContext) -> None:
        with self._penalized_lock:
            self._penalized.clear()

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        now = context.now_ms()
        with self._penalized_lock:
            for expired in [k for k, v in self._penalized.items() if v <= now]:
                del self._penalized[expired]
            penalized = set(self._penalized)
        buffer = context.get_property(WAIT_BUFFER_COUNT).as_int() or 1
        taken = session.get_batch(max(buffer, 1) * 4)
        if not taken:
            return
        signal_property = context.get_property(RELEASE_SIGNAL_IDENTIFIER)
        target: str | None = None
        chosen: list[FlowFile] = []
        for flowfile in taken:
            signal_id = signal_property.evaluate(flowfile).as_str()
            if not signal_id.strip():
                self.logger.error(
                    "FlowFile %s has no attribute for given Release Signal Identifier",
                    flowfile.attributes.get("uuid"),
                )
                flowfile = session.remove_attribute(flowfile, WAIT_START_TIMESTAMP)
                session.transfer(session.penalize(flowfile), REL_FAILURE)
            elif (
                len(chosen) < buffer and signal_id not in penalized and target in (None, signal_id)
            ):
                target = signal_id
                chosen.append(flowfile)
            else:
                session.transfer(flowfile)  # back to its queue, untouched
        if target is None:
            return
        cache = context.get_property(CACHE_SERVICE).as_controller_service()
        assert isinstance(cache, MapCache)
        signal = _signals.get_signal(cache, target)
        original_counts = dict(signal.counts) if signal is not None else {}
        expiration = context.get_property(EXPIRATION_DURATION).as_time_period_ms() or 0
        routed: dict[str, list[FlowFile]] = {}
        candidates: list[FlowFile] = []
        counter_name: str | None = None
        target_count, releasable = 1, 1
        for flowfile in chosen:
            started = flowfile.attributes.get(WAIT_START_TIMESTAMP)
            if started is None:
                started = str(now)
                flowfile = session.put_attribute(flowfile, WAIT_START_TIMESTAMP, started)
            try:
                started_ms = int(started)
            except ValueError:
                self.logger.error("%s has an invalid value '%s'", WAIT_START_TIMESTAMP, started)
                routed.setdefault(REL_FAILURE.name, []).append(session.penalize(flowfile))
                continue
            if now > started_ms + expiration:
                routed.setdefault(REL_EXPIRED.name, []).append(flowfile)
                continue
            if signal is None:
                routed.setdefault(REL_WAIT.name, []).append(flowfile)
                continue
            if not candidates:
                counter_name = context.get_property(SIGNAL_COUNTER_NAME).evaluate(flowfile).value
                try:
                    target_count = int(
                        context.get_property(TARGET_SIGNAL_COUNT).evaluate(flowfile).as_str()
                    )
                    releasable = int(
                        context.get_property(RELEASABLE_FLOWFILE_COUNT).evaluate(flowfile).as_str()
                    )
                except ValueError as exc:
                    self.logger.error("Failed to parse a count: %s", exc)
                    routed.setdefault(REL_FAILURE.name, []).append(session.penalize(flowfile))
                    continue
            candidates.append(flowfile)
        completed = progressed = False
        if signal is not None and candidates:
            if releasable > 0:
                released, waiting = signal.release(
                    counter_name, target_count, releasable, candidates
                )
                completed = signal.total == 0 and signal.releasable == 0
                progressed = bool(released)
            elif signal.count(counter_name) >= target_count:
                released, waiting = candidates, []
            else:
                released, waiting = [], candidates
            routed.setdefault(REL_SUCCESS.name, []).extend(released)
            routed.setdefault(REL_WAIT.name, []).extend(waiting)
        copy_replace = context.get_property(ATTRIBUTE_COPY_MODE).as_str() == COPY_REPLACE
        keep_upstream = context.get_property(WAIT_MODE).as_str() == MODE_KEEP
        penalty = context.get_property(WAIT_PENALTY_DURATION).as_time_period_ms()
        for relationship, members in routed.items():
            for flowfile in members:
                flowfile = _copy_signal_attributes(
                    session, flowfile, signal, original_counts, copy_replace
                )
                if relationship == REL_WAIT.name:
                    if penalty:
                        flowfile = session.penalize(flowfile)
                    session.transfer(flowfile, None if keep_upstream else relationship)
                else:  # leaving the wait (NiFi's clearWaitState)
                    flowfile = session.remove_attribute(flowfile, WAIT_START_TIMESTAMP)
                    session.transfer(flowfile, relationship)
        if routed.get(REL_WAIT.name) and penalty:
            with self._penalized_lock:
                self._penalized[target] = now + penalty
        if signal is not None:
            try:
                if completed:
                    _signals.complete(cache, signal)
                elif progressed:
                    _signals.replace(cache, signal)
            except _signals.SignalConflict:
                session.rollback()  # as NiFi: back to the queue unpenalized, to try again
                raise


def _copy_signal_attributes(
    session: ProcessSession,
    flowfile: FlowFile,
    signal: _signals.Signal | None,
    counts: dict[str, int],
    replace: bool,
) -> FlowFile:
    if signal is None:
        return flowfile
    if replace:
        attributes = {k: v for k, v in signal.attributes.items() if k != "uuid"}
    else:
        attributes = {k: v for k, v in signal.attributes.items() if k not in flowfile.attributes}
    for name, count in counts.items():
        attributes[f"wait.counter.{name}"] = str(count)
    attributes["wait.counter.total"] = str(sum(counts.values()))
    return session.put_all_attributes(flowfile, attributes)
