"""The filesystem content repository: NiFi's FileSystemRepository for flowcore.

Content is appended into shared resource-claim files under one or more container
directories, counted per claim and archived (or deleted) once nothing references it.
"""

from repos.filesystem_content.repository import FileSystemContentRepository

__all__ = ["FileSystemContentRepository"]
