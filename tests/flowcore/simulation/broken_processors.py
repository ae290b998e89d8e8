"""Deliberately broken processors: the simulator must catch each of them.

(``OrderedFileSource`` is a correct source the test flows read their files with.)

``EagerSink`` acknowledges before it delivers: it takes FlowFiles, removes them (their
DROP commits) and keeps their lines in memory, writing them out to its directory only
on its next trigger; a crash in between loses them. ``MemoryTotal`` keeps a running
total in memory instead of in its state, so a restart starts it again from zero and the
totals it writes after a crash count twice what came before. ``EarlyWriter`` delivers
(writes its file and records the delivery) before its session commits, so a crash
before the commit delivers the FlowFile again: at-least-once, reported as a
re-delivery.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from flowcore.delivery import record_delivery
from flowcore.processor import (
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    processor,
)
from flowcore.processor.descriptors import Scheduling
from flowcore.session import ProcessSession

DIRECTORY = PropertyDescriptor(name="Directory", display_name="Directory", required=True)


@processor("OrderedFileSource")
class OrderedFileSource(Processor):
    """A correct source, for the flows above: one FlowFile per file of its Directory, in
    name order, two per trigger; how far it has got is state committed with them."""

    relationships: ClassVar[list[Relationship]] = [Relationship("success")]
    property_descriptors: ClassVar[list[PropertyDescriptor]] = [DIRECTORY]
    scheduling = Scheduling(input_required=False)

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        files = sorted(Path(context.get_property(DIRECTORY).as_str()).iterdir())
        start = int(session.get_state().get("next", "0"))
        if start >= len(files):
            context.yield_processor()
            return
        for path in files[start : start + 2]:
            flowfile = session.write(session.create(), path.read_bytes())
            session.transfer(session.put_attribute(flowfile, "filename", path.name), "success")
        session.set_state({"next": str(min(start + 2, len(files)))})


@processor("EagerSink")
class EagerSink(Processor):
    relationships: ClassVar[list[Relationship]] = []
    property_descriptors: ClassVar[list[PropertyDescriptor]] = [DIRECTORY]
    scheduling = Scheduling(trigger_when_empty=True)  # to write out what it holds

    def __init__(self) -> None:
        super().__init__()
        self._pending: list[tuple[str, bytes]] = []

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        folder = Path(context.get_property(DIRECTORY).as_str())
        for uuid, data in self._pending:
            (folder / uuid).write_bytes(data)
            record_delivery(context.name, uuid, f"file://{folder / uuid}", lambda d=data: d)
        self._pending = []
        for flowfile in session.get_batch(5):
            self._pending.append((flowfile.uuid, session.read(flowfile)))
            session.remove(flowfile)


@processor("MemoryTotal")
class MemoryTotal(Processor):
    relationships: ClassVar[list[Relationship]] = [Relationship("success")]

    def __init__(self) -> None:
        super().__init__()
        self._total = 0

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        self._total += len(session.read(flowfile).splitlines())
        flowfile = session.write(flowfile, f"total {self._total}\n".encode())
        session.transfer(session.put_attribute(flowfile, "filename", flowfile.uuid), "success")


@processor("EarlyWriter")
class EarlyWriter(Processor):
    relationships: ClassVar[list[Relationship]] = []
    property_descriptors: ClassVar[list[PropertyDescriptor]] = [DIRECTORY]

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        folder = Path(context.get_property(DIRECTORY).as_str())
        for flowfile in session.get_batch(5):
            data = session.read(flowfile)
            target = folder / flowfile.uuid
            target.write_bytes(data)
            record_delivery(context.name, flowfile.uuid, f"file://{target}", lambda d=data: d)
            session.remove(flowfile)
