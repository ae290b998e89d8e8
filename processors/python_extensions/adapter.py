"""A NiFi Python processor as a flowcore processor.

One adapter class is made per discovered Python class (``adapter_class``); each flow
component gets its own Python object. The adapter declares the Python processor's
properties (NiFi's validators mapped to flowcore's) and relationships, calls it in
NiFi's order (construct, ``logger``/``identifier``, ``onScheduled``, ``setContext``,
then per trigger ``transformFlowFile``/``transformRecord``/``createFlowFile``,
``onStopped``) and maps the results to the session as NiFi's Java proxies do.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import pyarrow as pa

from flowcore.errors import ConfigurationError
from flowcore.model import FlowFile
from flowcore.processor import (
    ExpressionLanguageScope,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    Scheduling,
    ValidationResult,
)
from flowcore.session import ProcessSession
from flowcore.session.session import OpenContent
from nifiapi import properties as api
from nifiapi.logging import Logger
from nifiapi.properties import dependencies_met
from nifiapi.relationship import Relationship as ApiRelationship
from processors.python_extensions.discovery import ExtensionInfo, missing_requirements
from processors.python_extensions.loader import instantiate, python_class
from processors.python_extensions.validators import flowcore_validator
from processors.python_extensions.views import (
    AttributeMap,
    InputFlowFile,
    PropertyEngine,
    SessionState,
)
from processors.record._common import schema_of_rows
from processors.record.api import (
    FlowFileContent,
    RecordReader,
    RecordReaderFactory,
    RecordSetWriter,
    RecordSetWriterFactory,
    as_reader_factory,
    as_writer_factory,
    source_of,
)

SUCCESS = Relationship("success", "All FlowFiles that are created are routed to success")
ORIGINAL = Relationship(
    "original", "The original FlowFile is routed to this relationship when processing succeeds"
)
FAILURE = Relationship("failure", "FlowFiles that cannot be processed are routed to failure")

RECORD_READER = PropertyDescriptor(
    name="Record Reader",
    display_name="Record Reader",
    description="Specifies the Controller Service to use for reading incoming data",
    required=True,
    controller_service=RecordReaderFactory,
)
RECORD_WRITER = PropertyDescriptor(
    name="Record Writer",
    display_name="Record Writer",
    description="Specifies the Controller Service to use for writing out the records",
    required=True,
    controller_service=RecordSetWriterFactory,
)

_SCOPES = {
    api.ExpressionLanguageScope.NONE: ExpressionLanguageScope.NONE,
    api.ExpressionLanguageScope.ENVIRONMENT: ExpressionLanguageScope.ENVIRONMENT,
    api.ExpressionLanguageScope.FLOWFILE_ATTRIBUTES: ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
}


def _scope(value: object) -> ExpressionLanguageScope:
    if isinstance(value, api.ExpressionLanguageScope):
        return _SCOPES[value]
    name = getattr(value, "name", value)
    try:
        return ExpressionLanguageScope(str(name))
    except ValueError:
        return ExpressionLanguageScope.NONE


def to_flowcore(descriptor: api.PropertyDescriptor) -> PropertyDescriptor:
    """A nifiapi descriptor as flowcore's. A property that depends on another is never
    required here: the adapter checks it once its dependencies are met."""
    validators = [
        mapped for mapped in map(flowcore_validator, descriptor.validators) if mapped is not None
    ]
    return PropertyDescriptor(
        name=descriptor.name,
        display_name=descriptor.displayName or descriptor.name,
        description=descriptor.description or "",
        default=descriptor.defaultValue,
        required=bool(descriptor.required) and not descriptor.dependencies,
        allowable_values=tuple(str(a) for a in descriptor.allowableValues or ()),
        validators=validators,
        expression_language_scope=_scope(descriptor.expressionLanguageScope),
        controller_service=descriptor.controllerServiceDefinition is not None,
        sensitive=bool(descriptor.sensitive),
        dynamic=bool(descriptor.dynamic),
        external_resource=descriptor.resourceDefinition is not None,
    )


def _to_relationship(relationship: object) -> Relationship:
    if isinstance(relationship, ApiRelationship):
        return Relationship(
            relationship.name, relationship.description or "", relationship.auto_terminated
        )
    name = str(getattr(relationship, "name", relationship))
    return Relationship(name, str(getattr(relationship, "description", "") or ""))


def _text(value: object) -> str:
    """A partition value as an attribute, as Java's ``Objects.toString``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class PythonProcessorAdapter(Processor):
    """Runs one NiFi Python processor; subclasses per kind of processor."""

    extension: ClassVar[ExtensionInfo]
    missing: ClassVar[tuple[str, ...]] = ()
    python_type: ClassVar[type[Any] | None] = None
    api_descriptors: ClassVar[tuple[api.PropertyDescriptor, ...]] = ()
    nifi_bundle: ClassVar[tuple[str, str, str]] = ("org.apache.nifi", "python-extensions", "")
    """NiFi's bundle of the processor (group, artifact, its ProcessorDetails version), for
    export."""

    def __init__(self) -> None:
        super().__init__()
        self.python: Any = None
        self._state = SessionState(threading.Lock())
        self._api_context: api.ProcessContext | None = None
        if self.python_type is not None:
            self.python = instantiate(self.python_type)
            self.python.logger = Logger(
                logging.getLogger(f"flowcore.processor.{self.extension.class_name}")
            )
            self.python.identifier = str(uuid.uuid4())

    # -- declaration ----------------------------------------------------------------------

    def _api_descriptor(self, name: str) -> api.PropertyDescriptor | None:
        for descriptor in self.api_descriptors:
            if descriptor.name == name:
                return descriptor
        if self.python is not None and hasattr(self.python, "getDynamicPropertyDescriptor"):
            found = self.python.getDynamicPropertyDescriptor(name)
            if isinstance(found, api.PropertyDescriptor):
                found.dynamic = True
                return found
        return None

    def get_dynamic_property_descriptor(self, name: str) -> PropertyDescriptor | None:
        if self.python_type is None:  # not importable: keep the configuration as it is
            return PropertyDescriptor(name=name, display_name=name, dynamic=True)
        if self.python is None or not hasattr(self.python, "getDynamicPropertyDescriptor"):
            return None
        found = self._api_descriptor(name)
        return None if found is None else to_flowcore(found)

    def get_relationships(self, properties: dict[str, str]) -> list[Relationship]:
        return list(self.relationships)

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        if self.missing:
            return [
                ValidationResult(
                    "Python Dependencies",
                    False,
                    None,
                    f"{self.extension.class_name} requires "
                    + ", ".join(self.missing)
                    + ", not installed in flowcore's environment (flowcore does not "
                    "install packages at run time: pip install what is missing)",
                )
            ]
        results: list[ValidationResult] = []
        configured = self._configured(context)
        for descriptor in self.api_descriptors:
            if (
                descriptor.required
                and descriptor.dependencies
                and configured.get(descriptor.name) in (None, "")
            ) and dependencies_met(descriptor, configured):
                label = descriptor.displayName or descriptor.name
                results.append(ValidationResult(label, False, None, f"{label} is required"))
        if results or self.python is None or not hasattr(self.python, "customValidate"):
            return results
        outcome = self.python.customValidate(
            api.ValidationContext(self._values(context), PropertyEngine(context))
        )
        for item in outcome or ():
            if not getattr(item, "valid", True):
                results.append(
                    ValidationResult(
                        str(item.subject), False, item.input, str(item.explanation or "")
                    )
                )
        return results

    # -- the Python context ---------------------------------------------------------------

    def _all_api_descriptors(self, context: ProcessContext) -> list[api.PropertyDescriptor]:
        found = list(self.api_descriptors)
        for name in context.dynamic_properties():
            dynamic = self._api_descriptor(name)
            if dynamic is not None and dynamic not in found:
                found.append(dynamic)
        return found

    def _configured(self, context: ProcessContext) -> dict[str, str | None]:
        return {
            d.name: context.get_property(d.name).value for d in self._all_api_descriptors(context)
        }

    def _values(self, context: ProcessContext) -> dict[api.PropertyDescriptor, str | None]:
        configured = self._configured(context)
        return {
            descriptor: configured.get(descriptor.name)
            for descriptor in self._all_api_descriptors(context)
            if dependencies_met(descriptor, configured)
        }

    def _make_context(self, context: ProcessContext) -> api.ProcessContext:
        values = self._values(context)
        declared = {d.name for d in self.api_descriptors}
        for extra in self.property_descriptors:  # the framework's own: Record Reader/Writer
            if extra.name not in declared:
                values[api.PropertyDescriptor(extra.name, extra.description)] = (
                    context.get_property(extra).value
                )
        return api.ProcessContext(
            values,
            PropertyEngine(context),
            name=context.name,
            state=self._state,
            yield_callback=context.yield_processor,
        )

    def _require_python(self) -> Any:
        if self.python is None:
            msg = f"{self.extension.class_name} cannot run: " + ", ".join(self.missing)
            raise ConfigurationError(msg)
        return self.python

    # -- lifecycle ------------------------------------------------------------------------

    def on_scheduled(self, context: ProcessContext) -> None:
        python = self._require_python()
        python.identifier = context.component_id
        self._api_context = self._make_context(context)
        if hasattr(python, "onScheduled"):
            python.onScheduled(self._api_context)
        python.setContext(self._api_context)

    def on_stopped(self, context: ProcessContext) -> None:
        if self.python is not None and hasattr(self.python, "onStopped"):
            self.python.onStopped(self._api_context or self._make_context(context))
        self._api_context = None  # the next start sees the configuration as it is then

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        python = self._require_python()
        if self._api_context is None:  # triggered without being scheduled (a TestRunner's
            # run(initialize=False)): the context, but no onScheduled, as nifi-mock
            self._api_context = self._make_context(context)
            python.setContext(self._api_context)
        self._state.session = session
        done = False
        try:
            self.trigger(python, context, session)
            done = True
        finally:
            self._state.end(commit=done)

    def trigger(self, python: Any, context: ProcessContext, session: ProcessSession) -> None:
        raise NotImplementedError

    def _log_failure(self, flowfile: FlowFile, exc: BaseException) -> None:
        self.logger.error(
            "Failed to transform %s; routing to failure: %s: %s",
            flowfile.attributes.get("uuid", ""),
            type(exc).__name__,
            exc,
        )

    def _check_relationship(self, context: ProcessContext, name: str) -> None:
        if name not in context.available_relationships:
            msg = (
                f"{self.extension.class_name} returned relationship '{name}', which it does "
                f"not have (it has {', '.join(sorted(context.available_relationships))})"
            )
            raise ConfigurationError(msg)


def _string_attributes(attributes: Mapping[str, Any] | None) -> dict[str, str]:
    return {str(k): str(v) for k, v in (attributes or {}).items()}


class FlowFileTransformAdapter(PythonProcessorAdapter):
    def trigger(self, python: Any, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        try:
            outcome = python.transformFlowFile(InputFlowFile(session, flowfile))
            results = outcome if isinstance(outcome, list) else [outcome]
            for result in results:
                if result is None:
                    msg = "transform returned None"
                    raise ValueError(msg)
                self._check_relationship(context, str(result.getRelationship()))
        except Exception as exc:
            self._log_failure(flowfile, exc)
            session.transfer(flowfile, FAILURE)
            return
        if len(results) == 1:
            self._apply_single(context, session, flowfile, results[0])
            return
        for result in results:
            child = session.create(flowfile)
            child = session.put_all_attributes(child, _string_attributes(result.getAttributes()))
            contents = result.getContents()
            child = session.write(
                child, contents if contents is not None else session.read(flowfile)
            )
            session.transfer(child, str(result.getRelationship()))
        session.transfer(flowfile, ORIGINAL)

    @staticmethod
    def _apply_single(
        context: ProcessContext, session: ProcessSession, flowfile: FlowFile, result: Any
    ) -> None:
        relationship = str(result.getRelationship())
        attributes = _string_attributes(result.getAttributes())
        if relationship == FAILURE.name:
            session.transfer(session.put_all_attributes(flowfile, attributes), FAILURE)
            return
        original = None if context.is_auto_terminated(ORIGINAL) else session.clone(flowfile)
        output = session.put_all_attributes(flowfile, attributes) if attributes else flowfile
        contents = result.getContents()
        if contents is not None:
            output = session.write(output, bytes(contents))
        session.transfer(output, relationship)
        if original is not None:
            session.transfer(original, ORIGINAL)


class FlowFileSourceAdapter(PythonProcessorAdapter):
    scheduling = Scheduling(input_required=False)

    def trigger(self, python: Any, context: ProcessContext, session: ProcessSession) -> None:
        try:
            outcome = python.createFlowFile()
            results = [] if outcome is None else outcome if isinstance(outcome, list) else [outcome]
            for result in results:
                self._check_relationship(context, str(result.getRelationship()))
        except Exception as exc:  # as NiFi: logged, nothing created, no rollback
            self.logger.error("Failed to create FlowFile: %s: %s", type(exc).__name__, exc)
            return
        for result in results:
            flowfile = session.create()
            attributes = _string_attributes(result.getAttributes())
            if attributes:
                flowfile = session.put_all_attributes(flowfile, attributes)
            contents = result.getContents()
            if contents is not None:
                flowfile = session.write(flowfile, bytes(contents))
            session.transfer(flowfile, str(result.getRelationship()))


@dataclass(slots=True)
class _Group:
    """One output FlowFile: the records of one (relationship, partition)."""

    relationship: str
    partition: Mapping[str, Any] | None
    child: FlowFile
    content: OpenContent | None
    """The child's content, open while its writer writes into it."""
    writer: RecordSetWriter
    schema: pa.Schema


class RecordTransformAdapter(PythonProcessorAdapter):
    """Records are handed over as JSON values (as NiFi's JSON bridge does), one Arrow
    batch of the reader at a time; results are grouped by (relationship, partition) into
    one FlowFile each, written as they come by the group's own Record Writer, whose
    schema is set by the group's first records (as NiFi's writer is made for the first
    record it gets)."""

    def trigger(self, python: Any, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        readers = as_reader_factory(context.get_property(RECORD_READER).as_controller_service())
        writers = as_writer_factory(context.get_property(RECORD_WRITER).as_controller_service())
        groups: dict[tuple[str, str], _Group] = {}
        counts = [0, 0]
        try:
            reader = readers.create_reader(
                FlowFileContent(session, flowfile), flowfile.attributes, source_of(flowfile)
            )
            try:
                self._transform(python, context, session, flowfile, reader, writers, groups, counts)
            finally:
                reader.close()
            children = [
                (self._finish(session, group), group.relationship) for group in groups.values()
            ]
        except Exception as exc:
            self._discard(session, groups)
            self._log_failure(flowfile, exc)
            session.transfer(flowfile, FAILURE)
            return
        except BaseException:
            self._discard(session, groups, remove=False)
            raise
        session.adjust_counter("Records Read", counts[0])
        session.adjust_counter("Record Written", counts[1])
        for child, relationship in children:
            session.transfer(child, relationship)
        session.transfer(flowfile, ORIGINAL)

    def _transform(
        self,
        python: Any,
        context: ProcessContext,
        session: ProcessSession,
        flowfile: FlowFile,
        reader: RecordReader,
        writers: RecordSetWriterFactory,
        groups: dict[tuple[str, str], _Group],
        counts: list[int],
    ) -> None:
        attribute_map = AttributeMap(flowfile.attributes)
        read_schema = reader.schema
        for batch in reader.batches():
            if batch.num_rows == 0:
                continue
            records = json.loads(json.dumps(batch.to_pylist(), default=str))
            counts[0] += len(records)
            pending: dict[tuple[str, str], tuple[Mapping[str, Any] | None, list[Any]]] = {}
            for result in python.transformRecord(records, read_schema, attribute_map):
                record = result.getRecord()
                if record is None:
                    continue
                relationship = str(result.getRelationship())
                self._check_relationship(context, relationship)
                partition = result.getPartition()
                key = (relationship, json.dumps(partition, sort_keys=True, default=str))
                pending.setdefault(key, (partition, []))[1].append(record)
                counts[1] += 1
            for key, (partition, chunk) in pending.items():
                group = groups.get(key)
                if group is None:
                    table = _first_table(chunk, read_schema)
                    group = self._open(session, flowfile, writers, key[0], partition, table)
                    groups[key] = group
                else:
                    table = pa.Table.from_pylist(chunk, schema=group.schema)
                for out in table.cast(group.schema).to_batches():
                    group.writer.write_batch(out)

    @staticmethod
    def _open(
        session: ProcessSession,
        flowfile: FlowFile,
        writers: RecordSetWriterFactory,
        relationship: str,
        partition: Mapping[str, Any] | None,
        table: pa.Table,
    ) -> _Group:
        schema = writers.writer_schema(table.schema, flowfile.attributes)
        child = session.create(flowfile)
        content = session.open_write(child)
        try:
            writer = writers.create_writer(schema, content, child.attributes)
        except BaseException:
            content.abort()
            session.remove(child)
            raise
        return _Group(relationship, partition, child, content, writer, schema)

    @staticmethod
    def _finish(session: ProcessSession, group: _Group) -> FlowFile:
        result = group.writer.finish()
        content = group.content
        assert content is not None
        group.content = None
        group.child = content.close()
        attributes = {
            **result.attributes,
            "record.count": str(result.record_count),
            "mime.type": result.mime_type,
        }
        for name, value in (group.partition or {}).items():
            attributes[str(name)] = _text(value)
        group.child = session.put_all_attributes(group.child, attributes)
        return group.child

    @staticmethod
    def _discard(
        session: ProcessSession, groups: dict[tuple[str, str], _Group], remove: bool = True
    ) -> None:
        """Abort the open writers and contents and remove the outputs (unless the session
        is about to be rolled back, which aborts open content too)."""
        for group in groups.values():
            if group.content is not None:
                try:
                    group.writer.abort()
                except Exception:
                    pass
                group.content.abort()
                group.content = None
            if remove:
                session.remove(group.child)


def _first_table(records: list[Any], read_schema: pa.Schema) -> pa.Table:
    """A group's first records as a table: in the read schema when they keep its fields
    and fit it, else with a schema inferred from them."""
    if all(isinstance(r, dict) and list(r) == read_schema.names for r in records):
        try:
            return pa.Table.from_pylist(records, schema=read_schema)
        except (pa.ArrowException, ValueError, TypeError):
            pass
    if all(isinstance(r, dict) for r in records):
        schema = schema_of_rows(records)  # every record's fields, not the first one's
        return pa.Table.from_pylist(records, schema=schema)
    return pa.Table.from_pylist(records)


_KINDS: dict[str, type[PythonProcessorAdapter]] = {
    "FlowFileTransform": FlowFileTransformAdapter,
    "RecordTransform": RecordTransformAdapter,
    "FlowFileSource": FlowFileSourceAdapter,
}


def adapter_class(info: ExtensionInfo) -> type[PythonProcessorAdapter]:
    """The flowcore processor class of a discovered NiFi Python processor.

    With a requirement missing the module is not imported: the class validates with an
    error naming what is missing. A module that fails to import raises
    ``ConfigurationError`` with the reason.
    """
    base = _KINDS[info.kind]
    missing = tuple(missing_requirements(info.requirements))
    namespace: dict[str, Any] = {
        "extension": info,
        "nifi_bundle": ("org.apache.nifi", "python-extensions", info.version),
        "missing": missing,
        "description": info.description,
        "tags": info.tags,
    }
    fixed = (RECORD_READER, RECORD_WRITER) if base is RecordTransformAdapter else ()
    if missing:
        namespace["property_descriptors"] = fixed
        namespace["relationships"] = (
            (SUCCESS,) if base is FlowFileSourceAdapter else (SUCCESS, ORIGINAL, FAILURE)
        )
        namespace["supports_dynamic_properties"] = True
        return type(info.class_name, (base,), namespace)
    cls = python_class(info)
    sample = instantiate(cls)
    api_descriptors = tuple(
        sample.getPropertyDescriptors() if hasattr(sample, "getPropertyDescriptors") else ()
    )
    declared = (
        [_to_relationship(r) for r in sample.getRelationships()]
        if hasattr(sample, "getRelationships")
        else None
    )
    if base is FlowFileSourceAdapter:
        relationships = [SUCCESS, *(r for r in declared or () if r.name != SUCCESS.name)]
    else:
        relationships = [*(declared if declared is not None else [SUCCESS]), ORIGINAL, FAILURE]
        relationships = list({r.name: r for r in relationships}.values())
    namespace.update(
        python_type=cls,
        api_descriptors=api_descriptors,
        property_descriptors=(*fixed, *(to_flowcore(d) for d in api_descriptors)),
        relationships=tuple(relationships),
        supports_dynamic_properties=hasattr(sample, "getDynamicPropertyDescriptor"),
    )
    return type(info.class_name, (base,), namespace)
