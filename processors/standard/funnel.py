"""Funnel: passes every FlowFile through to success, unchanged.

NiFi's Funnel is a component of its own that merges connections; here it is a processor
with one relationship. FlowFiles are moved in batches of 1000 per trigger and nothing is
reported to provenance, since nothing about them changes.
"""

from __future__ import annotations

from flowcore.processor import ProcessContext, Processor, Relationship, processor
from flowcore.session import ProcessSession

BATCH_SIZE = 1000

SUCCESS = Relationship("success", "All FlowFiles are routed to success")


@processor("Funnel")
class Funnel(Processor):
    description = "Passes FlowFiles from any number of connections to success, unchanged."
    tags = ("funnel", "pass-through", "merge connections")
    relationships = (SUCCESS,)

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        for flowfile in session.get_batch(BATCH_SIZE):
            session.transfer(flowfile, SUCCESS)
