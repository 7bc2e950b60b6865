"""Which directory a server keeps: its own, or a cluster's (``--cluster``).

The one module that knows every kind of directory (:mod:`server.cluster.directory`'s
interface, :mod:`server.cluster.embedded` for ``--workers``, :mod:`server.cluster.postgres`
for ``--cluster postgresql://...``): they import the interface, and the server
(:mod:`server.app`) imports this, so no kind of directory imports another's opener.
Each kind is both the lobby's :class:`~server.cluster.directory.Directory` and the
server's :class:`~server.cluster.directory.Node`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .directory import LocalDirectory
from .links import Links

if TYPE_CHECKING:
    from .embedded import EmbeddedDirectory
    from .postgres import PostgresDirectory

__all__ = ["open_directory"]


def open_directory(
    url: str | None, *, advertise: str | None, heartbeat: float, links: Links | None = None
) -> LocalDirectory | EmbeddedDirectory | PostgresDirectory:
    """The directory for ``--cluster URL``; one of its own for a server alone (``None``).
    Its links to other nodes are made as ``links`` says (plain TCP by default)."""
    if url is None:
        return LocalDirectory()
    shared: EmbeddedDirectory | PostgresDirectory
    if url.startswith("unix:"):
        from .embedded import EmbeddedDirectory

        path = url.removeprefix("unix:")
        shared = EmbeddedDirectory(path, advertise=advertise, heartbeat=heartbeat)
    else:
        from .postgres import PostgresDirectory  # psycopg only where a cluster is asked for

        shared = PostgresDirectory(url, advertise=advertise, heartbeat=heartbeat)
    shared.links = links or Links()
    return shared
