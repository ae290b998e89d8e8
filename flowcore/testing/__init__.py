"""Test harness for processors, in the manner of nifi-mock."""

from flowcore.testing.mock_flowfile import MockFlowFile
from flowcore.testing.runner import TestRunner

__all__ = ["MockFlowFile", "TestRunner"]
