"""EnforceOrder: restore the order of FlowFiles within a group.

Importing this package registers ``EnforceOrder`` and the demo source ``ShuffledSequence``.
"""

from processors.ordering.enforce_order import EnforceOrder
from processors.ordering.shuffled_sequence import ShuffledSequence

__all__ = ["EnforceOrder", "ShuffledSequence"]
