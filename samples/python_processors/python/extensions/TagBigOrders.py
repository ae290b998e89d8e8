import json

from nifiapi.flowfiletransform import FlowFileTransform, FlowFileTransformResult
from nifiapi.properties import PropertyDescriptor, StandardValidators, ExpressionLanguageScope
from nifiapi.relationship import Relationship


class TagBigOrders(FlowFileTransform):
    class Java:
        implements = ['org.apache.nifi.python.processor.FlowFileTransform']

    class ProcessorDetails:
        version = '0.0.1-SNAPSHOT'
        description = 'Adds the orders total of a JSON array and routes it to big or small'
        tags = ['orders', 'route']

    LIMIT = PropertyDescriptor(
        name='Limit',
        description='Orders adding up to more than this go to big',
        required=True,
        default_value='100',
        validators=[StandardValidators.NUMBER_VALIDATOR],
    )
    OUTPUT_NAME = PropertyDescriptor(
        name='Output Name',
        description='The filename given to the FlowFile',
        required=True,
        expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    )

    REL_BIG = Relationship(name='big', description='Orders adding up to more than the limit')
    REL_SMALL = Relationship(name='small', description='The other orders')

    def __init__(self, **kwargs):
        super().__init__()

    def getPropertyDescriptors(self):
        return [self.LIMIT, self.OUTPUT_NAME]

    def getRelationships(self):
        return [self.REL_BIG, self.REL_SMALL]

    def transform(self, context, flowfile):
        orders = json.loads(flowfile.getContentsAsBytes())
        total = round(sum(order['total'] for order in orders), 2)
        limit = context.getProperty(self.LIMIT).asFloat()
        name = context.getProperty(self.OUTPUT_NAME).evaluateAttributeExpressions(flowfile).getValue()
        self.logger.info('{} orders in {} add up to {}', len(orders), name, total)
        return FlowFileTransformResult(relationship='big' if total > limit else 'small',
                                       attributes={'orders.total': str(total), 'filename': name})
