from nifiapi.properties import PropertyDescriptor, StandardValidators, ExpressionLanguageScope
from nifiapi.recordtransform import RecordTransform, RecordTransformResult


class PartitionOrders(RecordTransform):
    class Java:
        implements = ['org.apache.nifi.python.processor.RecordTransform']

    class ProcessorDetails:
        version = '0.0.1-SNAPSHOT'
        description = 'Partitions orders by a field and adds each order total (qty * price)'
        tags = ['orders', 'partition', 'record']

    PARTITION_FIELD = PropertyDescriptor(
        name='Partition Field',
        description='The field whose value groups the orders into FlowFiles',
        required=True,
        validators=[StandardValidators.NON_EMPTY_VALIDATOR],
        expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    )

    def __init__(self, **kwargs):
        super().__init__()

    def getPropertyDescriptors(self):
        return [self.PARTITION_FIELD]

    def transform(self, context, record, schema, attributemap):
        field = context.getProperty(self.PARTITION_FIELD).evaluateAttributeExpressions(attributemap).getValue()
        record['total'] = round(record['qty'] * record['price'], 2)
        return RecordTransformResult(record=record, relationship='success',
                                     partition={field: record.get(field)})
