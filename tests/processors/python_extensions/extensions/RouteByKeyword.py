# A FlowFileTransform written to NiFi's Python Developer Guide, unmodified.
from nifiapi.flowfiletransform import FlowFileTransform, FlowFileTransformResult
from nifiapi.properties import PropertyDescriptor, StandardValidators
from nifiapi.relationship import Relationship


class RouteByKeyword(FlowFileTransform):
    class Java:
        implements = ["org.apache.nifi.python.processor.FlowFileTransform"]

    class ProcessorDetails:
        version = "1.0.0"
        description = "Routes text that contains a keyword to matched, and adds attributes"
        tags = ["text", "route"]

    KEYWORD = PropertyDescriptor(
        name="Keyword",
        description="The word to look for",
        required=True,
        validators=[StandardValidators.NON_EMPTY_VALIDATOR],
    )
    UPPERCASE = PropertyDescriptor(
        name="Uppercase Content",
        description="Whether matched content is upper-cased",
        required=True,
        default_value="false",
        allowable_values=["true", "false"],
    )

    REL_MATCHED = Relationship(name="matched", description="Content contains the keyword")
    REL_UNMATCHED = Relationship(name="unmatched", description="Content lacks the keyword")

    def __init__(self, jvm):
        super().__init__()
        self.scheduled = 0

    def getPropertyDescriptors(self):
        return [self.KEYWORD, self.UPPERCASE]

    def getRelationships(self):
        return [self.REL_MATCHED, self.REL_UNMATCHED]

    def onScheduled(self, context):
        self.scheduled += 1
        self.keyword = context.getProperty(self.KEYWORD).getValue()

    def transform(self, context, flowfile):
        text = flowfile.getContentsAsBytes().decode("utf-8")
        if "explode" in text:
            raise ValueError("cannot handle explosions")
        if self.keyword in text:
            contents = text.upper() if context.getProperty(self.UPPERCASE).asBoolean() else None
            self.logger.info("Found {} in {}", self.keyword, flowfile.getAttribute("filename"))
            return FlowFileTransformResult(
                relationship="matched",
                contents=contents,
                attributes={
                    "keyword.found": "true",
                    "keyword.size": str(flowfile.getSize()),
                    "keyword.scheduled": str(self.scheduled),
                },
            )
        return FlowFileTransformResult(
            relationship="unmatched", attributes={"keyword.found": "false"}
        )
