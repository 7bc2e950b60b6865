"""The server as its web face sees it: small roles, each what the web face reads.

The web face serves a running :class:`server.app.Server` (the one implementation of
:class:`Site`) but never imports it: it stands beside the server, under the command
line that starts both, and reads only what these roles declare.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Protocol

import trio

from protocol.replies import GameInfo
from records.writer import RecordWriter

from ..metrics import Counts
from ..session.admission import Admission
from ..setup.config import ServerConfig
from ..setup.logs import RateLimitedLogger

__all__ = ["ListedElsewhere", "ListedGame", "Nodes", "Site", "WebLadder", "WebLobby"]


class ListedGame(Protocol):
    """A game, as the web page lists it (:class:`server.game.game.Game`)."""

    @property
    def world_name(self) -> str: ...

    @property
    def round(self) -> int:
        """Rounds resolved in its world."""
        ...

    def info(self) -> GameInfo:
        """The game as ``GAMES`` lists it."""
        ...


class ListedElsewhere(Protocol):
    """A game another node of the cluster holds
    (:class:`server.cluster.directory.RemoteGame`)."""

    @property
    def name(self) -> str: ...

    @property
    def address(self) -> str:
        """``HOST:PORT`` its node advertises for clients."""
        ...

    @property
    def info(self) -> GameInfo | None:
        """How it was last described (``None`` while its world is being built)."""
        ...


class Nodes(Protocol):
    """The cluster's directory, as the web page reads it
    (:class:`server.cluster.directory.Directory`)."""

    @property
    def node(self) -> str:
        """This node's id."""
        ...

    @property
    def advertise(self) -> str | None:
        """``HOST:PORT`` this node advertises for clients."""
        ...

    def remote_games(self) -> Iterable[ListedElsewhere]:
        """Every game other nodes hold, from the local copy."""
        ...


class WebLobby(Protocol):
    """The lobby, as the web page reads it (:class:`server.lobby.lobby.Lobby`)."""

    @property
    def default(self) -> ListedGame:
        """The server's own game."""
        ...


class WebLadder(Protocol):
    """The ladder, as the web page reads the records (:class:`server.lobby.ladder.Ladder`)."""

    @property
    def writer(self) -> RecordWriter | None:
        """The server's records (``None``: it keeps none)."""
        ...


class Site(Protocol):
    """The server, as its web face sees it (:class:`server.app.Server`)."""

    @property
    def config(self) -> ServerConfig: ...

    @property
    def ready(self) -> bool:
        """Whether the server listens and accepts players."""
        ...

    @property
    def port(self) -> int | None: ...

    @property
    def games(self) -> Mapping[str, ListedGame]: ...

    @property
    def connections(self) -> Collection[object]: ...

    @property
    def counts(self) -> Counts: ...

    @property
    def admission(self) -> Admission: ...

    @property
    def directory(self) -> Nodes: ...

    @property
    def lobby(self) -> WebLobby: ...

    @property
    def ladder(self) -> WebLadder: ...

    def client_log(self, host: str) -> RateLimitedLogger:
        """The logger of events about the client at ``host`` (rate-limited by address)."""
        ...

    async def serve_stream(
        self,
        stream: trio.abc.Stream,
        *,
        host: str,
        port: int = 0,
        count_socket: bool = True,
        count_address: bool = True,
    ) -> None:
        """Serve one client on ``stream`` until it leaves (see the server's)."""
        ...
