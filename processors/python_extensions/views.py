"""What a NiFi Python processor is handed: the FlowFile view, attribute map, context.

``InputFlowFile`` and ``AttributeMap`` have NiFi's camelCase methods; the
``ProcessContext`` is nifiapi's, backed by flowcore's context (Expression Language,
units, controller services) and by the trigger's session for state.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Mapping
from typing import Any

from flowcore.model import FlowFile
from flowcore.processor.context import ProcessContext as FlowcoreContext
from flowcore.processor.context import PropertyValue
from flowcore.session import ProcessSession
from flowcore.units import parse_data_size, parse_time_period
from nifiapi.componentstate import StateException


class LineReader:
    """NiFi's ``getContentsAsReader()``: ``readLine()`` gives each line without its end,
    then None."""

    def __init__(self, data: bytes) -> None:
        self._text = io.StringIO(data.decode("utf-8"))

    def readLine(self) -> str | None:
        line = self._text.readline()
        if not line:
            return None
        return line.rstrip("\r\n")

    def read(self) -> str:
        return self._text.read()

    def close(self) -> None:
        self._text.close()


class InputFlowFile:
    """The FlowFile being transformed; content is read only when asked for."""

    def __init__(self, session: ProcessSession, flowfile: FlowFile) -> None:
        self._session = session
        self._flowfile = flowfile
        self._content: bytes | None = None

    def getContentsAsBytes(self) -> bytes:
        if self._content is None:
            self._content = self._session.read(self._flowfile)
        return self._content

    def getContentsAsReader(self) -> LineReader:
        return LineReader(self.getContentsAsBytes())

    def getSize(self) -> int:
        return self._flowfile.size

    def getAttribute(self, name: str) -> str | None:
        return self._flowfile.attributes.get(name)

    def getAttributes(self) -> dict[str, str]:
        return dict(self._flowfile.attributes)

    def __str__(self) -> str:
        return f"FlowFile[uuid={self._flowfile.attributes.get('uuid', '')}]"


class AttributeMap:
    """A FlowFile's attributes (RecordTransform's ``attributemap``)."""

    def __init__(self, attributes: Mapping[str, str]) -> None:
        self._attributes = dict(attributes)

    def getAttribute(self, name: str) -> str | None:
        return self._attributes.get(name)

    def getAttributes(self) -> dict[str, str]:
        return dict(self._attributes)


class PropertyEngine:
    """nifiapi's property values, worked out by flowcore's context."""

    def __init__(self, context: FlowcoreContext) -> None:
        self._context = context

    def evaluate(self, name: str | None, value: str, attributes: Mapping[str, str]) -> str:
        descriptor = self._context.descriptor(name) if name is not None else None
        return PropertyValue(value, descriptor, self._context).evaluate(attributes).as_str()

    def time_period_ms(self, value: str) -> float:
        return parse_time_period(value) * 1000.0

    def data_size_bytes(self, value: str) -> float:
        return float(parse_data_size(value))

    def controller_service(self, identifier: str) -> Any:
        return self._context.get_controller_service(identifier)


class SessionState(threading.local):
    """Component state through the session of the running trigger (committed with it);
    per thread, as concurrent tasks each run their own session.

    A task that touches the state takes the component's state turn (``turn``, one lock
    shared by the threads) and keeps it until ``end`` has committed its session, so the
    next task reads what it committed: concurrent tasks never read the same state and
    both write it (a lost update, or a ``replace`` that succeeds twice)."""

    session: ProcessSession | None = None
    holds_turn: bool = False

    def __init__(self, turn: threading.Lock) -> None:
        self._turn = turn

    def _current(self) -> ProcessSession:
        if self.session is None:
            msg = "state is available while the processor runs (transform or create)"
            raise StateException(msg)
        if not self.holds_turn:
            self._turn.acquire()
            self.holds_turn = True
        return self.session

    def end(self, commit: bool) -> None:
        """The trigger is over: if it touched the state, commit its session (when
        ``commit``) before the next task may read the state; forget the session."""
        try:
            if self.holds_turn and commit and self.session is not None:
                self.session.commit()
        finally:
            self.session = None
            if self.holds_turn:
                self.holds_turn = False
                self._turn.release()

    def get(self) -> dict[str, str]:
        return self._current().get_state()

    def set(self, values: Mapping[str, str]) -> None:
        self._current().set_state(values)
