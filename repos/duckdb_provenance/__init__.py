"""The DuckDB provenance repository (entry point ``duckdb`` in ``flowcore.repositories``)."""

from repos.duckdb_provenance.repository import DuckDbProvenanceRepository

__all__ = ["DuckDbProvenanceRepository"]
