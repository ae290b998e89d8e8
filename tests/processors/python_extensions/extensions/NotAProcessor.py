# A module with no class implementing a NiFi processor interface: not discovered.
class NotAProcessor:
    class Java:
        implements = ["org.apache.nifi.python.processor.SomethingElse"]
