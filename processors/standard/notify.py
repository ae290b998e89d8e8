"""Notify: adds to the counters of a release signal in a map cache, for Wait to release by.

Follows NiFi's Notify. Choices made here:

* Up to Signal Buffer Count FlowFiles are taken per trigger; their deltas are summed per
  signal and counter and written in one compare-and-set per signal. A delta of 0 resets
  the counter (NiFi). Attributes matching Attribute Cache Regex are stored with the
  signal (of the last FlowFile of each signal).
* The signal is written before the session commits, as in NiFi: if the commit fails or the
  process dies in between, the FlowFiles come back and notify again (at least once, the
  same as NiFi). ``notified`` is ``true`` on FlowFiles whose signal was written.
* A blank Release Signal Identifier or a delta that is not an integer sends the FlowFile
  to failure; a cache that cannot be written rolls the trigger back.
"""

from __future__ import annotations

import re
from typing import ClassVar

from flowcore.model import FlowFile
from flowcore.processor import (
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

CACHE_SERVICE = PropertyDescriptor(
    name="distributed-cache-service",
    display_name="Distributed Cache Service",
    description="The Controller Service that is used to cache release signals in order to "
    "release files queued at a corresponding Wait processor",
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
SIGNAL_COUNTER_NAME = PropertyDescriptor(
    name="signal-counter-name",
    display_name="Signal Counter Name",
    description="A value, or the results of an Attribute Expression Language statement, "
    "which will be evaluated against a FlowFile in order to determine the signal counter "
    "name. Signal counter name is useful when a corresponding Wait processor needs to know "
    "the number of occurrences of different types of events, such as success or failure, or "
    "destination data source names, etc.",
    required=True,
    default="default",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
SIGNAL_COUNTER_DELTA = PropertyDescriptor(
    name="signal-counter-delta",
    display_name="Signal Counter Delta",
    description="A value, or the results of an Attribute Expression Language statement, "
    "which will be evaluated against a FlowFile in order to determine the signal counter "
    "delta. Specify how much the counter should increase. For example, if multiple signal "
    "events are processed at upstream flow in batch oriented way, the number of events "
    "processed can be notified with this property at once. Zero (0) has a special meaning, "
    "it clears target count back to 0, which is especially useful when used with Wait "
    "Releasable FlowFile Count = Zero (0) mode, to provide 'open-close-gate' type of flow "
    "control. One (1) can open a corresponding Wait processor, and Zero (0) can negate it "
    "as if closing a gate.",
    required=True,
    default="1",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
SIGNAL_BUFFER_COUNT = PropertyDescriptor(
    name="signal-buffer-count",
    display_name="Signal Buffer Count",
    description="Specify the maximum number of incoming flow files that can be buffered "
    "until signals are notified to cache service. The more buffer can provide the better "
    "performance, as it reduces the number of interactions with cache service by grouping "
    "signals by signal identifier when multiple incoming flow files share the same signal "
    "identifier.",
    required=True,
    default="1",
    validators=[validators.positive_integer],
)
ATTRIBUTE_CACHE_REGEX = PropertyDescriptor(
    name="attribute-cache-regex",
    display_name="Attribute Cache Regex",
    description="Any attributes whose names match this regex will be stored in the "
    "distributed cache to be copied to any FlowFiles released from a corresponding Wait "
    "processor.  Note that the uuid attribute will not be cached regardless of this value.  "
    "If blank, no attributes will be cached.",
    validators=[validators.regular_expression],
)

REL_SUCCESS = Relationship(
    "success",
    "All FlowFiles where the release signal has been successfully entered in the cache will "
    "be routed to this relationship",
)
REL_FAILURE = Relationship(
    "failure",
    "When the cache cannot be reached, or if the Release Signal Identifier evaluates to "
    "null or empty, FlowFiles will be routed to this relationship",
)


@processor("Notify")
class Notify(Processor):
    description: ClassVar[str] = (
        "Caches a release signal identifier in the distributed cache, optionally along with "
        "the FlowFile's attributes.  Any flow files held at a corresponding Wait processor "
        "will be released once this signal in the cache is discovered."
    )
    tags: ClassVar[tuple[str, ...]] = ("map", "cache", "notify", "distributed", "signal", "release")
    property_descriptors: ClassVar[tuple[PropertyDescriptor, ...]] = (
        RELEASE_SIGNAL_IDENTIFIER,
        SIGNAL_COUNTER_NAME,
        SIGNAL_COUNTER_DELTA,
        SIGNAL_BUFFER_COUNT,
        CACHE_SERVICE,
        ATTRIBUTE_CACHE_REGEX,
    )
    relationships: ClassVar[tuple[Relationship, ...]] = (REL_SUCCESS, REL_FAILURE)

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfiles = session.get_batch(context.get_property(SIGNAL_BUFFER_COUNT).as_int() or 1)
        if not flowfiles:
            return
        cache = context.get_property(CACHE_SERVICE).as_controller_service()
        assert isinstance(cache, MapCache)
        regex_text = context.get_property(ATTRIBUTE_CACHE_REGEX).value
        regex = re.compile(regex_text) if regex_text else None
        buffers: dict[str, tuple[dict[str, int], dict[str, str], list[FlowFile]]] = {}
        for flowfile in flowfiles:
            signal_id = context.get_property(RELEASE_SIGNAL_IDENTIFIER).evaluate(flowfile).as_str()
            if not signal_id.strip():
                self.logger.error(
                    "FlowFile %s has no attribute for given Release Signal Identifier",
                    flowfile.attributes.get("uuid"),
                )
                session.transfer(session.put_attribute(flowfile, "notified", "false"), REL_FAILURE)
                continue
            counter = context.get_property(SIGNAL_COUNTER_NAME).evaluate(flowfile).as_str()
            delta_text = context.get_property(SIGNAL_COUNTER_DELTA).evaluate(flowfile).as_str()
            try:
                delta = int(delta_text.strip())
            except ValueError:
                self.logger.error(
                    "Failed to calculate delta for FlowFile %s: %r is not an integer",
                    flowfile.attributes.get("uuid"),
                    delta_text,
                )
                session.transfer(session.put_attribute(flowfile, "notified", "false"), REL_FAILURE)
                continue
            deltas, attributes, members = buffers.setdefault(signal_id, ({}, {}, []))
            deltas[counter] = 0 if delta == 0 else deltas.get(counter, 0) + delta
            if regex is not None:
                attributes.update(
                    {
                        k: v
                        for k, v in flowfile.attributes.items()
                        if k != "uuid" and regex.fullmatch(k)
                    }
                )
            members.append(flowfile)
        for signal_id, (deltas, attributes, members) in buffers.items():
            _signals.notify(cache, signal_id, deltas, attributes)
            for flowfile in members:
                session.transfer(session.put_attribute(flowfile, "notified", "true"), REL_SUCCESS)
