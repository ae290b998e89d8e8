# A FlowFileTransform with Expression Language, validators and a dependency, unmodified.
from nifiapi.flowfiletransform import FlowFileTransform, FlowFileTransformResult
from nifiapi.properties import (
    ExpressionLanguageScope,
    PropertyDependency,
    PropertyDescriptor,
    StandardValidators,
    TimeUnit,
    DataUnit,
)


class AddPrefix(FlowFileTransform):
    class Java:
        implements = ["org.apache.nifi.python.processor.FlowFileTransform"]

    class ProcessorDetails:
        version = "0.0.1-SNAPSHOT"
        description = "Prefixes each line of the content"

    PREFIX = PropertyDescriptor(
        name="Prefix",
        description="Text put before each line",
        required=True,
        validators=[StandardValidators.NON_EMPTY_VALIDATOR],
        expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    )
    REPEAT = PropertyDescriptor(
        name="Repeat Count",
        display_name="Repeat Count",
        description="How many times the prefix is repeated",
        required=True,
        default_value="1",
        validators=[StandardValidators.POSITIVE_INTEGER_VALIDATOR],
    )
    ADD_TIMING = PropertyDescriptor(
        name="Add Timing",
        description="Whether to add the timing attributes",
        default_value="false",
        allowable_values=["true", "false"],
    )
    DELAY = PropertyDescriptor(
        name="Delay",
        description="A period reported in an attribute",
        required=True,
        validators=[StandardValidators.TIME_PERIOD_VALIDATOR],
        dependencies=[PropertyDependency(ADD_TIMING, "true")],
    )
    LIMIT = PropertyDescriptor(
        name="Limit",
        description="A size reported in an attribute",
        default_value="1 KB",
        validators=[StandardValidators.DATA_SIZE_VALIDATOR],
        dependencies=[PropertyDependency(ADD_TIMING, "true")],
    )

    def __init__(self, **kwargs):
        super().__init__()

    def getPropertyDescriptors(self):
        return [self.PREFIX, self.REPEAT, self.ADD_TIMING, self.DELAY, self.LIMIT]

    def transform(self, context, flowfile):
        prefix = context.getProperty(self.PREFIX).evaluateAttributeExpressions(flowfile).getValue()
        prefix = prefix * context.getProperty(self.REPEAT).asInteger()
        reader = flowfile.getContentsAsReader()
        lines = []
        line = reader.readLine()
        while line is not None:
            lines.append(prefix + line)
            line = reader.readLine()
        attributes = {}
        if context.getProperty(self.ADD_TIMING).asBoolean():
            attributes["delay.millis"] = str(
                context.getProperty(self.DELAY).asTimePeriod(TimeUnit.MILLISECONDS)
            )
            attributes["limit.bytes"] = str(
                int(context.getProperty(self.LIMIT).asDataSize(DataUnit.B))
            )
        elif context.getProperty(self.DELAY) is not None:
            attributes["delay.visible"] = "true"
        return FlowFileTransformResult(
            relationship="success", contents="\n".join(lines), attributes=attributes
        )
