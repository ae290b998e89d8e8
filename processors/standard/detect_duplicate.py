"""DetectDuplicate: routes a FlowFile by whether its Cache Entry Identifier was seen before.

Follows NiFi's DetectDuplicate, on a map cache service (LmdbMapCacheService). Choices:

* The cache entry holds the FlowFile Description, the time it was cached (injected clock;
  Age Off Duration compares against it) and the uuid of the FlowFile that cached it.
* The entry is cached before the session commits (as in NiFi, so concurrent tasks see it
  at once). If the session then rolls back, or the process dies before the commit, the
  same FlowFile comes back and finds the entry it cached itself: an entry carrying the
  FlowFile's own uuid is not a duplicate of it, so a retry never routes a first sighting
  to ``duplicate``.
* A blank Cache Entry Identifier, or a cache that cannot be read or written, sends the
  FlowFile to failure (penalized).
"""

from __future__ import annotations

import json
from typing import ClassVar

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
from processors.standard.map_cache import MapCache

ORIGINAL_DESCRIPTION = "original.flowfile.description"

CACHE_ENTRY_IDENTIFIER = PropertyDescriptor(
    name="Cache Entry Identifier",
    display_name="Cache Entry Identifier",
    description="A FlowFile attribute, or the results of an Attribute Expression Language "
    "statement, which will be evaluated against a FlowFile in order to determine the value "
    "used to identify duplicates; it is this value that is cached",
    required=True,
    default="${hash.value}",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
FLOWFILE_DESCRIPTION = PropertyDescriptor(
    name="FlowFile Description",
    display_name="FlowFile Description",
    description="When a FlowFile is added to the cache, this value is stored along with it "
    "so that if a duplicate is found, this description of the original FlowFile will be "
    'added to the duplicate\'s "original.flowfile.description" attribute',
    required=True,
    default="",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
AGE_OFF_DURATION = PropertyDescriptor(
    name="Age Off Duration",
    display_name="Age Off Duration",
    description="Time interval to age off cached FlowFiles",
    validators=[validators.time_period],
)
CACHE_SERVICE = PropertyDescriptor(
    name="Distributed Cache Service",
    display_name="Distributed Cache Service",
    description="The Controller Service that is used to cache unique identifiers, used to "
    "determine duplicates",
    required=True,
    controller_service=MapCache,
)
CACHE_IDENTIFIER = PropertyDescriptor(
    name="Cache The Entry Identifier",
    display_name="Cache The Entry Identifier",
    description="When true this cause the processor to check for duplicates and cache the "
    "Entry Identifier. When false, the processor would only check for duplicates and not "
    "cache the Entry Identifier, requiring another processor to add identifiers to the "
    "distributed cache.",
    default="true",
    allowable_values=("true", "false"),
)

REL_DUPLICATE = Relationship(
    "duplicate",
    "If a FlowFile has been detected to be a duplicate, it will be routed to this relationship",
)
REL_NON_DUPLICATE = Relationship(
    "non-duplicate",
    "If a FlowFile's Cache Entry Identifier was not found in the cache, it will be routed "
    "to this relationship",
)
REL_FAILURE = Relationship(
    "failure",
    "If unable to communicate with the cache, the FlowFile will be penalized and routed to "
    "this relationship",
)


def encode_entry(description: str, time_ms: int, owner: str) -> bytes:
    """The cached value: description, time cached, uuid of the FlowFile that cached it."""
    return json.dumps({"description": description, "time": time_ms, "uuid": owner}).encode()


def decode_entry(value: bytes) -> tuple[str, int, str | None]:
    try:
        data = json.loads(value)
        return str(data["description"]), int(data["time"]), data.get("uuid")
    except (ValueError, KeyError, TypeError):
        return value.decode("utf-8", "replace"), 0, None


@processor("DetectDuplicate")
class DetectDuplicate(Processor):
    description: ClassVar[str] = (
        "Caches a value, computed from FlowFile attributes, for each incoming FlowFile and "
        "determines if the cached value has already been seen. If so, routes the FlowFile to "
        "'duplicate' with an attribute named 'original.identifier' that specifies the "
        'original FlowFile\'s "description", which is specified in the <FlowFile '
        "Description> property. If the FlowFile is not determined to be a duplicate, the "
        "Processor routes the FlowFile to 'non-duplicate'"
    )
    tags: ClassVar[tuple[str, ...]] = ("hash", "dupe", "duplicate", "dedupe")
    property_descriptors: ClassVar[tuple[PropertyDescriptor, ...]] = (
        CACHE_ENTRY_IDENTIFIER,
        FLOWFILE_DESCRIPTION,
        AGE_OFF_DURATION,
        CACHE_SERVICE,
        CACHE_IDENTIFIER,
    )
    relationships: ClassVar[tuple[Relationship, ...]] = (
        REL_DUPLICATE,
        REL_NON_DUPLICATE,
        REL_FAILURE,
    )

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        key = context.get_property(CACHE_ENTRY_IDENTIFIER).evaluate(flowfile).as_str()
        if not key.strip():
            self.logger.error(
                "FlowFile %s has no attribute for given Cache Entry Identifier",
                flowfile.attributes.get("uuid"),
            )
            session.transfer(session.penalize(flowfile), REL_FAILURE)
            return
        cache = context.get_property(CACHE_SERVICE).as_controller_service()
        assert isinstance(cache, MapCache)
        now = context.now_ms()
        own = flowfile.attributes.get("uuid", "")
        description = context.get_property(FLOWFILE_DESCRIPTION).evaluate(flowfile).as_str()
        entry = encode_entry(description, now, own)
        should_cache = context.get_property(CACHE_IDENTIFIER).as_bool()
        try:
            found = (
                cache.get_and_put_if_absent(key.encode(), entry)
                if should_cache
                else cache.get(key.encode())
            )
            duplicate = found is not None
            original = ""
            if found is not None:
                original, cached_ms, owner = decode_entry(found)
                age_off = context.get_property(AGE_OFF_DURATION).as_time_period_ms()
                if owner == own:
                    duplicate = False
                elif age_off is not None and cached_ms < now - age_off:
                    duplicate = False
                    if should_cache:
                        cache.put(key.encode(), entry)
        except Exception as exc:
            self.logger.error("Unable to communicate with cache when processing %s: %s", own, exc)
            session.transfer(session.penalize(flowfile), REL_FAILURE)
            return
        if duplicate:
            flowfile = session.put_attribute(flowfile, ORIGINAL_DESCRIPTION, original)
            session.transfer(flowfile, REL_DUPLICATE)
        else:
            session.transfer(flowfile, REL_NON_DUPLICATE)
