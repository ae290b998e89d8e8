"""The record layer: readers and writers on Arrow, as controller services (issue 3)."""
