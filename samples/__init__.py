"""Sample flows that run end to end on the embedded defaults (``make demo``)."""
