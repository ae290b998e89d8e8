"""MergeEntities: Sesam's merge source as an incremental processor with a durable index.

Input FlowFiles carry the entities of one dataset each (a JSON array, a single object or
JSON lines); the attribute named by Dataset Attribute says which. Each trigger takes up to
Batch Size FlowFiles and resolves them together as one *unit*: their entities update the
entity index kept in the component's keyed state, the affected merged entities are
recomputed, and what changed is emitted as one JSON array (``_updated`` order) in a new
FlowFile to ``merged``, linked to the unit's inputs by one JOIN event whose details say
how many entities were merged, split, replaced and deleted. The inputs go to ``original``.
The index writes, the output and the provenance commit in one repository transaction.

When the index is still empty (the first load, or after the state was cleared: a reset)
the unit goes through the bulk path (``bulk.rebuild``), which gives exactly what the
incremental path would; its connected components run on Spark (``context.compute``) when
Bulk Engine says so, or, with ``auto``, when the unit has at least the engine's
``spark.offload_min_records`` entities. If Spark fails, the unit's FlowFiles go to
``failure`` with the reason, or the rebuild runs locally when ``spark.fallback_to_local``
is set; either way nothing is applied or emitted twice. A unit that would merge more than
``max_merged`` entities into one, or give two merged entities the same ``_id``, is
discarded as a whole and its FlowFiles are retried one by one, so only the FlowFiles at
fault go to ``failure`` (with the reason in ``MergeEntities.failure.reason``) and nothing
of them is applied. The rules are written down in ``docs/processors/merge_entities.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from flowcore.errors import SparkError
from flowcore.model.flowfile import FlowFile
from flowcore.offload.policy import OffloadPolicy
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
from processors.entities.bulk import (
    ComponentsEngine,
    assemble,
    collector_paused,
    prepare,
    write_rebuild,
)
from processors.entities.config import (
    SUPPORTED_VERSION,
    VERSION_MESSAGE,
    ConfigError,
    MergeConfig,
    parse_config,
)
from processors.entities.incremental import apply_changes
from processors.entities.index import EntityIndex, KeyedStore, StagedStore
from processors.entities.model import Change, MergeError, MergeResult, SourceEmpty
from processors.entities.output import encode_entities

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    from numpy.typing import NDArray

    from flowcore.offload import ComputeServices

# -- attributes ----------------------------------------------------------------------------

ATTR_REASON = "MergeEntities.failure.reason"
ATTR_EMITTED = "MergeEntities.emitted"
ATTR_MERGED = "MergeEntities.merged"
ATTR_SPLIT = "MergeEntities.split"
ATTR_REPLACED = "MergeEntities.replaced"
ATTR_DELETED = "MergeEntities.deleted"
ATTR_FIRST = "MergeEntities.updated.first"
ATTR_LAST = "MergeEntities.updated.last"
ATTR_POPULATED = "MergeEntities.populated"
ATTR_ENGINE = "MergeEntities.bulk.engine"

# -- properties (name: Sesam's property name; display name: NiFi style) ---------------------


def _version(subject: str, value: str) -> ValidationResult:
    ok = value.strip() == str(SUPPORTED_VERSION)
    return ValidationResult(subject, ok, value, "" if ok else VERSION_MESSAGE)


DATASET_ATTRIBUTE = PropertyDescriptor(
    name="Dataset Attribute",
    display_name="Dataset Attribute",
    description="The FlowFile attribute that names the dataset the FlowFile's entities "
    "belong to (one of the names in Datasets).",
    required=True,
    default="dataset",
    validators=[validators.attribute_name],
)
DATASETS = PropertyDescriptor(
    name="datasets",
    display_name="Datasets",
    description='The datasets to merge, as "<dataset> <alias>" pairs (a JSON array of '
    "strings, or items separated by commas or new lines). A dataset's offset is its index "
    "in this list; composite ids and merge order use it.",
    required=True,
)
EQUALITY = PropertyDescriptor(
    name="equality",
    display_name="Equality",
    description='A JSON array of ["eq", left, right] rules deciding which entities are the '
    'same; each side is an alias-qualified path ("a.x") or a DTL function (lower, upper, '
    "string, integer) of one, referencing exactly one alias.",
)
EQUALITY_SETS = PropertyDescriptor(
    name="equality_sets",
    display_name="Equality Sets",
    description="A JSON array of arrays of value expressions; each set [e1, ..., en] adds "
    "the rules eq(e1,e2), ..., eq(e(n-1),en) to Equality.",
)
IDENTITY = PropertyDescriptor(
    name="identity",
    display_name="Identity",
    description="How the _id of a merged entity is made: composite (every member as "
    "<offset>|<_id>, in merge order) or first (the _id of the first member).",
    required=True,
    default="composite",
    allowable_values=(
        AllowableValue("composite", "composite", "Composed of all the members' ids"),
        AllowableValue("first", "first", "The id of the first member in merge order"),
    ),
)
STRATEGY = PropertyDescriptor(
    name="strategy",
    display_name="Strategy",
    description="How the members' properties are combined: default (union of all values, "
    "duplicates kept), compact (duplicates removed, empty lists dropped, single values "
    "unwrapped) or list ($merged holds the member entities).",
    required=True,
    default="default",
    allowable_values=("default", "compact", "list"),
)
MAX_MERGED = PropertyDescriptor(
    name="max_merged",
    display_name="Max Merged",
    description="The most entities that may be merged into one; a FlowFile that would "
    "exceed it goes to failure and none of its entities is applied.",
    required=True,
    default="50000",
    validators=[validators.positive_integer],
)
VERSION = PropertyDescriptor(
    name="version",
    display_name="Version",
    description="The merge source version; only 2 is supported.",
    required=True,
    default=str(SUPPORTED_VERSION),
    validators=[_version],
)
IF_SOURCE_EMPTY = PropertyDescriptor(
    name="if_source_empty",
    display_name="If Source Empty",
    description="accept: a FlowFile without entities is processed (nothing changes); fail: "
    "it goes to failure (and a bulk rebuild over no entities fails instead of deleting).",
    required=True,
    default="accept",
    allowable_values=("accept", "fail"),
)
INITIAL_DATASETS = PropertyDescriptor(
    name="initial_datasets",
    display_name="Initial Datasets",
    description="The datasets that must have delivered entities before the merged view "
    "counts as populated (MergeEntities.populated); by default all of them.",
)
IGNORE_NON_EXISTENT = PropertyDescriptor(
    name="ignore_non_existent_datasets",
    display_name="Ignore Non-Existent Datasets",
    description="If false, an Initial Datasets entry that is not in Datasets keeps the view "
    "from ever counting as populated; if true it is ignored.",
    required=True,
    default="true",
    allowable_values=("true", "false"),
)
INCLUDE_INTERNAL = PropertyDescriptor(
    name="include_internal_properties",
    display_name="Include Internal Properties",
    description="With strategy list: keep the members' internal properties (those starting "
    "with _, such as _ts) in $merged; _id is always kept.",
    required=True,
    default="false",
    allowable_values=("true", "false"),
)
BATCH_SIZE = PropertyDescriptor(
    name="Batch Size",
    display_name="Batch Size",
    description="The most FlowFiles taken per trigger. They are resolved together (one "
    "output FlowFile), as a Sesam pipe run resolves all pending changes before emitting.",
    required=True,
    default="100",
    validators=[validators.positive_integer],
)

BULK_ENGINE = PropertyDescriptor(
    name="Bulk Engine",
    display_name="Bulk Engine",
    description="Where a full rebuild of the merged view (the first load into an empty "
    "index, or after a reset) computes its connected components: local (this process), "
    "spark (the engine's shared SparkSession, context.compute), or auto: Spark when the "
    "rebuild has at least the engine's spark.offload_min_records entities. The output is "
    "the same whichever runs it.",
    required=True,
    default="auto",
    allowable_values=(
        AllowableValue("auto", "auto", "Spark from spark.offload_min_records entities"),
        AllowableValue("local", "local", "Always in this process"),
        AllowableValue("spark", "spark", "Always on Spark"),
    ),
)

_SESAM_PROPERTIES = (
    DATASETS,
    EQUALITY,
    EQUALITY_SETS,
    IDENTITY,
    STRATEGY,
    MAX_MERGED,
    VERSION,
    IF_SOURCE_EMPTY,
    INITIAL_DATASETS,
    IGNORE_NON_EXISTENT,
    INCLUDE_INTERNAL,
)

# -- relationships -------------------------------------------------------------------------

MERGED = Relationship(
    "merged",
    "The merged entities emitted for each unit of input FlowFiles, as a JSON array in "
    "_updated order (new and changed entities first, then $replaced deletes).",
)
ORIGINAL = Relationship("original", "The input FlowFiles, once their entities are applied.")
FAILURE = Relationship(
    "failure",
    "Input FlowFiles that could not be applied (unknown dataset, unreadable or too deeply "
    "nested entities, max_merged exceeded, identity collision, no entities with If Source "
    "Empty fail, a bulk rebuild Spark could not run); nothing of them is applied. The "
    "reason is in MergeEntities.failure.reason.",
)


# -- reading input -------------------------------------------------------------------------


class EntityFormatError(ValueError):
    """FlowFile content that is not entities; ``str()`` says why."""


_decoder = msgspec.json.Decoder()


def parse_entities(data: bytes) -> list[dict[str, Any]]:
    """Entities from a JSON array, a single JSON object or JSON lines."""
    text = data.strip()
    if not text:
        return []
    try:
        decoded = _decoder.decode(text)
        items = decoded if isinstance(decoded, list) else [decoded]
    except RecursionError:
        msg = "the content is JSON nested too deeply to read"
        raise EntityFormatError(msg) from None
    except msgspec.DecodeError:
        try:
            items = [_decoder.decode(line) for line in text.splitlines() if line.strip()]
        except msgspec.DecodeError as exc:
            msg = f"the content is neither a JSON array nor JSON lines: {exc}"
            raise EntityFormatError(msg) from None
    for number, item in enumerate(items):
        if not isinstance(item, dict):
            raise EntityFormatError(f"entity {number} is not a JSON object")
        identifier = item.get("_id")
        if not isinstance(identifier, str) or not identifier:
            raise EntityFormatError(f"entity {number} has no string _id")
    return items


@dataclass(frozen=True, slots=True)
class _Input:
    flowfile: FlowFile
    dataset: str
    entities: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class _Applied:
    result: MergeResult
    populated: bool
    engine: str | None
    """The bulk engine that computed the components ("local", "spark"); None if incremental."""


BulkEngineChoice = Callable[[int], ComponentsEngine | None]
"""Entity count of a bulk rebuild -> the components engine to use (None: local)."""


def apply_unit(
    store: KeyedStore,
    config: MergeConfig,
    changes: Sequence[Change],
    *,
    bulk_engine: BulkEngineChoice | None = None,
    spark_fallback: Callable[[SparkError], bool] | None = None,
) -> _Applied:
    """Apply one unit to the index in ``store`` (all of it, or raise and write nothing).

    Raises ``MergeError`` for the unit's entities, ``SparkError`` when the bulk engine
    chosen by ``bulk_engine`` fails and ``spark_fallback`` (given the error) does not
    return True; with True the components are computed locally from the same prepared
    members. Nothing is written when it raises.
    """
    try:
        return _apply_unit(store, config, changes, bulk_engine, spark_fallback)
    except RecursionError:
        # A value nested hundreds of levels deep, met while keying it for comparison.
        msg = "an entity holds a value nested too deeply to compare"
        raise MergeError(msg) from None


def _apply_unit(
    store: KeyedStore,
    config: MergeConfig,
    changes: Sequence[Change],
    bulk_engine: BulkEngineChoice | None,
    spark_fallback: Callable[[SparkError], bool] | None,
) -> _Applied:
    staged = StagedStore(store)
    index = EntityIndex(staged)
    engine: str | None = None
    if index.is_empty():
        with collector_paused():
            prepared = prepare(config, changes)
            components = bulk_engine(len(prepared.refs)) if bulk_engine is not None else None
            labels: NDArray[np.int64] | None = None
            if components is not None:
                try:
                    labels = components(prepared.edge_table(), len(prepared.refs))
                    engine = "spark"
                except SparkError as exc:
                    if spark_fallback is None or not spark_fallback(exc):
                        raise
            if labels is None:
                engine = "local"
                labels = prepared.local_components()
            built = assemble(config, prepared, labels, start=0)
            del prepared
            write_rebuild(index, built)
        result = built.result
    else:
        result = apply_changes(index, config, changes)
    delivered = dict.fromkeys(c.dataset for c in changes)
    for dataset in delivered:
        index.mark_seen(dataset)
    # The datasets seen before, read below the unit's staged writes (a scan through those
    # would go over all of them), and the unit's own.
    populated = config.populated(EntityIndex(store).datasets_seen() | delivered.keys())
    staged.flush()
    return _Applied(result, populated, engine)


def spark_components(compute: ComputeServices) -> ComponentsEngine:
    """Connected components on the engine's SparkSession, through its staging area."""

    def run(edges: pa.Table, member_count: int) -> NDArray[np.int64]:
        from processors.entities.bulk_components import (
            components_spark,
            read_components,
            write_edges,
        )

        spark = compute.spark_session()
        with (
            compute.staging_job("merge-entities") as directory,
            compute.spark_errors("MergeEntities connected components"),
        ):
            edges_path = write_edges(edges, directory / "edges.parquet")
            labels = components_spark(spark, edges_path, directory / "labels", member_count)
            return read_components(labels, member_count)

    return run


# -- the processor -------------------------------------------------------------------------


@processor("MergeEntities")
class MergeEntities(Processor):
    """Sesam's merge source (version 2), incremental, with its index in keyed state."""

    description = (
        "Infers which entities from several datasets are the same thing by transitive "
        "equality rules (Sesam's merge source, version 2) and keeps the merged view up to "
        "date as entities arrive, change, split apart and are deleted. The entity index is "
        "kept in the processor's keyed state and committed with each session."
    )
    tags = ("merge", "entity", "sesam", "deduplicate", "master data")
    property_descriptors = (DATASET_ATTRIBUTE, *_SESAM_PROPERTIES, BATCH_SIZE, BULK_ENGINE)
    relationships = (MERGED, ORIGINAL, FAILURE)
    scheduling = Scheduling(trigger_serially=True, input_required=True, extra={"stateful": "KEYED"})

    def __init__(self) -> None:
        super().__init__()
        self._config: MergeConfig | None = None

    @staticmethod
    def _parse(context: ProcessContext) -> MergeConfig:
        properties = {
            d.name: context.get_property(d).as_str()
            for d in _SESAM_PROPERTIES
            if context.get_property(d).is_set
        }
        labels = {d.name: d.label for d in _SESAM_PROPERTIES}
        return parse_config(properties, labels)

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        try:
            self._parse(context)
        except ConfigError as exc:
            return [ValidationResult(exc.prop, False, exc.value, str(exc))]
        return []

    def on_scheduled(self, context: ProcessContext) -> None:
        self._config = self._parse(context)

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        """Read a batch, apply it as one unit (or FlowFile by FlowFile if it fails).

        The cyclic garbage collector is paused meanwhile: a unit allocates hundreds of
        thousands of short-lived acyclic objects (records, entities, outputs), freed by
        reference counting, which would otherwise trigger collections that rescan the
        whole heap (a third of an incremental unit's time).
        """
        with collector_paused():
            self._trigger(context, session)

    def _trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        config = self._config or self._parse(context)
        flowfiles = session.get_batch(context.get_property(BATCH_SIZE).as_int() or 100)
        if not flowfiles:
            return
        attribute = context.get_property(DATASET_ATTRIBUTE).as_str()
        inputs: list[_Input] = []
        for flowfile in flowfiles:
            dataset = flowfile.attributes.get(attribute)
            if dataset is None or dataset not in config.by_name:
                known = ", ".join(d.name for d in config.datasets)
                self._fail(
                    session,
                    flowfile,
                    f"the attribute {attribute} is {dataset!r}, not one of the datasets {known}",
                )
                continue
            try:
                entities = parse_entities(session.read(flowfile))
            except EntityFormatError as exc:
                self._fail(session, flowfile, str(exc))
                continue
            if not entities and config.if_source_empty == "fail":
                self._fail(session, flowfile, str(SourceEmpty()))
                continue
            inputs.append(_Input(flowfile, dataset, entities))
        if not inputs:
            return
        store = session.keyed_state

        def fall_back(exc: SparkError) -> bool:
            if not self._offload_policy(context).fallback_to_local:
                return False
            context.logger.warning("bulk rebuild on Spark failed, running it locally: %s", exc)
            return True

        try:
            applied = apply_unit(
                store,
                config,
                _changes(inputs),
                bulk_engine=self._bulk_engine(context),
                spark_fallback=fall_back,
            )
        except SparkError as exc:
            for one in inputs:
                self._fail(session, one.flowfile, f"Spark: {exc.reason}")
            return
        except MergeError as exc:
            self._isolate(session, store, config, inputs, exc)
            return
        self._emit(session, inputs, applied)

    @staticmethod
    def _offload_policy(context: ProcessContext) -> OffloadPolicy:
        """Bulk Engine with the engine's offload settings."""
        engine = context.get_property(BULK_ENGINE).as_str() or "auto"
        return OffloadPolicy.of(engine, context.compute.settings)

    @classmethod
    def _bulk_engine(cls, context: ProcessContext) -> BulkEngineChoice:
        """Bulk Engine as a choice by entity count (Spark's settings read only if needed)."""
        if context.get_property(BULK_ENGINE).as_str() == "local":
            return lambda count: None

        def choose(count: int) -> ComponentsEngine | None:
            if cls._offload_policy(context).offloads(count):
                return spark_components(context.compute)
            return None

        return choose

    def _isolate(
        self,
        session: ProcessSession,
        store: KeyedStore,
        config: MergeConfig,
        inputs: list[_Input],
        exc: MergeError,
    ) -> None:
        """A unit failed: find the FlowFiles at fault, each alone, in queue order."""
        if len(inputs) == 1:
            self._fail(session, inputs[0].flowfile, str(exc))
            return
        for one in inputs:
            self._apply_alone(session, store, config, one)

    def _apply_alone(
        self, session: ProcessSession, store: KeyedStore, config: MergeConfig, one: _Input
    ) -> None:
        try:
            applied = apply_unit(store, config, _changes([one]))
        except MergeError as exc:
            self._fail(session, one.flowfile, str(exc))
            return
        self._emit(session, [one], applied)

    def _emit(self, session: ProcessSession, inputs: list[_Input], applied: _Applied) -> None:
        result = applied.result
        parents = [i.flowfile for i in inputs]
        received = sum(len(i.entities) for i in inputs)
        session.adjust_counter("Entities received", received)
        session.adjust_counter("Entities emitted", len(result.emitted))
        if result.emitted:
            output = session.create(parents)
            output = session.write(output, encode_entities(result.emitted))
            output = session.put_all_attributes(
                output,
                {
                    "filename": f"merged-{result.emitted[0]['_updated']:012d}.json",
                    "mime.type": "application/json",
                    "record.count": str(len(result.emitted)),
                    ATTR_EMITTED: str(len(result.emitted)),
                    ATTR_MERGED: str(result.merged),
                    ATTR_SPLIT: str(result.split),
                    ATTR_REPLACED: str(result.replaced),
                    ATTR_DELETED: str(result.deleted),
                    ATTR_FIRST: str(result.emitted[0]["_updated"]),
                    ATTR_LAST: str(result.emitted[-1]["_updated"]),
                    ATTR_POPULATED: "true" if applied.populated else "false",
                },
            )
            if applied.engine is not None:
                output = session.put_attribute(output, ATTR_ENGINE, applied.engine)
            session.provenance.join(parents, output, details=result.details)
            session.transfer(output, MERGED)
        for parent in parents:
            session.transfer(parent, ORIGINAL)

    @staticmethod
    def _fail(session: ProcessSession, flowfile: FlowFile, reason: str) -> None:
        flowfile = session.put_attribute(flowfile, ATTR_REASON, reason)
        session.transfer(flowfile, FAILURE)


def _changes(inputs: Sequence[_Input]) -> list[Change]:
    return [Change(i.dataset, entity) for i in inputs for entity in i.entities]
