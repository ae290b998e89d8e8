"""flowcore: a Python dataflow engine in the manner of Apache NiFi.

The package defines the model (FlowFiles, claims, provenance events), the repository
contracts, the process session and its commit path, and the engine. Implementations of
the repository contracts live in ``repos``; processors live in ``processors``.
"""

__version__ = "0.1.0"
