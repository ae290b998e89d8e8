"""NiFi flow definitions: import into flowcore flows and export from them."""

from flowcore.flow.nifi.exporter import ExportResult, export_nifi
from flowcore.flow.nifi.importer import ImportResult, UnsupportedComponent, import_nifi
from flowcore.flow.nifi.loader import UnsupportedComponentsError, nifi_document
from flowcore.flow.nifi.model import VersionedFlowDefinition, is_nifi_flow

__all__ = [
    "ExportResult",
    "ImportResult",
    "UnsupportedComponent",
    "UnsupportedComponentsError",
    "VersionedFlowDefinition",
    "export_nifi",
    "import_nifi",
    "is_nifi_flow",
    "nifi_document",
]
