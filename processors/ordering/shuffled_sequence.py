"""ShuffledSequence: a demo source of numbered FlowFiles for several groups, out of order.

Not a NiFi processor. It exists for ``samples/enforce_order`` and the EnforceOrder
benchmark: it produces ``Group Count`` groups (``group-000``, ``group-001``, ...) of
``Group Size`` FlowFiles each, numbered 0..size-1 in the attribute ``order``, all of them
shuffled together with a seeded random generator, and emits them ``Batch Size`` per
trigger until all are out. Each FlowFile has the attributes ``group``, ``order`` and
``filename`` (``<order, zero-padded>.txt``) and the content ``<group> item <order>``.

``Omit`` lists ``group:order`` pairs that are never emitted, to simulate a FlowFile lost
upstream (so that EnforceOrder's ``overtook`` path shows). Progress is kept in the
processor's state (``next``), committed with the FlowFiles it created. With several
Concurrent Tasks one task emits at a time: each reads the progress the previous one
committed.
"""

from __future__ import annotations

import random
import threading

from flowcore.processor import (
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    Scheduling,
    processor,
    validators,
)
from flowcore.session import ProcessSession

GROUP_COUNT = PropertyDescriptor(
    name="Group Count",
    display_name="Group Count",
    description="How many groups to generate.",
    required=True,
    default="3",
    validators=[validators.positive_integer],
)
GROUP_SIZE = PropertyDescriptor(
    name="Group Size",
    display_name="Group Size",
    description="How many FlowFiles each group has (orders 0..size-1).",
    required=True,
    default="10",
    validators=[validators.positive_integer],
)
SEED = PropertyDescriptor(
    name="Seed",
    display_name="Seed",
    description="Seed of the shuffle, so that runs are repeatable.",
    required=True,
    default="42",
    validators=[validators.integer],
)
BATCH_SIZE = PropertyDescriptor(
    name="Batch Size",
    display_name="Batch Size",
    description="How many FlowFiles to emit per trigger.",
    required=True,
    default="10",
    validators=[validators.positive_integer],
)
OMIT = PropertyDescriptor(
    name="Omit",
    display_name="Omit",
    description="Comma-separated 'group:order' pairs never emitted, e.g. 'group-001:3'.",
)

SUCCESS = Relationship("success", "Every generated FlowFile")


def group_name(index: int) -> str:
    return f"group-{index:03d}"


def shuffled(groups: int, size: int, seed: int) -> list[tuple[str, int]]:
    """Every (group, order) pair, shuffled with the seed."""
    pairs = [(group_name(g), order) for g in range(groups) for order in range(size)]
    random.Random(seed).shuffle(pairs)
    return pairs


@processor("ShuffledSequence")
class ShuffledSequence(Processor):
    description = "Demo source: numbered FlowFiles of several groups in a seeded shuffled order."
    tags = ("demo", "order")
    property_descriptors = (GROUP_COUNT, GROUP_SIZE, SEED, BATCH_SIZE, OMIT)
    relationships = (SUCCESS,)
    scheduling = Scheduling(input_required=False)

    def __init__(self) -> None:
        super().__init__()
        self._pairs: list[tuple[str, int]] = []
        self._one_task = threading.Lock()
        """Held by the task that emits, from reading the progress to committing it:
        concurrent tasks share the progress, so two must not read the same."""

    def on_scheduled(self, context: ProcessContext) -> None:
        omit = {
            item.strip() for item in context.get_property(OMIT).as_str().split(",") if item.strip()
        }
        pairs = shuffled(
            context.get_property(GROUP_COUNT).as_int() or 1,
            context.get_property(GROUP_SIZE).as_int() or 1,
            context.get_property(SEED).as_int() or 0,
        )
        self._pairs = [(g, o) for g, o in pairs if f"{g}:{o}" not in omit]

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        with self._one_task:
            self._emit(context, session)
            session.commit()

    def _emit(self, context: ProcessContext, session: ProcessSession) -> None:
        state = session.get_state()
        start = int(state.get("next", "0"))
        if start >= len(self._pairs):
            return  # done: a trigger that moves nothing lets run_until_idle finish
        end = min(start + (context.get_property(BATCH_SIZE).as_int() or 1), len(self._pairs))
        width = len(str(context.get_property(GROUP_SIZE).as_int() or 1))
        for group, order in self._pairs[start:end]:
            flowfile = session.create()
            flowfile = session.write(flowfile, f"{group} item {order}\n".encode())
            flowfile = session.put_all_attributes(
                flowfile,
                {"group": group, "order": str(order), "filename": f"{order:0{width}d}.txt"},
            )
            session.transfer(flowfile, SUCCESS)
        session.set_state({"next": str(end)})
