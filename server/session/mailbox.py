"""One client as a game sees it: what can be sent to it, who it is, what it asked for.

A :class:`Mailbox` is the session's side of :class:`~server.game.outbox.Outbox` and its two
other faces (:class:`~server.game.outbox.Identity`, :class:`~server.game.outbox.Wants`): what a
game or the lobby sends is rendered by the client's
:class:`~protocol.connection.ServerProtocol` (in the client's dialect, refusing what the
client did not ask for) and queued on its :class:`~server.session.transport.Transport`,
never awaited (see :mod:`server.session.transport` for back-pressure and the time limits).
:class:`~server.session.client.Connection` is one, with who the client is and what it
does besides.

What a caller may rely on:

* Nothing is rendered for a client that is closing (a game may still tell everyone of
  the move that ended it); a reply the protocol refuses is a server bug, logged and
  dropped, never raised into a game.
* A dialect that pushes its view (:attr:`~protocol.dialects.Dialect.pushes_view`) is
  pushed the client's view instead of ``SAW``, only when it changed; a "look again"
  push (:attr:`~protocol.dialects.Dialect.coalesced`) is queued once until the client
  sends a command.
* In a world with rounds an action is answered when its round resolves: the game hands
  the mailbox the round's ``done`` event (:meth:`Mailbox.wait_for`) and the session
  handles no further command until it is set, so replies always come in the order of
  the commands (it reads on, and acts at once on the client's end or ``QUIT``:
  :meth:`server.session.client.Connection.read_ahead`).
"""

from __future__ import annotations

from typing import Any, Final

import trio

from dungeon_of_doom.protocol.capabilities import CAPABILITIES
from dungeon_of_doom.protocol.connection import ServerProtocol, ServerState
from dungeon_of_doom.protocol.dialects import DEFAULT_DIALECT
from dungeon_of_doom.protocol.errors import LocalProtocolError
from dungeon_of_doom.protocol.lines import ViewChanged
from dungeon_of_doom.protocol.replies import FinalReply, Lose, Push, Reply, Seen, Win

from ..cluster.handshake import Passenger, Told
from ..game.outbox import Identity, Wants
from .roles import Hall
from .transport import Transport

__all__ = ["Mailbox"]

_KNOWN: Final = frozenset(CAPABILITIES)
"""Every capability this node can grant."""


class Mailbox:
    """One client's replies and pushes; see the module docstring."""

    # Per-connection state on every command's path: one compact object, no __dict__
    # (issue 31). "__weakref__": the lobby keeps each client's chat allowance in a
    # WeakKeyDictionary (server.lobby.lobby).
    __slots__ = (
        "__weakref__",
        "_log_to",
        "_turn_told",
        "_view_shown",
        "bot",
        "carried_here",
        "id",
        "lobby",
        "login",
        "look_again_told",
        "name",
        "over",
        "peer",
        "protocol",
        "pushes_view",
        "reads_ahead",
        "transport",
        "view_late",
        "waiting",
    )

    def __init__(
        self,
        protocol: ServerProtocol,
        transport: Transport,
        lobby: Hall,
        connection_id: int,
        peer: str,
        log: Any,
    ) -> None:
        self.protocol = protocol
        self.transport = transport
        self.lobby = lobby
        self.id = connection_id
        self.peer = peer
        """The client's address, ``host:port``, for the logs."""
        self._log_to = log
        """Where events about this client go (the server's logger for its address, which
        rate-limits them); :attr:`log` binds it to this client."""
        self.pushes_view = protocol.dialect.pushes_view
        """Whether the client's dialect pushes its view after each command."""
        self._view_shown: tuple[str, ...] | None = None
        """The view last pushed (dialects that push it): an unchanged view is not sent again."""
        self.look_again_told = False
        """A "look again" push (:attr:`Dialect.coalesced`) is queued and the client has
        sent no command since: another would say nothing new."""
        self.over = False
        """The game ended for this client, which stays (dialects that keep it after ``WIN``)."""
        self.waiting: trio.Event | None = None
        """Set while an action waits for its round; no command is handled until it is set."""
        self.view_late = False
        """A command answered later (not waiting for other players) still owes the view
        it leaves the client (dialects that push it), shown as its loop resumes; also set
        with ``greet_late``, so that the loop checks one flag for both."""
        self.reads_ahead = False
        """The last wait was for other players: while it lasts, what the client sends
        is read on, for its ``QUIT`` or its end (:meth:`Connection.read_ahead`)."""
        self.name: str | None = None
        """The name the client asked to go by (``HELLO <name>``); each game it plays
        in uses it unless another player there has it (:meth:`Game.name_of`)."""
        self.bot = protocol.bot
        """Whether the player is a bot: what ``EXTEND bot`` said, or the kind of the
        player this connection took over."""
        self.login: str | None = None
        """The claimed name this connection proved it owns (``LOGIN``/``REGISTER``)."""
        self._turn_told = False
        """``STARTTURN`` was pushed as the client entered a world without turns (dialects
        that push the view: once)."""
        self.carried_here = False
        """The client was carried here from another node of a cluster (:meth:`arrive`),
        which greeted it."""

    # -- who the client is ----------------------------------------------------------

    @property
    def who(self) -> Identity:
        """Who the client is: the mailbox itself (its id, address, names, dialect)."""
        return self

    @property
    def address(self) -> str:
        """The client's IP address: ``peer`` without its port."""
        return self.peer.rpartition(":")[0] or self.peer

    @property
    def dialect(self) -> str:
        return self.protocol.dialect.name

    @property
    def probe(self) -> bool:
        """Whether the client checks the server (``EXTEND probe``, the protocol's say)."""
        return "probe" in self.protocol.capabilities

    @property
    def log(self) -> Any:
        """The logger of events about this client: bound to it at each use, so that an
        idle connection keeps no logger of its own (a few events a connection use it)."""
        dialect = self.protocol.dialect.name
        if dialect == DEFAULT_DIALECT:
            return self._log_to.bind(conn=self.id, peer=self.peer)
        return self._log_to.bind(conn=self.id, peer=self.peer, dialect=dialect)

    # -- what it asked for ---------------------------------------------------------

    @property
    def wants(self) -> Wants:
        """What the client asked for: the mailbox itself (its capabilities)."""
        return self

    @property
    def capabilities(self) -> tuple[str, ...]:
        """What the client has asked for by ``EXTEND`` (or its dialect gives it)."""
        return tuple(sorted(self.protocol.capabilities))

    @property
    def events(self) -> bool:
        """Whether the client asked for pushed lines about its game (the protocol's say)."""
        return self.protocol.events

    @property
    def chat(self) -> bool:
        """Whether the client asked for ``MESSAGE`` lines (the protocol's say)."""
        return self.protocol.chat

    @property
    def board(self) -> bool:
        """Whether the client asked for ``LEVEL`` and ``BOARD`` (the protocol's say)."""
        return "board" in self.protocol.capabilities

    @property
    def redirect(self) -> bool:
        """Whether the client asked for ``REDIRECT`` (the protocol's say)."""
        return "redirect" in self.protocol.capabilities

    # -- carried between the nodes of a cluster (server.cluster.relay) ----------------

    def passenger(self) -> Passenger:
        """Who the client is and what it was told here, for the node of the cluster this
        one carries it to, where :meth:`arrive` takes it on."""
        host, _, port = self.peer.rpartition(":")
        protocol = self.protocol
        told = Told(self._view_shown, self._turn_told, self.over, protocol.dialect.gold_told)
        return Passenger(
            host=host or self.peer,
            port=int(port) if port.isdigit() else 0,
            dialect=self.dialect,
            name=self.name,
            login=self.login,
            capabilities=self.capabilities,
            bot=self.bot,
            line_limit=protocol.max_line_length,
            told=told,
        )

    def arrive(self, passenger: Passenger) -> None:
        """Serve a client another node carries here as it was there (before it is served):
        its name and kind, exactly what it was granted (none is none: a bare ``EXTEND``
        would turn on the defaults; a name this node does not know is left out), its
        lines read under that node's limit, and what it was told, which later words
        depend on. That node greeted it: it is not greeted again."""
        self.carried_here = True
        self.name, self.login = passenger.name, passenger.login
        protocol = self.protocol = ServerProtocol(
            max_line_length=passenger.line_limit, dialect=passenger.dialect
        )
        protocol.capabilities = frozenset(passenger.capabilities) & _KNOWN
        self.bot = self.bot or passenger.bot
        told = passenger.told
        self._view_shown, self._turn_told, self.over = told.view, told.turn, told.over
        protocol.dialect.gold_told = told.gold

    # -- what can be sent to it ----------------------------------------------------

    @property
    def closed(self) -> bool:
        return self.transport.reason is not None

    @property
    def backlogged(self) -> bool:
        return self.transport.backlogged

    def send(self, reply: Reply) -> None:
        """Queue ``reply``; never blocks (see :meth:`Transport.write` for the limit)."""
        transport = self.transport
        if transport.reason is not None:
            return
        try:
            data = self.protocol.send(reply)
        except LocalProtocolError as error:
            self.log.error(
                "reply refused by the protocol", reply=type(reply).__name__, error=str(error)
            )
            return
        transport.write(data)

    def push(self, line: Push) -> None:
        """Queue a line the client asked to be told (events, chat), as the protocol
        says; a line it did not ask for is dropped. Never blocks."""
        protocol = self.protocol
        if self.transport.reason is not None or not protocol.wants(line):
            return
        if self.pushes_view and isinstance(line, Seen):
            self.show_view()  # its clients see a move as the view it leaves them
            return
        if isinstance(line, protocol.dialect.coalesced):
            if self.look_again_told:
                return
            data = protocol.send(line)
            self.look_again_told = bool(data)
            self.transport.write(data)
            return
        self.transport.write(protocol.send(line))

    def finish(self, final: FinalReply, *, reason: str) -> None:
        """Send ``final`` as the last line and close the connection."""
        if self.transport.reason is not None or self.protocol.state is not ServerState.SERVING:
            return
        self.transport.write(self.protocol.send(final))
        if isinstance(final, Win | Lose) and not self.protocol.dialect.closes_after_final:
            self.over = True  # the game is over for the client, which stays
            return
        self.transport.close(reason)

    def wait_for(self, done: trio.Event, *, on_players: bool = False) -> None:
        """Handle no further command until ``done`` is set (an action waits for its round)."""
        self.waiting = done
        self.reads_ahead = on_players
        # Its handler runs later (a world built, the cluster's claims): the view after it
        # is shown once the loop resumes, before the next command's reply.
        self.view_late = self.pushes_view and not on_players

    def write_raw(self, data: bytes) -> None:
        """Queue bytes another node of a cluster rendered for this client."""
        self.transport.write(data)

    def end(self, reason: str) -> None:
        """Close the connection once what is queued is written."""
        self.transport.close(reason)

    def show_view(self) -> None:
        """Push the client its view if it changed since last pushed (dialects that push
        it: :attr:`~protocol.dialects.Dialect.pushes_view`)."""
        seat = self.lobby.seat(self)
        if seat is None or self.over or not self.protocol.wants(ViewChanged):
            return
        game, player = seat
        rows = tuple(game.world.look(player))
        if rows != self._view_shown:
            self._view_shown = rows
            self.transport.write(self.protocol.send(ViewChanged(rows)))
