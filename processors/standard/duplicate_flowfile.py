"""DuplicateFlowFile: sends the FlowFile and Number of Copies clones of it to success.

Follows NiFi's DuplicateFlowFile: each clone shares the content (a CLONE event) and gets
``copy.index`` 1..N; the original gets ``copy.index`` 0. A Number of Copies that does not
evaluate to a non-negative integer penalizes the FlowFile and returns it to its queue.
"""

from __future__ import annotations

from flowcore.processor import (
    ExpressionLanguageScope,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    ValidationResult,
    processor,
    validators,
)
from flowcore.session import ProcessSession

COPY_INDEX = "copy.index"


def _copies(subject: str, value: str) -> ValidationResult:
    if "${" in value:
        return ValidationResult(subject, True, value)
    return validators.non_negative_integer(subject, value)


NUM_COPIES = PropertyDescriptor(
    name="Number of Copies",
    display_name="Number of Copies",
    description="Specifies how many copies of each incoming FlowFile will be made",
    default="100",
    required=True,
    validators=[_copies],
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
SUCCESS = Relationship(
    "success", "The original FlowFile and all copies will be sent to this relationship"
)


@processor("DuplicateFlowFile")
class DuplicateFlowFile(Processor):
    description = (
        "Intended for load testing, this processor will create the configured number of "
        "copies of each incoming FlowFile. The original FlowFile as well as all generated "
        "copies are sent to the 'success' relationship. In addition, each FlowFile gets an "
        "attribute 'copy.index' set to the copy number, where the original FlowFile gets a "
        "value of zero, and all copies receive incremented integer values."
    )
    tags = ("test", "load", "duplicate")
    property_descriptors = (NUM_COPIES,)
    relationships = (SUCCESS,)

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        text = context.get_property(NUM_COPIES).evaluate(flowfile).as_str().strip()
        if not text.isdigit():
            self.logger.error(
                "Number of Copies '%s' is not a non-negative integer for %s; penalizing it",
                text,
                flowfile.uuid,
            )
            session.transfer(session.penalize(flowfile))
            return
        for index in range(1, int(text) + 1):
            copy = session.clone(flowfile)
            session.transfer(session.put_attribute(copy, COPY_INDEX, str(index)), SUCCESS)
        session.transfer(session.put_attribute(flowfile, COPY_INDEX, "0"), SUCCESS)
