# A FlowFileSource written to NiFi's Python Developer Guide, unmodified.
from nifiapi.componentstate import Scope
from nifiapi.flowfilesource import FlowFileSource, FlowFileSourceResult
from nifiapi.properties import PropertyDescriptor, StandardValidators


class CreateGreeting(FlowFileSource):
    class Java:
        implements = ["org.apache.nifi.python.processor.FlowFileSource"]

    class ProcessorDetails:
        version = "0.0.1-SNAPSHOT"
        description = "Creates a greeting; counts the greetings in state"

    NAME = PropertyDescriptor(
        name="Name",
        description="Who to greet",
        default_value="World",
        validators=[StandardValidators.NON_EMPTY_VALIDATOR],
    )
    MAX = PropertyDescriptor(
        name="Max Greetings",
        description="How many greetings to create in all",
        default_value="2",
        validators=[StandardValidators.POSITIVE_INTEGER_VALIDATOR],
    )

    def __init__(self, **kwargs):
        pass

    def getPropertyDescriptors(self):
        return [self.NAME, self.MAX]

    def create(self, context):
        state = context.getStateManager().getState(Scope.LOCAL)
        count = int(state.get("count") or 0)
        if count >= context.getProperty(self.MAX).asInteger():
            context.yield_resources()
            return None
        context.getStateManager().setState({"count": str(count + 1)}, Scope.LOCAL)
        return FlowFileSourceResult(
            relationship="success",
            attributes={"greeting.number": str(count + 1)},
            contents="Hello, " + context.getProperty(self.NAME).getValue(),
        )
