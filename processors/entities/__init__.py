"""MergeEntities: Sesam's merge source as an incremental, durable processor.

Importing this package registers ``MergeEntities``. The pure parts (``config``,
``expressions``, ``output``, ``components``, ``incremental``, ``bulk``) do not depend on
the engine; ``index`` keeps the entity index in any keyed store.
"""

from processors.entities.merge_entities import MergeEntities

__all__ = ["MergeEntities"]
