# A processor in a package: it imports a module of its package, and needs pyarrow.
import pyarrow

from helpers import shout
from nifiapi.flowfiletransform import FlowFileTransform, FlowFileTransformResult


class Shout(FlowFileTransform):
    class Java:
        implements = ["org.apache.nifi.python.processor.FlowFileTransform"]

    class ProcessorDetails:
        version = "0.0.1-SNAPSHOT"

    def __init__(self, **kwargs):
        pass

    def transform(self, context, flowfile):
        text = flowfile.getContentsAsBytes().decode("utf-8")
        return FlowFileTransformResult(
            relationship="success",
            contents=shout(text),
            attributes={"arrow.version": pyarrow.__version__},
        )
