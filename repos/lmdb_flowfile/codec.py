"""Binary encodings of what the FlowFile repository stores (msgpack through msgspec).

Records hold the full FlowFile state, never a delta, so that replaying any committed
transaction is idempotent. Integer keys are 8-byte big-endian so LMDB keeps them in order.

The structs are msgpack arrays; a field added later goes last with a default, so records
written before it decode with the default: a content claim stored before checksums
existed decodes with ``checksum=None`` and is simply not checked.
"""

from __future__ import annotations

import struct

import msgspec

from flowcore.model.provenance import ProvenanceEvent
from flowcore.repository.flowfile import QueuedFlowFile, SwapSummary

_ID = struct.Struct(">Q")

encode = msgspec.msgpack.Encoder().encode
decode_record = msgspec.msgpack.Decoder(QueuedFlowFile).decode
decode_records = msgspec.msgpack.Decoder(list[QueuedFlowFile]).decode
decode_event = msgspec.msgpack.Decoder(ProvenanceEvent).decode
decode_summary = msgspec.msgpack.Decoder(SwapSummary).decode
decode_state = msgspec.msgpack.Decoder(dict[str, str]).decode


# An id as its key (no Python frame around the C call: it runs per record).
id_key = _ID.pack


def key_id(key: bytes) -> int:
    value: int = _ID.unpack(key)[0]
    return value
