"""Processors: the everyday ones in ``processors.standard``."""
