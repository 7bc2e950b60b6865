"""A client as a game or the lobby sees it, in three faces: what can be sent to it
(:class:`Outbox`), who it is (:class:`Identity`) and what it asked for (:class:`Wants`).

A :class:`~server.game.game.Game` and the :class:`~server.lobby.lobby.Lobby` hold clients
as outboxes and nothing more: they queue replies and pushes, end a client's game with
a final line, hold its next command while something it asked for is under way, and
read the few facts about the client a game needs through its other two faces
(``client.who``, ``client.wants``). They never change a client: who is in which game,
and under which name there, is theirs to keep (the session,
:class:`~server.session.client.Connection`, asks them).

So a game or the lobby can be built and tested with an outbox kept in memory,
with no socket, no transport and no server (``tests/server/outboxes.py``).
"""

from __future__ import annotations

from typing import Any, Protocol

import trio

from protocol.replies import FinalReply, Push, Reply

__all__ = ["Identity", "Outbox", "Wants"]


class Identity(Protocol):
    """Who a client is: read-only for a game."""

    @property
    def id(self) -> int:
        """The client's number on this server (games it creates are owned by it)."""
        ...

    @property
    def address(self) -> str:
        """The client's IP address (the per-address limits count by it)."""
        ...

    @property
    def name(self) -> str | None:
        """The name the client asked to go by (``HELLO <name>``), if any."""
        ...

    @property
    def login(self) -> str | None:
        """The claimed name the client proved it owns (``LOGIN``), if any."""
        ...

    @property
    def bot(self) -> bool:
        """Whether the client said it is a bot (others see its player as ``B``)."""
        ...

    @property
    def dialect(self) -> str:
        """The name of the dialect the client speaks (for the game's record)."""
        ...

    @property
    def probe(self) -> bool:
        """Whether the client checks the server (``EXTEND probe``, a conformance run):
        a game only probes played is not recorded, nor listed by default."""
        ...

    @property
    def log(self) -> Any:
        """The structlog logger for events about this client (rate-limited per address)."""
        ...


class Wants(Protocol):
    """What a client asked for (``EXTEND``, or its dialect gave it): read-only for a game."""

    @property
    def events(self) -> bool:
        """Pushed lines about its game."""
        ...

    @property
    def chat(self) -> bool:
        """``MESSAGE`` lines."""
        ...

    @property
    def board(self) -> bool:
        """To be told who is where (``LEVEL``, ``BOARD``)."""
        ...

    @property
    def redirect(self) -> bool:
        """To be told where another node's game lives (``REDIRECT``) rather than be
        carried there."""
        ...


class Outbox(Protocol):
    """What can be sent to a client, and its two other faces.

    ``send`` and ``push`` never block: lines are queued for the client.
    """

    @property
    def who(self) -> Identity:
        """Who the client is."""
        ...

    @property
    def wants(self) -> Wants:
        """What the client asked for."""
        ...

    @property
    def closed(self) -> bool:
        """Whether the client is gone or going: lines sent now may never arrive."""
        ...

    @property
    def backlogged(self) -> bool:
        """Whether the client has more unread lines queued than it should (send it
        nothing that a later line replaces)."""
        ...

    def send(self, reply: Reply) -> None:
        """Queue ``reply`` to a command of the client's."""
        ...

    def push(self, line: Push) -> None:
        """Queue a line the client did not ask for by a command (it asked for events
        or chat)."""
        ...

    def finish(self, final: FinalReply, *, reason: str) -> None:
        """The client's game is over for it: ``final`` (``WIN``, ``LOSE``, ``BYE``) is
        its last line there, and the client closes unless its dialect keeps it."""
        ...

    def wait_for(self, done: trio.Event, *, on_players: bool = False) -> None:
        """Handle no further command of the client's until ``done`` is set (its
        action waits for a round, its ``CREATE`` for a world being built).
        ``on_players``: it waits for other players (their actions, their turns, their
        joining), which may take as long as a turn: meanwhile the client's ``QUIT`` and
        its end are acted on at once (docs/protocol.md, "Commands that wait")."""
        ...
