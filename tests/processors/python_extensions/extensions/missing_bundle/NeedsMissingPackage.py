import flowcore_no_such_package

from nifiapi.flowfiletransform import FlowFileTransform, FlowFileTransformResult


class NeedsMissingPackage(FlowFileTransform):
    class Java:
        implements = ["org.apache.nifi.python.processor.FlowFileTransform"]

    class ProcessorDetails:
        version = "0.0.1-SNAPSHOT"

    def transform(self, context, flowfile):
        return FlowFileTransformResult(
            relationship="success",
            contents=flowcore_no_such_package.convert(flowfile.getContentsAsBytes()),
        )
