"""What a client's session sees of the rest of the server: small roles, each what it uses.

A session (:class:`~server.session.client.Connection`) is served by a server
(:class:`Serving`, :class:`server.app.Server`), sends game commands to the lobby
(:class:`Hall`, :class:`server.lobby.lobby.Lobby`) and the records' commands to the ladder
(:class:`Claims`, :class:`server.lobby.ladder.Ladder`), and reads a little of the game its
client plays in (:class:`Room`, :class:`server.game.game.Game`). The composition root
(:mod:`server.app`) hands it the real ones; a test may hand it others.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import trio

from dungeon_of_doom.protocol.commands import Command, Hello
from dungeon_of_doom.protocol.replies import Error, GameInfo, HelpReply
from dungeon_of_doom.worlds.api import PlayerId, PlayerKind, World

from ..game.outbox import Outbox
from ..lobby.claimant import Claimant
from ..metrics import Counts
from ..replay.shelf import Flushes
from ..setup.config import ServerConfig
from .poller import Poller

__all__ = ["Claims", "Hall", "Room", "Serving"]


class Room(Protocol):
    """A game, as a session reads it and greets a client into it."""

    @property
    def world(self) -> World:
        """The world played in now."""
        ...

    @property
    def restarting(self) -> bool:
        """Whether a fresh world is being built (a step waits for it: :meth:`hold`)."""
        ...

    def hold(self, client: Outbox, step: Callable[[], None]) -> bool:
        """Whether ``step`` waits for the fresh world (then it is done once it is ready)."""
        ...

    def join(self, client: Outbox, kind: PlayerKind = PlayerKind.HUMAN) -> PlayerId:
        """Put ``client`` in the world; raises what the world raises."""
        ...

    def name_of(self, player: PlayerId) -> str | None:
        """The name ``player`` goes by in the game, if any."""
        ...

    def help(self) -> HelpReply: ...

    def info(self) -> GameInfo:
        """The game as ``GAMES`` lists it."""
        ...


class Hall(Protocol):
    """The lobby, as a session sends its client's commands there and asks where it is."""

    @property
    def default(self) -> Room:
        """The game a client plays in until it joins or watches another."""
        ...

    def seat(self, client: Outbox) -> tuple[Room, PlayerId] | None:
        """The game ``client`` plays in and its player there, if it plays."""
        ...

    def game_for(self, client: Outbox) -> Room:
        """The game ``client`` watches or plays in."""
        ...

    def watching(self, client: Outbox) -> object | None:
        """The game ``client`` watches, if it watches one."""
        ...

    def listen(self, client: Outbox) -> None:
        """``client`` asked for events: its game pushes them from now on."""
        ...

    def handle(self, client: Outbox, command: Command) -> None:
        """Answer ``GAMES``, ``CREATE``, ``JOIN`` or ``WATCH``."""
        ...

    def command(self, client: Outbox, command: Command) -> None:
        """A game command: to the game ``client`` watches or plays in."""
        ...

    def hello(self, client: Outbox, command: Hello) -> None:
        """``HELLO``: to the game ``client`` plays in, once its name is this node's."""
        ...

    def leave(self, client: Outbox, why: str) -> None:
        """``client`` stops playing or watching."""
        ...

    def client_gone(self, client: Outbox) -> None:
        """``client`` has ended (its games nobody joined go with it)."""
        ...

    def settle(self) -> None:
        """Make lasting what the commands just handled changed (the replays)."""
        ...

    @property
    def replays(self) -> Flushes | None:
        """The shelf of every game's replays, whose ``flush`` :meth:`settle` is (``None``:
        no replays kept, nothing to settle)."""
        ...


class Claims(Protocol):
    """The ladder, as a session sends it ``LEADERBOARD``, ``REGISTER`` and ``LOGIN``."""

    def handle(self, connection: Claimant, command: Command) -> None: ...

    def refusal(self, connection: Claimant, command: Hello) -> Error | None:
        """Why ``command`` may not take its name (someone else claimed it), or ``None``."""
        ...

    def hold(self, connection: Claimant) -> bool:
        """Whether a logged-in player whose connection dropped is kept in its game."""
        ...


class Serving(Protocol):
    """What a session needs of its server (:class:`server.app.Server` is one)."""

    @property
    def config(self) -> ServerConfig: ...
    @property
    def log(self) -> Any: ...
    @property
    def lobby(self) -> Hall: ...
    @property
    def ladder(self) -> Claims: ...
    @property
    def counts(self) -> Counts: ...
    @property
    def poller(self) -> Poller | None: ...
    @property
    def writers(self) -> trio.Nursery | None: ...
