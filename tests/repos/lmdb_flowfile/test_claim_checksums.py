"""Content claim checksums in FlowFile records: kept across a restart, absent in old ones."""

from __future__ import annotations

from typing import Any

import lmdb
import msgspec

from flowcore.clock import ManualClock
from flowcore.model import ContentClaim, FlowFile, ResourceClaim
from flowcore.repository import QueuedFlowFile, RepositoryUpdate
from repos.lmdb_flowfile import LmdbFlowFileRepository
from repos.lmdb_flowfile.codec import id_key

CHECKSUM = 0xFEDC_BA98_7654_3210  # above 2**63: the full unsigned 64-bit range survives


def flowfile(ident: int, claim: ContentClaim) -> FlowFile:
    return FlowFile(
        id=ident,
        attributes={"uuid": f"uuid-{ident}", "filename": f"f{ident}", "path": "./"},
        claim=claim,
        claim_offset=0,
        size=claim.length,
        entry_date=ident,
        lineage_start_date=0,
    )


def test_a_claim_checksum_survives_a_restart(settings_factory: Any, closing: Any) -> None:
    settings = settings_factory()
    claim = ContentClaim(ResourceClaim("0", "1", "c"), 0, 10, CHECKSUM)
    repo = LmdbFlowFileRepository(settings, ManualClock())
    repo.commit(RepositoryUpdate(puts=[QueuedFlowFile("q", 0, flowfile(1, claim))]))
    repo.close()

    again = closing(LmdbFlowFileRepository(settings, ManualClock()))
    (record,) = again.recover().queues["q"]
    assert record.flowfile.claim == claim
    assert record.flowfile.claim is not None and record.flowfile.claim.checksum == CHECKSUM


def test_a_record_written_before_checksums_still_recovers(
    settings_factory: Any, closing: Any
) -> None:
    """A record of an older flowcore: its claim is a three-element array, no checksum."""
    settings = settings_factory()
    LmdbFlowFileRepository(settings, ManualClock()).close()
    old_record = msgspec.msgpack.encode(
        [
            "q",
            0,
            [
                7,
                {"uuid": "old", "filename": "old", "path": "./"},
                [["0", "5", "legacy"], 100, 12],
                0,
                12,
                1,
                1,
                0,
            ],
        ]
    )
    env = lmdb.open(str(settings.flowfile_repository_dir), max_dbs=8)
    with env.begin(write=True, db=env.open_db(b"flowfiles")) as txn:
        txn.put(id_key(7), old_record)
    env.close()

    repo = closing(LmdbFlowFileRepository(settings, ManualClock()))
    state = repo.recover()
    (record,) = state.queues["q"]
    assert record.flowfile.claim == ContentClaim(ResourceClaim("0", "5", "legacy"), 100, 12)
    assert record.flowfile.claim is not None and record.flowfile.claim.checksum is None
    assert state.claim_references[ResourceClaim("0", "5", "legacy")] == 1
