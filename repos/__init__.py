"""Implementations of flowcore's repository contracts: LMDB, filesystem and DuckDB."""
