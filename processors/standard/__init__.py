"""The everyday processors: importing this package registers every one of them.

GenerateFlowFile, GetFile, PutFile, UpdateAttribute, RouteOnAttribute, LogAttribute,
SplitText, Funnel and the text and content processors (ReplaceText, ExtractText,
RouteOnContent, RouteText, AttributesToJSON, EvaluateJsonPath, SplitJson,
CompressContent, CryptographicHashContent, DuplicateFlowFile, ControlRate), one module
each (and Unsupported, the stand-in for a NiFi
component flowcore lacks), following Apache NiFi's processors of the same
names (each module's docstring lists where it differs or chooses).
"""

import processors.python_extensions  # noqa: F401 - registers the NiFi Python processors
from processors.standard.attributes_to_json import AttributesToJSON
from processors.standard.compress_content import CompressContent
from processors.standard.control_rate import ControlRate
from processors.standard.cryptographic_hash_content import CryptographicHashContent
from processors.standard.detect_duplicate import DetectDuplicate
from processors.standard.duplicate_flowfile import DuplicateFlowFile
from processors.standard.evaluate_json_path import EvaluateJsonPath
from processors.standard.extract_text import ExtractText
from processors.standard.fetch_file import FetchFile
from processors.standard.funnel import Funnel
from processors.standard.generate_flowfile import GenerateFlowFile
from processors.standard.get_file import GetFile
from processors.standard.invoke_http import InvokeHTTP
from processors.standard.list_file import ListFile
from processors.standard.listen_http import ListenHTTP
from processors.standard.log_attribute import LogAttribute
from processors.standard.map_cache import LmdbMapCacheService
from processors.standard.merge_content import MergeContent
from processors.standard.notify import Notify
from processors.standard.put_file import PutFile
from processors.standard.replace_text import ReplaceText
from processors.standard.route_on_attribute import RouteOnAttribute
from processors.standard.route_on_content import RouteOnContent
from processors.standard.route_text import RouteText
from processors.standard.split_json import SplitJson
from processors.standard.split_text import SplitText
from processors.standard.unsupported import Unsupported
from processors.standard.update_attribute import UpdateAttribute
from processors.standard.wait import Wait

__all__ = [
    "AttributesToJSON",
    "CompressContent",
    "ControlRate",
    "CryptographicHashContent",
    "DetectDuplicate",
    "DuplicateFlowFile",
    "EvaluateJsonPath",
    "ExtractText",
    "FetchFile",
    "Funnel",
    "GenerateFlowFile",
    "GetFile",
    "InvokeHTTP",
    "ListFile",
    "ListenHTTP",
    "LmdbMapCacheService",
    "LogAttribute",
    "MergeContent",
    "Notify",
    "PutFile",
    "ReplaceText",
    "RouteOnAttribute",
    "RouteOnContent",
    "RouteText",
    "SplitJson",
    "SplitText",
    "Unsupported",
    "UpdateAttribute",
    "Wait",
]
