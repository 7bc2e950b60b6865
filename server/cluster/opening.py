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

if TYPE_CHECKING:
    from .embedded import EmbeddedDirectory
    from .postgres import PostgresDirectory

__all__ = ["open_directory"]


def open_directory(
    url: str | None, *, advertise: str | None, heartbeat: float
) -> LocalDirectory | EmbeddedDirectory | PostgresDirectory:
    """The directory for ``--cluster URL``; one of its own for a server alone (``None``)."""
    if url is None:
        return LocalDirectory()
    if url.startswith("unix:"):
        from .embedded import EmbeddedDirectory

        path = url.removeprefix("unix:")
        return EmbeddedDirectory(path, advertise=advertise, heartbeat=heartbeat)
    from .postgres import PostgresDirectory  # psycopg only where a cluster is asked for

    return PostgresDirectory(url, advertise=advertise, heartbeat=heartbeat)
