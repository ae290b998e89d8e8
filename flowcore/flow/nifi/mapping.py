"""The tables between NiFi and flowcore: component types and property names.

Each ``TypeMapping`` pairs a NiFi class with the flowcore type that does its job. A NiFi
property is matched to a flowcore property by its name or display name, after
``aliases`` (NiFi's API name where flowcore keys the property by its display name). A NiFi
property flowcore lacks is harmless, and dropped on import, when its value is null or the
one in ``ignored`` (NiFi's default; ``ANY`` for any value): otherwise the component is
unsupported. The documentation's table of supported types is generated from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final, Literal

ANY: Final = "\x00any"
"""In ``ignored``: every value of the property is harmless to drop."""

FLOWCORE_CLASS_PREFIX: Final = "flowcore.processors."
"""The class name export gives a flowcore type that has no NiFi counterpart."""

NIFI_VERSION: Final = "2.0.0"
READER_API: Final = "org.apache.nifi.serialization.RecordReaderFactory"
WRITER_API: Final = "org.apache.nifi.serialization.RecordSetWriterFactory"
LOOKUP_API: Final = "org.apache.nifi.lookup.StringLookupService"
SCHEMA_REGISTRY_API: Final = "org.apache.nifi.schemaregistry.services.SchemaRegistry"
PRIORITIZER_PACKAGE: Final = "org.apache.nifi.prioritizer."


@dataclass(frozen=True, slots=True)
class TypeMapping:
    nifi_type: str
    flowcore_type: str
    kind: Literal["processor", "service"]
    artifact: str
    aliases: Mapping[str, str] = field(default_factory=dict)
    ignored: Mapping[str, str] = field(default_factory=dict)
    api: str | None = None
    exported: Mapping[str, str] = field(default_factory=dict)
    """Properties export writes at these values when the flow leaves them unset (NiFi
    would migrate a missing one to another value); import drops them at these values."""

    @property
    def simple_name(self) -> str:
        return self.nifi_type.rsplit(".", 1)[-1]


_STANDARD = "nifi-standard-nar"
_RECORD = "nifi-record-serialization-services-nar"
_LOOKUP = "nifi-lookup-services-nar"
_SCHEMA = {
    "schema-registry": ANY,  # dropped, with a note, when it names a registry flowcore lacks
    "schema-reference-reader": ANY,
    "schema-inference-cache": ANY,
    "Date Format": ANY,
    "Time Format": ANY,
    "Timestamp Format": ANY,
}
_WRITER = {
    **_SCHEMA,
    "Schema Write Strategy": "no-schema",
    "schema-cache": ANY,
    "schema-protocol-version": "1",
    "schema-reference-writer": ANY,
}
_CSV = {"CSV Format": "custom", "Comment Marker": ANY, "csvutils-character-set": "UTF-8"}
_RECORD_ALIASES = {"record-reader": "Record Reader", "record-writer": "Record Writer"}


def _without(ignored: Mapping[str, str], *names: str) -> dict[str, str]:
    """``ignored`` less the properties the flowcore service takes."""
    return {k: v for k, v in ignored.items() if k not in names}


def _processor(
    name: str,
    package: str = "org.apache.nifi.processors.standard",
    artifact: str = _STANDARD,
    aliases: Mapping[str, str] | None = None,
    ignored: Mapping[str, str] | None = None,
) -> TypeMapping:
    return TypeMapping(
        f"{package}.{name}",
        name,
        "processor",
        artifact,
        MappingProxyType(dict(aliases or {})),
        MappingProxyType(dict(ignored or {})),
    )


def _service(
    name: str,
    package: str,
    api: str,
    artifact: str = _RECORD,
    ignored: Mapping[str, str] | None = None,
    exported: Mapping[str, str] | None = None,
    aliases: Mapping[str, str] | None = None,
) -> TypeMapping:
    return TypeMapping(
        f"{package}.{name}",
        name,
        "service",
        artifact,
        MappingProxyType(dict(aliases or {})),
        MappingProxyType(dict(ignored or {})),
        api,
        MappingProxyType(dict(exported or {})),
    )


TYPE_MAPPINGS: Final[tuple[TypeMapping, ...]] = (
    _processor("GenerateFlowFile"),
    _processor("GetFile"),
    _processor("PutFile"),
    _processor(
        "UpdateAttribute",
        "org.apache.nifi.processors.attributes",
        "nifi-update-attribute-nar",
        ignored={
            "Store State": "Do not store state",
            "Stateful Variables Initial Value": ANY,
            "canonical-value-lookup-cache-size": ANY,  # NiFi 1's name
            "Cache Value Lookup Cache Size": ANY,
        },
    ),
    _processor("RouteOnAttribute"),
    _processor("LogAttribute"),
    _processor("SplitText"),
    _processor("ReplaceText", aliases={"Regular Expression": "Search Value"}),
    _processor(
        "ExtractText",
        aliases={
            "extract-text-enable-repeating-capture-group": "Enable Repeating Capture Group",
            "Enable repeating capture group": "Enable Repeating Capture Group",
            "extract-text-enable-named-groups": "Enable Named Groups",
            "Enable named group support": "Enable Named Groups",
        },
    ),
    _processor("RouteOnContent"),
    _processor("RouteText"),
    _processor(
        "AttributesToJSON",
        aliases={"attributes-to-json-regex": "Attributes Regular Expression"},
    ),
    _processor("EvaluateJsonPath"),
    _processor("SplitJson"),
    _processor("CompressContent"),
    _processor("ControlRate"),
    _processor(
        "CryptographicHashContent",
        aliases={"fail_when_empty": "Fail When Content Empty", "hash_algorithm": "Hash Algorithm"},
    ),
    _processor("DuplicateFlowFile"),
    _processor("SplitRecord"),
    _processor(
        "ConvertRecord",
        aliases={
            **_RECORD_ALIASES,
            "include-zero-record-flowfiles": "Include Zero Record FlowFiles",
        },
    ),
    _processor("PartitionRecord"),
    _processor("QueryRecord"),
    _processor(
        "ValidateRecord",
        aliases={
            **_RECORD_ALIASES,
            "invalid-record-writer": "Record Writer for Invalid Records",
            "schema-access-strategy": "Schema Access Strategy",
            "schema-text": "Schema Text",
            "allow-extra-fields": "Allow Extra Fields",
            "strict-type-checking": "Strict Type Checking",
            "coerce-types": "Force Types From Reader Schema",
            "validation-details-attribute-name": "Validation Details Attribute Name",
            "maximum-validation-details-length": "Maximum Validation Details Length",
            "schema-registry": "Schema Registry",
            "schema-name": "Schema Name",
            "schema-branch": "Schema Branch",
            "schema-version": "Schema Version",
        },
    ),
    _processor(
        "UpdateRecord",
        aliases={"replacement-value-strategy": "Replacement Value Strategy"},
    ),
    _processor("LookupRecord"),
    _processor(
        "MergeRecord",
        aliases={
            **_RECORD_ALIASES,
            "merge-strategy": "Merge Strategy",
            "correlation-attribute-name": "Correlation Attribute Name",
            "min-records": "Minimum Number of Records",
            "max-records": "Maximum Number of Records",
            "min-bin-size": "Minimum Bin Size",
            "max-bin-size": "Maximum Bin Size",
            "max-bin-age": "Max Bin Age",
            "max.bin.count": "Maximum Number of Bins",
        },
    ),
    _processor(
        "EnforceOrder",
        aliases={
            "group-id": "Group Identifier",
            "order-attribute": "Order Attribute",
            "initial-order": "Initial Order",
            "maximum-order": "Maximum Order",
            "batch-count": "Batch Count",
            "wait-timeout": "Wait Timeout",
            "inactive-timeout": "Inactive Timeout",
        },
    ),
    _service("SimpleKeyValueLookupService", "org.apache.nifi.lookup", LOOKUP_API, _LOOKUP),
    _service("PropertiesFileLookupService", "org.apache.nifi.lookup", LOOKUP_API, _LOOKUP),
    _service(
        "SimpleCsvFileLookupService",
        "org.apache.nifi.lookup",
        LOOKUP_API,
        _LOOKUP,
        ignored={"Character Set": "UTF-8"},
    ),
    _processor("MergeContent"),
    _processor(
        "ListFile",
        ignored={
            "Input Directory Location": "Local",
            "target-system-timestamp-precision": ANY,
            "et-state-cache": ANY,
            "et-time-window": ANY,
            "et-initial-listing-target": ANY,
            "et-node-identifier": ANY,
            "track-performance": "false",
            "max-performance-metrics": ANY,
            "max-operation-time": ANY,
            "max-listing-time": ANY,
            # the names NiFi renamed them to, and a property it removed
            "Target System Timestamp Precision": ANY,
            "Entity Tracking State Cache": ANY,
            "Entity Tracking Time Window": ANY,
            "Entity Tracking Initial Listing Target": ANY,
            "Entity Tracking Node Identifier": ANY,
            "Track Performance": "false",
            "Maximum Number of Files to Track": ANY,
            "Max Disk Operation Time": ANY,
            "Max Directory Listing Time": ANY,
            "Distributed Cache Service": ANY,
        },
    ),
    _processor("FetchFile"),
    _processor("DetectDuplicate"),
    _processor("Wait"),
    _processor("Notify"),
    _processor(
        "InvokeHTTP",
        aliases={
            "Remote URL": "HTTP URL",
            "Read Timeout": "Socket Read Timeout",
            "max-idle-connections": "Socket Idle Connections",
            "Basic Authentication Username": "Request Username",
            "Basic Authentication Password": "Request Password",
            'Penalize on "No Retry"': "Request Failure Penalization Enabled",
            "send-message-body": "Request Body Enabled",
            "Content-Type": "Request Content-Type",
            "Include Date Header": "Request Date Header Enabled",
            "Attributes to Send": "Request Header Attributes Pattern",
            "Useragent": "Request User-Agent",
            "Put Response Body In Attribute": "Response Body Attribute Name",
            "Max Length To Put In Attribute": "Response Body Attribute Size",
            "ignore-response-content": "Response Body Ignored",
            "Always Output Response": "Response Generation Required",
            "flow-file-naming-strategy": "Response FlowFile Naming Strategy",
            "Add Response Headers to Request": "Response Header Request Attributes Enabled",
            "Follow Redirects": "Response Redirects Enabled",
        },
        ignored={
            "HTTP/2 Disabled": ANY,
            "Socket Idle Timeout": ANY,
            "disable-http2": ANY,
            "idle-timeout": ANY,
            "Request Digest Authentication Enabled": "false",
            "Digest Authentication": "false",
            "Request Chunked Transfer-Encoding Enabled": "false",
            "Use Chunked Encoding": "false",
            "Request Content-Encoding": "DISABLED",
            "Request Multipart Form-Data Filename Enabled": "true",
            "Response Cache Enabled": "false",
            "use-etag": "false",
            "Response Cache Size": ANY,
            "etag-max-cache-size": ANY,
            "Response Cookie Strategy": "DISABLED",
            "cookie-strategy": "DISABLED",
            "OAuth2 Access Token Refresh Strategy": ANY,
        },
    ),
    _processor(
        "ListenHTTP",
        aliases={
            "multipart-request-max-size": "Multipart Request Max Size",
            "multipart-read-buffer-size": "Multipart Read Buffer Size",
            "max-thread-pool-size": "Maximum Thread Pool Size",
        },
        ignored={
            "Authorized DN Pattern": ANY,
            "Authorized Subject DN Pattern": ANY,
            "Authorized Issuer DN Pattern": ANY,
            "authorized-issuer-dn-pattern": ANY,
            "Max Unconfirmed Flowfile Time": ANY,
            "client-authentication": ANY,
            "Client Authentication": ANY,
            "health-check-port": ANY,
            "Listening Port for Health Check Requests": ANY,
        },
    ),
    TypeMapping(
        "org.apache.nifi.distributed.cache.client.MapCacheClientService",
        "LmdbMapCacheService",
        "service",
        "nifi-distributed-cache-services-nar",
        MappingProxyType({}),
        MappingProxyType(
            {
                "Server Hostname": ANY,
                "Server Port": ANY,
                "SSL Context Service": ANY,
                "Communications Timeout": ANY,
            }
        ),
        "org.apache.nifi.distributed.cache.client.AtomicDistributedMapCacheClient",
    ),
    _service(
        "AvroSchemaRegistry",
        "org.apache.nifi.schemaregistry.services",
        SCHEMA_REGISTRY_API,
        "nifi-registry-nar",
        # NiFi after 2.9 migrates Validate Field Names to this property
        ignored={"Validation Strategy": "VALIDATE"},
    ),
    _service(
        "CSVReader",
        "org.apache.nifi.csv",
        READER_API,
        ignored={
            **_without(_SCHEMA, "Date Format", "Time Format", "Timestamp Format"),
            **_without(_CSV, "Comment Marker"),
            "csv-reader-csv-parser": "commons-csv",
            "Record Separator": "\\n",
            "csvutils-allow-duplicate-header-names": "true",
            "Trim double quote": "true",
        },
    ),
    _service(
        "CSVRecordSetWriter",
        "org.apache.nifi.csv",
        WRITER_API,
        ignored={
            **_without(
                _WRITER, "Schema Write Strategy", "Date Format", "Time Format", "Timestamp Format"
            ),
            **_CSV,
            "Trim Fields": "true",
            "Include Trailing Delimiter": "false",
        },
    ),
    _service(
        "JsonTreeReader",
        "org.apache.nifi.json",
        READER_API,
        ignored={
            **_without(_SCHEMA, "Date Format", "Time Format", "Timestamp Format"),
            "starting-field-strategy": "ROOT_NODE",
            "schema-application-strategy": "SELECTED_PART",
            "Max String Length": "20 MB",
            "Allow Comments": "false",
        },
    ),
    _service(
        "JsonRecordSetWriter",
        "org.apache.nifi.json",
        WRITER_API,
        ignored={
            **_without(
                _WRITER, "Schema Write Strategy", "Date Format", "Time Format", "Timestamp Format"
            ),
        },
        # NiFi sets a JSON writer without this property to "true" (its older behaviour)
        exported={"Allow Scientific Notation": "false"},
        aliases={
            "compression-format": "Compression Format",
            "compression-level": "Compression Level",
        },
    ),
    _service(
        "AvroReader", "org.apache.nifi.avro", READER_API, ignored={**_SCHEMA, "cache-size": ANY}
    ),
    _service(
        "AvroRecordSetWriter",
        "org.apache.nifi.avro",
        WRITER_API,
        ignored={
            **_without(_WRITER, "Schema Write Strategy"),
            "cache-size": ANY,
            "encoder-pool-size": ANY,
        },
    ),
    _service(
        "ParquetReader",
        "org.apache.nifi.parquet",
        READER_API,
        "nifi-parquet-nar",
        ignored={"avro-read-compatibility": "true", "avro-add-list-element-records": "true"},
    ),
    _service(
        "ParquetRecordSetWriter",
        "org.apache.nifi.parquet",
        WRITER_API,
        "nifi-parquet-nar",
        ignored={
            **_without(_WRITER, "Schema Write Strategy"),
            "row-group-size": ANY,
            "page-size": ANY,
            "dictionary-page-size": ANY,
            "max-padding-size": ANY,
            "enable-dictionary-encoding": ANY,
            "enable-validation": ANY,
            "writer-version": ANY,
            "avro-write-old-list-structure": ANY,
            "avro-add-list-element-records": ANY,
        },
    ),
)

BY_NIFI_TYPE: Final[Mapping[str, TypeMapping]] = MappingProxyType(
    {m.nifi_type: m for m in TYPE_MAPPINGS}
)
BY_FLOWCORE_TYPE: Final[Mapping[tuple[str, str], TypeMapping]] = MappingProxyType(
    {(m.kind, m.flowcore_type): m for m in TYPE_MAPPINGS}
)
FUNNEL_TYPE: Final = "Funnel"
STUB_TYPE: Final = "Unsupported"
STUB_COMPONENT_TYPE: Final = "Component Type"
STUB_RELATIONSHIPS: Final = "Relationships"


def nifi_mapping(nifi_type: str, kind: Literal["processor", "service"]) -> TypeMapping | None:
    """The mapping of a NiFi class (or of a class name export gave a flowcore-only type)."""
    found = BY_NIFI_TYPE.get(nifi_type)
    if found is not None:
        return found if found.kind == kind else None
    if kind == "processor" and nifi_type.startswith(FLOWCORE_CLASS_PREFIX):
        name = nifi_type.removeprefix(FLOWCORE_CLASS_PREFIX)
        if name not in {FUNNEL_TYPE, STUB_TYPE}:
            return TypeMapping(nifi_type, name, kind, "flowcore")
    return None


def nifi_class(flowcore_type: str, kind: Literal["processor", "service"]) -> TypeMapping:
    """The mapping export uses for a flowcore type (a flowcore-only one gets its own)."""
    found = BY_FLOWCORE_TYPE.get((kind, flowcore_type))
    if found is not None:
        return found
    return TypeMapping(FLOWCORE_CLASS_PREFIX + flowcore_type, flowcore_type, kind, "flowcore")
