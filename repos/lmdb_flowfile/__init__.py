"""The FlowFile repository in LMDB: the write-ahead log of FlowFile state."""

from repos.lmdb_flowfile.repository import LmdbFlowFileRepository

__all__ = ["LmdbFlowFileRepository"]
