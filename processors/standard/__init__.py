"""The everyday processors: importing this package registers every one of them.

GenerateFlowFile, GetFile, PutFile, UpdateAttribute, RouteOnAttribute, LogAttribute,
SplitText and Funnel, one module each (and Unsupported, the stand-in for a NiFi
component flowcore lacks), following Apache NiFi's processors of the same
names (each module's docstring lists where it differs or chooses).
"""

from processors.standard.detect_duplicate import DetectDuplicate
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
from processors.standard.route_on_attribute import RouteOnAttribute
from processors.standard.split_text import SplitText
from processors.standard.unsupported import Unsupported
from processors.standard.update_attribute import UpdateAttribute
from processors.standard.wait import Wait

__all__ = [
    "DetectDuplicate",
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
    "RouteOnAttribute",
    "SplitText",
    "Unsupported",
    "UpdateAttribute",
    "Wait",
]
