"""Performance benchmarks of flowcore, each beside the physical limit measured in the same run.

Run them all with ``python -m benchmarks`` (``make bench``), a smoke test with
``python -m benchmarks --quick``, one with ``--only NAME``; see ``benchmarks/README.md``.
"""
