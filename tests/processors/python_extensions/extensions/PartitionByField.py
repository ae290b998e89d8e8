# A RecordTransform written to NiFi's Python Developer Guide, unmodified.
from nifiapi.properties import PropertyDescriptor, StandardValidators, ExpressionLanguageScope
from nifiapi.recordtransform import RecordTransform, RecordTransformResult


class PartitionByField(RecordTransform):
    class Java:
        implements = ["org.apache.nifi.python.processor.RecordTransform"]

    class ProcessorDetails:
        version = "0.0.1-SNAPSHOT"
        description = (
            "Partitions records by the value of a field and drops records flagged for removal"
        )
        tags = ["record", "partition"]

    FIELD_NAME = PropertyDescriptor(
        name="Field Name",
        description="The name of the field to partition by",
        required=True,
        validators=[StandardValidators.NON_EMPTY_VALIDATOR],
        expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    )

    def __init__(self, **kwargs):
        super().__init__()

    def getPropertyDescriptors(self):
        return [self.FIELD_NAME]

    def transform(self, context, record, schema, attributemap):
        if record.get("remove"):
            return RecordTransformResult(record=None)
        field = (
            context.getProperty(self.FIELD_NAME)
            .evaluateAttributeExpressions(attributemap)
            .getValue()
        )
        value = record.get(field)
        record["seen_by"] = "python"
        return RecordTransformResult(
            record=record, relationship="success", partition={field: value}
        )
