# A FlowFileTransform with user-defined (dynamic) properties and customValidate, unmodified.
from nifiapi.flowfiletransform import FlowFileTransform, FlowFileTransformResult
from nifiapi.properties import (
    ExpressionLanguageScope,
    PropertyDescriptor,
    StandardValidators,
    ValidationResult,
)


class SetAttributes(FlowFileTransform):
    class Java:
        implements = ["org.apache.nifi.python.processor.FlowFileTransform"]

    class ProcessorDetails:
        version = "0.0.1-SNAPSHOT"
        description = "Adds an attribute for each user-defined property"

    PREFIX = PropertyDescriptor(
        name="Attribute Prefix",
        description="Put before each attribute name",
        required=False,
    )

    def __init__(self, **kwargs):
        super().__init__()

    def getPropertyDescriptors(self):
        return [self.PREFIX]

    def getDynamicPropertyDescriptor(self, propertyname):
        return PropertyDescriptor(
            name=propertyname,
            description="An attribute to add",
            validators=[StandardValidators.NON_EMPTY_VALIDATOR],
            expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
            dynamic=True,
        )

    def customValidate(self, context):
        dynamic = [key for key in context.getProperties() if key.dynamic]
        if not dynamic:
            return [
                ValidationResult(
                    subject="User-defined Properties",
                    valid=False,
                    explanation="At least one attribute must be added",
                )
            ]
        return []

    def transform(self, context, flowfile):
        prefix = context.getProperty(self.PREFIX).getValue() or ""
        attributes = {}
        for descriptor, value in context.getProperties().items():
            if descriptor.dynamic:
                evaluated = (
                    context.getProperty(descriptor)
                    .evaluateAttributeExpressions(flowfile)
                    .getValue()
                )
                attributes[prefix + descriptor.name] = evaluated
        return FlowFileTransformResult(relationship="success", attributes=attributes)
