"""Merging a bin by key: the configuration, its validation, and the engine run.

With *Record Key Field(s)* set, MergeRecord keeps one record per key after every update and
delete of a bin (``processors.merge.mergers``, Hudi RFC-101 rules). This module turns the
by-key properties into a ``KeyedMergeSpec`` and checks them, chooses the engine for a bin
(local, spark, or auto from the offload thresholds: ``OffloadPolicy``), and runs the merge
there: when Spark cannot merge the bin, the bin fails or, if the policy allows, is merged
locally.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa

from flowcore.errors import SparkJobError, SparkUnavailableError
from flowcore.offload.policy import OffloadPolicy
from flowcore.processor import ProcessContext, PropertyDescriptor, ValidationResult
from processors.merge.bins import Bin
from processors.merge.mergers.api import PartialUpdateMode, RecordMergeMode
from processors.merge.mergers.custom import CustomMergerError, load_merger_class
from processors.merge.mergers.deletes import DeleteMarkers
from processors.merge.mergers.local_engine import merge_locally
from processors.merge.mergers.spec import KeyedMergeSpec, MergedBin, MergeEngine
from processors.merge.properties import (
    CUSTOM_MERGER_CLASS,
    DELETE_HANDLING,
    DELETE_MARKER_FIELD,
    DELETE_MARKER_VALUE,
    IS_DELETED_FIELD,
    KEEP_TOMBSTONES,
    KEYED_PROPERTIES,
    MERGE_ENGINE,
    OPERATION_FIELD,
    ORDERING_FIELDS,
    PARTIAL_UPDATE_MARKER,
    PARTIAL_UPDATE_MODE,
    RECORD_KEY_FIELDS,
    RECORD_MERGE_MODE,
)


def _field_list(value: str | None) -> tuple[str, ...]:
    """The names of a comma-separated list, stripped; empty entries dropped."""
    return tuple(part.strip() for part in (value or "").split(",") if part.strip())


def _optional(context: ProcessContext, descriptor: PropertyDescriptor) -> str | None:
    """The property's value, or None when it is not set or empty."""
    value = context.get_property(descriptor).value
    return value if value else None


def keyed_spec(context: ProcessContext) -> KeyedMergeSpec | None:
    """The merge-by-key configuration, or None when no Record Key Field(s) is set."""
    keys = _field_list(context.get_property(RECORD_KEY_FIELDS).value)
    if not keys:
        return None
    ordering = _field_list(context.get_property(ORDERING_FIELDS).value)
    mode_text = _optional(context, RECORD_MERGE_MODE)
    if mode_text:
        mode = RecordMergeMode(mode_text)
    elif ordering:
        mode = RecordMergeMode.EVENT_TIME_ORDERING
    else:
        mode = RecordMergeMode.COMMIT_TIME_ORDERING
    return KeyedMergeSpec(
        key_fields=keys,
        ordering_fields=ordering,
        mode=mode,
        custom_merger=_optional(context, CUSTOM_MERGER_CLASS),
        allowed_custom_modules=tuple(context.settings.record_mergers.allowed_custom_modules),
        delete_markers=DeleteMarkers(
            operation_field=_optional(context, OPERATION_FIELD),
            is_deleted_field=_optional(context, IS_DELETED_FIELD),
            custom_field=_optional(context, DELETE_MARKER_FIELD),
            custom_marker=_optional(context, DELETE_MARKER_VALUE),
        ),
        partial_update_mode=PartialUpdateMode(
            context.get_property(PARTIAL_UPDATE_MODE).as_str() or PartialUpdateMode.NONE.value
        ),
        partial_update_marker=_optional(context, PARTIAL_UPDATE_MARKER),
        keep_tombstones=context.get_property(DELETE_HANDLING).as_str() == KEEP_TOMBSTONES,
    )


def validate_keyed(context: ProcessContext) -> list[ValidationResult]:
    """Merging-by-key properties: dependencies, the delete marker pair, the merger."""
    results: list[ValidationResult] = []
    key_label = RECORD_KEY_FIELDS.label

    def invalid(descriptor: PropertyDescriptor, why: str) -> None:
        results.append(ValidationResult(descriptor.label, False, explanation=why))

    if not _field_list(context.get_property(RECORD_KEY_FIELDS).value):
        # Set without a key: a property without a default set at all, one with a
        # default set to anything else (Partial Update Mode: anything but NONE).
        for descriptor in KEYED_PROPERTIES:
            if descriptor is RECORD_KEY_FIELDS:
                continue
            value = _optional(context, descriptor)
            if value and value != descriptor.default:
                invalid(descriptor, f"<{descriptor.label}> requires <{key_label}> to be set")
        return results
    marker_field = _optional(context, DELETE_MARKER_FIELD)
    marker_value = _optional(context, DELETE_MARKER_VALUE)
    if marker_field and not marker_value:
        invalid(
            DELETE_MARKER_VALUE,
            f"<{DELETE_MARKER_VALUE.label}> must be set when <{DELETE_MARKER_FIELD.label}> is set",
        )
    if marker_value and not marker_field:
        invalid(
            DELETE_MARKER_FIELD,
            f"<{DELETE_MARKER_FIELD.label}> must be set when <{DELETE_MARKER_VALUE.label}> is set",
        )
    spec = keyed_spec(context)
    assert spec is not None
    if spec.mode is RecordMergeMode.CUSTOM:
        if not spec.custom_merger:
            invalid(
                CUSTOM_MERGER_CLASS,
                f"<{CUSTOM_MERGER_CLASS.label}> must be set when "
                f"<{RECORD_MERGE_MODE.label}> is {RecordMergeMode.CUSTOM.value}",
            )
        else:
            try:
                load_merger_class(spec.custom_merger, spec.allowed_custom_modules)
            except CustomMergerError as exc:
                results.append(
                    ValidationResult(CUSTOM_MERGER_CLASS.label, False, spec.custom_merger, str(exc))
                )
    if (
        spec.partial_update_mode is PartialUpdateMode.IGNORE_MARKERS
        and not spec.partial_update_marker
    ):
        invalid(
            PARTIAL_UPDATE_MARKER,
            f"<{PARTIAL_UPDATE_MARKER.label}> must be set when "
            f"<{PARTIAL_UPDATE_MODE.label}> is {PartialUpdateMode.IGNORE_MARKERS.value}",
        )
    return results


SPARK_ERRORS = (SparkUnavailableError, SparkJobError)
"""What means "Spark could not merge this bin": fail it, or fall back to local."""


def merge_on_spark(
    context: ProcessContext, parts: Sequence[pa.Table], spec: KeyedMergeSpec
) -> MergedBin:
    """Hand the bin to the Spark engine, imported when first needed (it imports pyspark)."""
    try:
        module = importlib.import_module("processors.merge.mergers.spark_engine")
    except ImportError as exc:
        msg = f"the Spark engine is not available: {exc}"
        raise SparkUnavailableError(msg) from exc
    result = module.merge_on_spark(context.compute, parts, spec)
    if not isinstance(result, MergedBin):
        msg = f"the Spark engine returned {type(result).__name__}, not a MergedBin"
        raise TypeError(msg)
    return result


@dataclass(frozen=True, slots=True)
class KeyedOutcome:
    """A keyed merge's result, or why the bin fails; ``fallback`` why Spark was left."""

    merged: MergedBin | None = None
    failure: str | None = None
    fallback: str | None = None


def offload_policy(context: ProcessContext) -> OffloadPolicy:
    """The Merge Engine property with the engine's offload settings."""
    engine = context.get_property(MERGE_ENGINE).as_str() or MergeEngine.AUTO
    return OffloadPolicy.of(engine, context.compute.settings)


def engine_for(policy: OffloadPolicy, target: Bin) -> MergeEngine:
    """``auto``: Spark from the offload thresholds (records or input bytes) up."""
    if policy.offloads(target.record_count, target.input_bytes):
        return MergeEngine.SPARK
    return MergeEngine.LOCAL


def merge_by_key(
    context: ProcessContext, target: Bin, spec: KeyedMergeSpec, logger: logging.Logger
) -> KeyedOutcome:
    """Merge the bin on the chosen engine; Spark errors fail it or fall back to local."""
    fallback: str | None = None
    policy = offload_policy(context)
    if engine_for(policy, target) is MergeEngine.SPARK:
        try:
            return KeyedOutcome(merged=merge_on_spark(context, target.parts, spec))
        except SPARK_ERRORS as exc:
            reason = exc.reason
            if not policy.fallback_to_local:
                logger.error("Spark could not merge a bin: %s", reason)
                return KeyedOutcome(failure=f"Spark: {reason}")
            logger.warning("Spark could not merge a bin (%s); merging locally", reason)
            fallback = reason
        except Exception as exc:  # the bin's own records (as on the local path)
            logger.error("merging a bin by key failed: %s", exc)
            return KeyedOutcome(failure=f"{type(exc).__name__}: {exc}")
    try:
        merged = merge_locally(target.parts, spec)
    except Exception as exc:
        logger.error("merging a bin by key failed: %s", exc)
        return KeyedOutcome(failure=f"{type(exc).__name__}: {exc}")
    return KeyedOutcome(merged=merged, fallback=fallback)
