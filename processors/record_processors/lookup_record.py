"""LookupRecord: looks values up in a lookup service by fields of each record, enriches
the records with what is found and routes them by whether it was found.

Follows NiFi's LookupRecord:

* Properties (API names in parentheses): Record Reader (``record-reader``), Record Writer
  (``record-writer``), Lookup Service (``lookup-service``), Root Record Path (``Root
  Record Path``), Routing Strategy (``routing-strategy``: ``route-to-success``, the
  default, or ``route-to-matched-unmatched``), Record Result Contents
  (``result-contents``: ``insert-entire-record``, the default, or ``record-fields``),
  Record Update Strategy (``record-update-strategy``: ``use-property``, the default, or
  ``replace-existing-values``), Result RecordPath (``result-record-path``), Cache Size
  (``record-path-lookup-miss-result-cache-size``, default 0).
* User-defined properties are the lookup coordinates: the name is the coordinate's name,
  the value a RecordPath (Expression Language against the FlowFile's attributes) whose
  value is the coordinate. The service's required keys must all be given.
* A record matches when every coordinate selects exactly one non-null value (nulls are
  ignored) and the service finds something. With a Result RecordPath, what was found is
  set on the fields it selects (Insert Record Fields puts the fields of a record found
  into the selected records). A miss leaves the record unchanged.
* Replace Existing Values: every user-defined path's fields are each looked up (as the
  service's single key) and replaced by what is found; the record matches when every
  field with a value was found (a path selecting only nulls does not match; one selecting
  nothing does).
* Root Record Path: the coordinates are taken from each record it selects, the records
  of a selected array included (relative to them); the top-level record matches only
  when all of them match, and not when there are none.
* Output, as NiFi: one child FlowFile per relationship that receives records (FORK),
  with ``mime.type``, ``record.count`` and the writer's attributes; the original is
  removed. A FlowFile without records therefore gives nothing (it is dropped).
* Failure (bad records, a lookup that fails, a RecordPath that does not compile after
  Expression Language): the unchanged FlowFile goes to failure.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from flowcore.errors import ConfigurationError, repository_fault
from flowcore.model import FlowFile
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
from flowcore.session.session import OpenContent
from processors.record.api import (
    FlowFileContent,
    RecordSetWriterFactory,
    as_reader_factory,
    as_writer_factory,
    source_of,
)
from processors.record.lookup import LookupService
from processors.record.serialized import forms_of, taken
from processors.record_processors._common import (
    RECORD_FAILURES,
    reader_descriptor,
    writer_descriptor,
)
from processors.record_processors._rewrite import RecordSink
from processors.record_processors.record_path import (
    FieldValue,
    RecordPath,
    RecordPathError,
    compile_record_path,
    record_path_validator,
    records_of,
    root_of,
)

_FAILURES: tuple[type[BaseException], ...] = (*RECORD_FAILURES, RecordPathError)

RECORD_READER = reader_descriptor("record-reader")
RECORD_WRITER = writer_descriptor("record-writer")
LOOKUP_SERVICE = PropertyDescriptor(
    name="lookup-service",
    display_name="Lookup Service",
    description="The Lookup Service to use in order to lookup a value in each Record",
    required=True,
    controller_service=LookupService,
)
ROOT_RECORD_PATH = PropertyDescriptor(
    name="Root Record Path",
    display_name="Root Record Path",
    description="A RecordPath that points to a child Record within each of the top-level "
    "Records in the FlowFile. If specified, the additional RecordPath properties will be "
    "evaluated against this child Record instead of the top-level Record.",
    validators=[record_path_validator],
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
ROUTE_TO_SUCCESS = AllowableValue(
    "route-to-success",
    "Route to 'success'",
    "Records will be routed to a 'success' Relationship regardless of whether or not there "
    "is a match in the configured Lookup Service",
)
ROUTE_TO_MATCHED_UNMATCHED = AllowableValue(
    "route-to-matched-unmatched",
    "Route to 'matched' or 'unmatched'",
    "Records will be routed to either a 'matched' or an 'unmatched' Relationship depending "
    "on whether or not there was a match in the configured Lookup Service.",
)
ROUTING_STRATEGY = PropertyDescriptor(
    name="routing-strategy",
    display_name="Routing Strategy",
    description="Specifies how to route records after a Lookup has completed",
    default=ROUTE_TO_SUCCESS.value,
    required=True,
    allowable_values=(ROUTE_TO_SUCCESS, ROUTE_TO_MATCHED_UNMATCHED),
)
RESULT_ENTIRE_RECORD = AllowableValue(
    "insert-entire-record",
    "Insert Entire Record",
    "The entire Record that is retrieved from the Lookup Service will be inserted into the "
    "destination path.",
)
RESULT_RECORD_FIELDS = AllowableValue(
    "record-fields",
    "Insert Record Fields",
    "All of the fields in the Record that is retrieved from the Lookup Service will be "
    "inserted into the destination path.",
)
RESULT_CONTENTS = PropertyDescriptor(
    name="result-contents",
    display_name="Record Result Contents",
    description="When a result is obtained that contains a Record, this property determines "
    "whether the Record itself is inserted at the configured path or if the contents of the "
    "Record (i.e., the sub-fields) will be inserted at the configured path.",
    default=RESULT_ENTIRE_RECORD.value,
    required=True,
    allowable_values=(RESULT_ENTIRE_RECORD, RESULT_RECORD_FIELDS),
)
USE_PROPERTY = AllowableValue(
    "use-property",
    'Use "Result RecordPath" Property',
    'The "Result RecordPath" property will be used to determine which part of the record '
    "should be updated with the value returned by the Lookup Service",
)
REPLACE_EXISTING_VALUES = AllowableValue(
    "replace-existing-values",
    "Replace Existing Values",
    'The "Result RecordPath" property will be ignored and the lookup service must be a '
    "single simple key lookup service. Every dynamic property value should be a record path.",
)
RECORD_UPDATE_STRATEGY = PropertyDescriptor(
    name="record-update-strategy",
    display_name="Record Update Strategy",
    description="This property defines the strategy to use when updating the record with "
    "the value returned by the Lookup Service.",
    default=USE_PROPERTY.value,
    required=True,
    allowable_values=(REPLACE_EXISTING_VALUES, USE_PROPERTY),
)
RESULT_RECORD_PATH = PropertyDescriptor(
    name="result-record-path",
    display_name="Result RecordPath",
    description="A RecordPath that points to the field whose value should be updated with "
    "whatever value is returned from the Lookup Service. If not specified, the value that "
    "is returned from the Lookup Service will be ignored, except for determining whether "
    "the FlowFile should be routed to the 'matched' or 'unmatched' Relationship.",
    validators=[record_path_validator],
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
CACHE_SIZE = PropertyDescriptor(
    name="record-path-lookup-miss-result-cache-size",
    display_name="Cache Size",
    description="Specifies how many lookup values/records should be cached. Setting this "
    "property to zero means no caching will be done and the table will be queried for each "
    "lookup value in each record.",
    default="0",
    required=True,
    validators=[validators.non_negative_integer],
    expression_language_scope=ExpressionLanguageScope.ENVIRONMENT,
)

MATCHED = Relationship(
    "matched",
    "All records for which the lookup returns a value will be routed to this relationship",
)
UNMATCHED = Relationship(
    "unmatched",
    "All records for which the lookup does not have a matching value will be routed to this "
    "relationship",
)
SUCCESS = Relationship(
    "success",
    "All records will be sent to this Relationship if configured to do so, unless a failure occurs",
)
FAILURE = Relationship(
    "failure",
    "If a FlowFile cannot be enriched, the unchanged FlowFile will be routed to this relationship",
)


def _matched_unmatched(properties: Mapping[str, str]) -> bool:
    value = properties.get(ROUTING_STRATEGY.name) or ROUTING_STRATEGY.default
    return ROUTING_STRATEGY.canonical(str(value)) == ROUTE_TO_MATCHED_UNMATCHED.value


class _Cache:
    """The most recent lookups of one FlowFile (NiFi's Cache Size); 0 keeps nothing."""

    def __init__(
        self, service: LookupService, size: int, context: Mapping[str, str] | None = None
    ) -> None:
        self.service = service
        self.size = size
        self.context = context
        self._entries: OrderedDict[tuple[tuple[str, str], ...], Any] = OrderedDict()

    def lookup(self, coordinates: dict[str, Any]) -> Any | None:
        if self.size <= 0:
            return self.service.lookup(coordinates, self.context)
        key = tuple(sorted((k, repr(v)) for k, v in coordinates.items()))
        if key in self._entries:
            self._entries.move_to_end(key)
            return self._entries[key]
        found = self.service.lookup(coordinates, self.context)
        self._entries[key] = found
        if len(self._entries) > self.size:
            self._entries.popitem(last=False)
        return found


@dataclass(slots=True)
class _Plan:
    coordinates: dict[str, RecordPath]
    root: RecordPath | None
    result: RecordPath | None
    replace: bool
    record_fields: bool
    cache: _Cache


@dataclass(slots=True)
class _Output:
    flowfile: FlowFile
    content: OpenContent | None
    sink: RecordSink


@processor("LookupRecord")
class LookupRecord(Processor):
    description = (
        "Extracts one or more fields from a Record and looks up a value for those fields in a "
        "LookupService. If a result is returned by the LookupService, that result is "
        "optionally added to the Record. In this case, the processor functions as an "
        "Enrichment processor. Regardless, the Record is then routed to either the 'matched' "
        "relationship or 'unmatched' relationship (if the 'Routing Strategy' property is "
        "configured to do so), indicating whether or not a result was returned by the "
        "LookupService, allowing the processor to also function as a Routing processor."
    )
    tags = ("lookup", "enrichment", "route", "record", "csv", "json", "avro", "logs", "filter")
    property_descriptors = (
        RECORD_READER,
        RECORD_WRITER,
        LOOKUP_SERVICE,
        ROOT_RECORD_PATH,
        ROUTING_STRATEGY,
        RESULT_CONTENTS,
        RECORD_UPDATE_STRATEGY,
        RESULT_RECORD_PATH,
        CACHE_SIZE,
    )
    relationships = (SUCCESS, FAILURE)
    supports_dynamic_properties = True

    def get_relationships(self, properties: dict[str, str]) -> list[Relationship]:
        if _matched_unmatched(properties):
            return [MATCHED, UNMATCHED, FAILURE]
        return [SUCCESS, FAILURE]

    def get_dynamic_property_descriptor(self, name: str) -> PropertyDescriptor | None:
        return PropertyDescriptor(
            name=name,
            display_name=name,
            description="A RecordPath that points to the field whose value will be looked up "
            "in the configured Lookup Service",
            dynamic=True,
            expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
            validators=[record_path_validator],
        )

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        names = set(context.dynamic_properties())
        if not names:
            return [
                ValidationResult(
                    "User-Defined Properties",
                    False,
                    None,
                    "At least one user-defined property must be specified.",
                )
            ]
        try:
            service = context.get_property(LOOKUP_SERVICE).as_controller_service()
        except ConfigurationError:
            return []
        if not isinstance(service, LookupService):
            return []
        keys = service.required_keys
        if context.get_property(RECORD_UPDATE_STRATEGY).as_str() == REPLACE_EXISTING_VALUES.value:
            if len(keys) != 1:
                return [
                    ValidationResult(
                        "Lookup Service",
                        False,
                        None,
                        'When using "Replace Existing Values" as Record Update Strategy, only '
                        "a Lookup Service requiring a single key can be used.",
                    )
                ]
            return []
        return [
            ValidationResult(
                key,
                False,
                None,
                f"The configured Lookup Services requires that a key be provided with the name "
                f"'{key}'. Please add a new property to this Processor with a name '{key}' "
                "and provide a RecordPath that can be used to retrieve the appropriate value.",
            )
            for key in sorted(keys - names)
        ]

    def on_scheduled(self, context: ProcessContext) -> None:
        self._cache_size = context.get_property(CACHE_SIZE).evaluate().as_int() or 0

    def _plan(self, context: ProcessContext, flowfile: FlowFile) -> _Plan:
        service = context.get_property(LOOKUP_SERVICE).as_controller_service()
        if not isinstance(service, LookupService):
            msg = f"controller service {type(service).__name__} is not a lookup service"
            raise ConfigurationError(msg)
        # A cache per FlowFile, as NiFi: a reloaded lookup table is seen by the next one.
        cache = _Cache(service, getattr(self, "_cache_size", 0), flowfile.attributes)
        root = context.get_property(ROOT_RECORD_PATH).evaluate(flowfile).as_str()
        result = context.get_property(RESULT_RECORD_PATH).evaluate(flowfile).as_str()
        replace = (
            context.get_property(RECORD_UPDATE_STRATEGY).as_str() == REPLACE_EXISTING_VALUES.value
        )
        return _Plan(
            coordinates={
                name: compile_record_path(context.get_property(name).evaluate(flowfile).as_str())
                for name in context.dynamic_properties()
            },
            root=compile_record_path(root) if root.strip() else None,
            result=compile_record_path(result) if result.strip() and not replace else None,
            replace=replace,
            record_fields=context.get_property(RESULT_CONTENTS).as_str()
            == RESULT_RECORD_FIELDS.value,
            cache=cache,
        )

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        readers = as_reader_factory(context.get_property(RECORD_READER).as_controller_service())
        writers = as_writer_factory(context.get_property(RECORD_WRITER).as_controller_service())
        try:
            plan = self._plan(context, flowfile)
        except (RecordPathError, ConfigurationError) as exc:
            self.logger.error(
                "Failed to prepare the lookup for %s; routing to failure: %s", flowfile, exc
            )
            session.transfer(flowfile, FAILURE)
            return
        if _matched_unmatched(context.properties):
            self._route(session, flowfile, readers, writers, plan, MATCHED, UNMATCHED)
        else:
            self._route(session, flowfile, readers, writers, plan, SUCCESS, SUCCESS)

    def _route(
        self,
        session: ProcessSession,
        flowfile: FlowFile,
        readers: Any,
        writers: RecordSetWriterFactory,
        plan: _Plan,
        matched_to: Relationship,
        unmatched_to: Relationship,
    ) -> None:
        attributes = flowfile.attributes
        outputs: dict[str, _Output] = {}
        try:
            reader = readers.create_reader(
                FlowFileContent(session, flowfile), attributes, source_of(flowfile)
            )
            try:
                for batch in reader.batches():
                    split: dict[str, list[dict[str, Any]]] = {
                        matched_to.name: [],
                        unmatched_to.name: [],
                    }
                    rows: dict[str, list[int]] = {matched_to.name: [], unmatched_to.name: []}
                    for row, record in enumerate(records_of(batch)):
                        matched = self._lookup(root_of(record, batch.schema), plan)
                        name = matched_to.name if matched else unmatched_to.name
                        split[name].append(record)
                        rows[name].append(row)
                    for name, records in split.items():
                        if records:
                            output = outputs.get(name)
                            if output is None:
                                output = outputs[name] = self._open(
                                    session,
                                    flowfile,
                                    writers,
                                    reader.schema,
                                    bool(getattr(readers, "type_checked_records", False)),
                                )
                            # The rows the records were read as, when they carry serialized
                            # forms to keep (no selection made for a batch without them).
                            source = (
                                None
                                if forms_of(batch) is None
                                else batch
                                if len(records) == batch.num_rows
                                else taken(batch, pa.array(rows[name], pa.int64()))
                            )
                            output.sink.write(records, source)
            finally:
                reader.close()
            finished: list[tuple[str, FlowFile]] = []
            for name, output in outputs.items():
                result = output.sink.finish()
                content = output.content
                assert content is not None
                output.content = None
                child = content.close()
                output.flowfile = child
                child = session.put_all_attributes(child, result.flowfile_attributes())
                output.flowfile = child
                finished.append((name, child))
        except _FAILURES as exc:
            if repository_fault(exc) is not None:
                raise  # a full or failing repository: roll back, keep the FlowFile queued
            self._discard(session, outputs)
            self.logger.error("Failed to route %s; routing to failure: %s", flowfile, exc)
            session.transfer(flowfile, FAILURE)
            return
        except BaseException:
            self._discard(session, outputs, remove=False)
            raise
        by_name = {matched_to.name: matched_to, unmatched_to.name: unmatched_to}
        for name, child in finished:
            session.transfer(child, by_name[name])
        session.remove(flowfile)

    @staticmethod
    def _open(
        session: ProcessSession,
        flowfile: FlowFile,
        writers: RecordSetWriterFactory,
        schema: Any,
        typed: bool,
    ) -> _Output:
        """An output; ``typed``: the reader's records convert values set on them (CSV)."""
        child = session.create(flowfile)
        content = session.open_write(child)
        sink = RecordSink(writers, content, child.attributes, schema, typed)
        return _Output(child, content, sink)

    @staticmethod
    def _discard(session: ProcessSession, outputs: dict[str, _Output], remove: bool = True) -> None:
        for output in outputs.values():
            if output.content is not None:
                try:
                    output.sink.abort()
                except RECORD_FAILURES:
                    pass
                output.content.abort()
                output.content = None
            if remove:
                session.remove(output.flowfile)

    def _lookup(self, root: FieldValue, plan: _Plan) -> bool:
        """Look the record up (enriching it); whether everything was found."""
        if plan.root is None:
            return self._lookup_one(root, plan)
        targets = plan.root.select(root)
        if not targets:
            return False
        subs: list[FieldValue] = []
        for target in targets:
            if isinstance(target.value, list):
                items: list[Any] = target.value
                subs.extend(
                    FieldValue(item, target.name, target.parent, items, index)
                    for index, item in enumerate(items)
                    if isinstance(item, dict)
                )
            elif isinstance(target.value, dict):
                subs.append(target)
        if not subs:
            return False
        results = [self._lookup_one(sub, plan) for sub in subs]
        return all(results)

    @staticmethod
    def _lookup_one(record: FieldValue, plan: _Plan) -> bool:
        if plan.replace:
            found_all = True
            for path in plan.coordinates.values():
                selected = path.select(record)
                if selected and all(field.value is None for field in selected):
                    return False
                for field in selected:
                    if field.value is None:
                        continue
                    found = plan.cache.lookup(
                        {next(iter(plan.cache.service.required_keys)): field.value}
                    )
                    if found is None:
                        found_all = False
                    else:
                        field.update(found)
            return found_all
        coordinates: dict[str, Any] = {}
        for name, path in plan.coordinates.items():
            values = [field.value for field in path.select(record) if field.value is not None]
            if len(values) != 1:
                return False
            coordinates[name] = values[0]
        found = plan.cache.lookup(coordinates)
        if found is None:
            return False
        if plan.result is not None:
            for field in plan.result.select(record):
                if plan.record_fields and isinstance(found, dict):
                    if isinstance(field.value, dict):
                        field.value.update(found)
                    else:
                        field.update(dict(found))
                else:
                    field.update(found)
        return True
