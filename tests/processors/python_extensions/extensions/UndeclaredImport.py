# Imports a package it does not declare in ProcessorDetails.dependencies.
import flowcore_undeclared_package

from nifiapi.flowfiletransform import FlowFileTransform, FlowFileTransformResult


class UndeclaredImport(FlowFileTransform):
    class Java:
        implements = ["org.apache.nifi.python.processor.FlowFileTransform"]

    class ProcessorDetails:
        version = "0.0.1-SNAPSHOT"
        dependencies = ["flowcore-another-missing-package>=2"]

    def transform(self, context, flowfile):
        return FlowFileTransformResult(relationship="success")
