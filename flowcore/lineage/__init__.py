"""Lineage exported to other systems."""
