"""One client, from commands to the game and back: the session over a transport.

Data flows one way: stream → :class:`~server.session.transport.Transport` (bytes, the output
queue, time limits) → :class:`~protocol.connection.ServerProtocol` (framing and
parsing) → :class:`~server.game.game.Game` (world rules, events) → replies queued on the
transport → stream. A :class:`Connection` runs on any :class:`trio.abc.Stream`; it
is the transport's :class:`~server.session.transport.Session`.

Output is queued, never awaited by whoever produced it: a game can push a line to any
player without waiting for that player's socket (see :mod:`server.session.transport` for
back-pressure and the time limits).

In a world with rounds an action is answered when its round resolves: the game
hands the connection the round's ``done`` event (:meth:`Connection.wait_for`)
and the connection reads no further command until it is set, so replies always
come in the order of the commands.

Each command goes where its verb's declaration says (:class:`protocol.commands.Route`;
the table :attr:`Connection.ROUTES` is derived from them): ``QUIT``, ``HELP`` and
``EXTEND`` are answered here, read-only questions (``WHOAMI``) by their declared answer
from what the session knows (:class:`protocol.commands.Asker`), ``GAMES``, ``CREATE``,
``JOIN`` and ``WATCH`` by the lobby, ``LEADERBOARD``, ``REGISTER`` and ``LOGIN`` by the
ladder (:mod:`server.lobby.ladder`, which also refuses a ``HELLO`` of someone else's claimed
name), everything else by the game the client plays or watches (the lobby knows which).

The session owns who the client is: its name (``HELLO <name>``), its claimed name,
its capabilities, its dialect. Games and the lobby see it only as an
:class:`~server.game.outbox.Outbox`, and keep where it plays and under which name there
themselves; the session asks them (:meth:`~server.lobby.lobby.Lobby.seat`).

``EXTEND`` is answered here with what :class:`~protocol.connection.ServerProtocol`
grants: the protocol object holds the capabilities (``events``: pushed lines about the
game, ``chat``: ``MESSAGE`` lines, ``bot``: others see the player as ``B``, only before
joining a world) and refuses a push the client did not ask for; the session only
reads them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Final, Protocol, TypeVar, cast

import trio

from protocol.commands import (
    DECLARED_VERBS,
    ApGet,
    Asker,
    Command,
    Extend,
    Hello,
    Help,
    Quit,
    Route,
    Verb,
)
from protocol.connection import ServerProtocol, ServerState
from protocol.dialects import DEFAULT_DIALECT
from protocol.errors import LocalProtocolError, RemoteProtocolError
from protocol.framing import NeedData
from protocol.lines import ViewChanged
from protocol.replies import (
    ActionPoints,
    Bye,
    Error,
    FinalReply,
    GameInfo,
    Lose,
    Push,
    Reply,
    Seen,
    TurnBegins,
    Win,
)

from ..game.game import plays_in_turns
from ..game.roster import label
from ..lobby.ladder import Claimant, Ladder
from ..lobby.lobby import Lobby
from ..metrics import Counts
from ..setup.config import ServerConfig
from .greetings import GAME_OVER, TurnReminder, endless_turn_points, greet, turn_points
from .poller import Poller
from .transport import CUT_OFF, WANT_DATA, Input, Transport

__all__ = ["CUT_OFF", "Connection", "Host"]

_LOST = frozenset({"connection lost", "client closed the connection"})
"""Why a connection ends when its player may come back (not ``QUIT``, nor a limit)."""


class Host(Protocol):
    """What a session needs of its server (:class:`~server.app.Server` is one)."""

    @property
    def config(self) -> ServerConfig: ...
    @property
    def log(self) -> Any: ...
    @property
    def lobby(self) -> Lobby: ...
    @property
    def ladder(self) -> Ladder: ...
    @property
    def counts(self) -> Counts: ...
    @property
    def poller(self) -> Poller | None: ...
    @property
    def writers(self) -> trio.Nursery | None: ...


class Connection:
    """The server's end of one client connection; ``run()`` serves it to the end.

    It is the :class:`~server.game.outbox.Outbox` its games know it by, and the
    :class:`~protocol.commands.Asker` of the read-only verbs."""

    # Per-connection state on every command's path: one compact object, no __dict__
    # (issue 31). "__weakref__": the lobby keeps each client's chat allowance in a
    # WeakKeyDictionary (server.lobby.lobby).
    __slots__ = (
        "__weakref__",
        "_coalesced",
        "_greet_late",
        "_log_to",
        "_look_again_told",
        "_pushes_view",
        "_render",
        "_turn_told",
        "_view_shown",
        "_write",
        "bot",
        "config",
        "data_received",
        "id",
        "lobby",
        "login",
        "name",
        "over",
        "peer",
        "protocol",
        "relay",
        "server",
        "settle",
        "stream",
        "transport",
        "turn_reminder",
        "waiting",
    )

    ROUTES: ClassVar[dict[type[Command], Callable[[Connection, Command], None]]]
    """Where each command goes, by its class: derived from the verbs' declarations
    (:data:`protocol.commands.DECLARED_VERBS`) below the class."""

    def __init__(
        self,
        server: Host,
        stream: trio.abc.Stream,
        connection_id: int,
        *,
        peer: str = "?",
        log: Any = None,
        dialect: str = DEFAULT_DIALECT,
    ) -> None:
        self.server = server
        self.stream = stream
        self.id = connection_id
        self.peer = peer
        """The client's address, ``host:port``, for the logs."""
        self.config = server.config
        self.transport = Transport(stream, self.config, server.poller, server.writers)
        self._write = self.transport.write
        self.protocol = ServerProtocol(max_line_length=self.config.max_line_length, dialect=dialect)
        self._render = self.protocol.send
        self.data_received: Callable[[bytes], None] = self.protocol.receive_data
        """:meth:`~server.session.transport.Session.data_received`: the bytes go to the protocol
        itself, with no frame of the connection's between (one call fewer a command)."""
        self.lobby = server.lobby
        self.settle: Callable[[], None] = self.lobby.settle
        """:meth:`~server.session.transport.Session.settle`: the replay holds every action before
        its reply is written, so the records of every game not yet written (this client's
        game's among them) go out now. It is the lobby's :attr:`~server.lobby.lobby.Lobby.settle`
        (the server's one shelf of replays' own ``flush``, one bound method for all), not
        a method calling it: no frame of the connection's on any command."""
        self.name: str | None = None
        """The name the client asked to go by (``HELLO <name>``); each game it plays
        in uses it unless another player there has it (:meth:`Game.name_of`)."""
        self.bot = self.protocol.bot
        """Whether the player is a bot: what ``EXTEND bot`` said, or the kind of the
        player this connection took over (:meth:`took_over`)."""
        self.login: str | None = None
        """The claimed name this connection proved it owns (``LOGIN``/``REGISTER``)."""
        self.turn_reminder: TurnReminder | None = None
        """Reminds a greeting dialect's silent client of its turn (see
        :mod:`server.session.greetings`)."""
        self._coalesced = self.protocol.dialect.coalesced
        self._pushes_view = self.protocol.dialect.pushes_view
        self._view_shown: tuple[str, ...] | None = None
        """The view last pushed (dialects that push it): an unchanged view is not sent again."""
        self._turn_told = False
        self._look_again_told = False
        """A "look again" push (:attr:`Dialect.coalesced`) is queued and the client has
        sent no command since: another would say nothing new."""
        self.over = False
        """The game ended for this client, which stays (dialects that keep it after ``WIN``)."""
        self.waiting: trio.Event | None = None
        """Set while an action waits for its round; no command is read until it is set."""
        self._greet_late = False  # a HELLO answered later still owes its greeting
        self.relay: Any = None
        """Set while the client is carried to another node of a cluster, which then gets
        every command (:mod:`server.cluster.relay`)."""
        self._log_to = log if log is not None else server.log
        """Where events about this client go (the server's logger for its address, which
        rate-limits them); :attr:`log` binds it to this client."""

    @property
    def log(self) -> Any:
        """The logger of events about this client: bound to it at each use, so that an
        idle connection keeps no logger of its own (a few events a connection use it)."""
        dialect = self.protocol.dialect.name
        if dialect == DEFAULT_DIALECT:
            return self._log_to.bind(conn=self.id, peer=self.peer)
        return self._log_to.bind(conn=self.id, peer=self.peer, dialect=dialect)

    @property
    def reason(self) -> str | None:
        """Why the connection is ending, once it is; ``None`` while it is served."""
        return self.transport.reason

    # -- the outbox: all a game knows of the client ---------------------------------

    @property
    def address(self) -> str:
        """The client's IP address: ``peer`` without its port."""
        return self.peer.rpartition(":")[0] or self.peer

    @property
    def closed(self) -> bool:
        return self.transport.reason is not None

    @property
    def backlogged(self) -> bool:
        return self.transport.backlogged

    @property
    def dialect(self) -> str:
        return self.protocol.dialect.name

    def send(self, reply: Reply) -> None:
        """Queue ``reply``; never blocks (see :meth:`Transport.write` for the limit).

        Nothing is rendered for a connection that is closing (a game may still tell
        everyone of the move that ended it). A reply the protocol refuses (a push the
        client did not ask for) is a server bug: logged and dropped, never raised into
        a game."""
        if self.transport.reason is not None:
            return
        try:
            data = self._render(reply)
        except LocalProtocolError as error:
            self.log.error(
                "reply refused by the protocol", reply=type(reply).__name__, error=str(error)
            )
            return
        self._write(data)

    def push(self, line: Push) -> None:
        """Queue a line the client asked to be told (events, chat), as the protocol
        says; a line it did not ask for is dropped. Never blocks."""
        if self.transport.reason is not None or not self.protocol.wants(line):
            return
        if self._pushes_view and isinstance(line, Seen):
            self._show_view()  # its clients see a move as the view it leaves them
            return
        if isinstance(line, self._coalesced):
            if self._look_again_told:
                return
            data = self._render(line)
            self._look_again_told = bool(data)
            self._write(data)
            return
        self._write(self._render(line))

    def finish(self, final: FinalReply, *, reason: str) -> None:
        """Send ``final`` as the last line and close the connection."""
        if self.transport.reason is not None or self.protocol.state is not ServerState.SERVING:
            return
        self._write(self._render(final))
        if isinstance(final, Win | Lose) and not self.protocol.dialect.closes_after_final:
            self.over = True  # the game is over for the client, which stays
            return
        self.transport.close(reason)

    def wait_for(self, done: trio.Event) -> None:
        """Read no further command until ``done`` is set (an action waits for its round)."""
        self.waiting = done

    def write_raw(self, data: bytes) -> None:
        """Queue bytes another node of a cluster rendered for this client."""
        self._write(data)

    def end(self, reason: str) -> None:
        """Close the connection once what is queued is written."""
        self.transport.close(reason)

    # -- who the client is ----------------------------------------------------------

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

    def took_over(self, old: Claimant) -> None:
        """This connection plays ``old``'s player from now on (a logged-in player came
        back, :mod:`server.lobby.ladder`): it goes by the same name, as the same kind."""
        self.name, self.bot, self.over = old.name, old.bot, False

    def _turn_points(self) -> int | None:
        """The action points of this client's turn if it is its turn (for the reminder)."""
        seat = self.lobby.seat(self)
        return None if seat is None else turn_points(seat[0].world, seat[1])

    # -- the session's own commands -------------------------------------------------

    def _extend(self, command: Extend) -> None:
        # A player's kind is fixed when it enters the world.
        self.send(self.protocol.extend(command, bot_allowed=self.lobby.seat(self) is None))
        self.bot = self.bot or self.protocol.bot
        if self.events:
            self.lobby.listen(self)

    def _quit(self, command: Quit) -> None:
        self.finish(Bye("Thanks for playing."), reason="quit")

    def _help(self, command: Help) -> None:
        self.send(self.lobby.game_for(self).help())

    def _to_lobby(self, command: Command) -> None:
        self.lobby.handle(self, command)

    def _to_ladder(self, command: Command) -> None:
        self.server.ladder.handle(self, command)

    def _hello(self, command: Hello) -> None:
        """``HELLO``, unless it takes a name claimed by someone else (see server.lobby.ladder)."""
        refusal = self.server.ladder.refusal(self, command)
        if refusal is not None:
            self.send(refusal)
            return
        if command.name is not None and self.lobby.watching(self) is None:
            self.name = command.name  # who the client says it is; its game may refuse it
        if not (self.over and self._still_over()):
            self.lobby.command(self, command)  # a HELLO may be refused there
        if self.waiting is not None:
            # Answered later (when the game's fresh world is built, or the cluster's
            # directory has caught up): the client is greeted then, as the command loop
            # resumes (handle_input), or a 2016ch client waits for STARTTURN for ever.
            self._greet_late = True
            return
        self._greet()

    def _greet(self) -> None:
        """What a client whose dialect pushes its view gets once its ``HELLO`` seated it:
        ``STARTTURN`` (``TurnBegins``), once, in a world where anyone may always act."""
        if self._pushes_view and not self._turn_told:
            seat = self.lobby.seat(self)
            if seat is not None and not plays_in_turns(seat[0].world):
                # Its clients act only on STARTTURN; here every player may always act.
                self._turn_told = True
                self.push(TurnBegins(0))

    def _show_view(self) -> None:
        """Push the client its view if it changed since last pushed (dialects that push
        it: :attr:`~protocol.dialects.Dialect.pushes_view`)."""
        seat = self.lobby.seat(self)
        if seat is None or self.over or not self.protocol.wants(ViewChanged):
            return
        game, player = seat
        rows = tuple(game.world.look(player))
        if rows != self._view_shown:
            self._view_shown = rows
            self._write(self._render(ViewChanged(rows)))

    def _to_game(self, command: Command) -> None:
        """Every command the session does not route elsewhere: the game's to answer
        (``HELLO``, which the lobby may refuse, comes by :meth:`_hello`)."""
        if self.over and self._still_over():
            return
        if isinstance(command, ApGet) and self.protocol.dialect.greets:
            seat = self.lobby.seat(self)
            points = None if seat is None else endless_turn_points(seat[0].world)
            if points is not None:
                self.send(ActionPoints(points))
                return
        self.lobby.play(self, command)

    def _still_over(self) -> bool:
        """The game ended for this client (:attr:`over`): ``True``, and the client told
        so, unless it has joined another game since."""
        if self.lobby.seat(self) is None:
            self.send(Error(GAME_OVER))
            return True
        self.over = False
        return False

    # -- what a read-only verb may ask (protocol.commands.Asker) ----------------------

    @property
    def label(self) -> str:
        """How the client is shown in its game: its name there, ``#<n>`` for a player
        without one; when it does not play (yet, or it watches), the name it asked for
        by ``HELLO``, else ``#``."""
        seat = self.lobby.seat(self)
        if seat is None:
            return self.name if self.name is not None else "#"
        game, player = seat
        return label(game.name_of(player), player)

    @property
    def game(self) -> GameInfo:
        """The game the client plays or watches, as ``GAMES`` lists it."""
        return self.lobby.game_for(self).info()

    # -- the connection's life ------------------------------------------------------

    async def run(self) -> None:
        """Serve the connection until it ends, then leave the game and close the stream."""
        self.log.info("client connected")
        try:
            for line in self.protocol.dialect.welcome:
                self.send(line)
            if self.protocol.dialect.greets:
                self.turn_reminder = TurnReminder(self, self._turn_points, trio.current_time())
                greet(self, self.lobby.default)
            await self.transport.run(self)
        finally:
            if self.relay is not None:
                self.relay.close()
            if self.reason == CUT_OFF:
                self.server.counts.cut_off += 1
            self._leave_game()
            self.lobby.client_gone(self)  # its unjoined games go with it
            self.log.info("client disconnected", reason=self.reason or "server stopped")

    def check_time(self, now: float) -> None:
        """Enforce the idle and send time limits at ``now``; the server's watchdog calls it."""
        if self.turn_reminder is not None and not self.over:
            self.turn_reminder.check(now)
        self.transport.check_time(now)

    def _leave_game(self) -> None:
        if self.reason in _LOST and self.server.ladder.hold(self):
            return  # a logged-in player may come back to it (server.ladder)
        self.lobby.leave(self, "quit" if self.reason == "quit" else "disconnected")

    # -- the transport's session ----------------------------------------------------

    def input_ended(self, idle: bool) -> None:
        if idle:
            timeout = self.config.idle_timeout
            self.finish(
                Bye(f"no command for {timeout:g} seconds; closing the connection"),
                reason="idle timeout",
            )
        self._leave_game()

    def handle_input(self) -> Input | trio.Event:
        """Handle every complete line received, until a round or the output holds us."""
        # One frame for the whole batch: the command loop, then the telnet refusals.
        protocol = self.protocol
        transport = self.transport
        commands = self.server.counts.commands
        high_mark = transport.high_mark
        routes = self.ROUTES
        result: Input | trio.Event
        if self._greet_late:  # a HELLO answered while the client waited (see _hello)
            self._greet_late = False
            self._greet()
            if self._pushes_view:
                self._show_view()
        while transport.reason is None:
            if self.waiting is not None:
                result, self.waiting = self.waiting, None
                break
            if len(transport.pending) > high_mark:  # transport.backlogged, without a call
                result = Input.PAUSED
                break
            if protocol.drained:  # what next_event() would say, without the call
                result = WANT_DATA
                break
            try:
                event = protocol.next_event()
            except RemoteProtocolError as error:
                if self.relay is not None and error.line is not None:
                    self.relay.forward_line(error.line)  # answered there, in its turn
                    continue
                self.server.counts.protocol_errors += 1
                self.log.info("protocol error", error=str(error), fatal=error.fatal)
                if error.fatal:
                    self.finish(Bye(str(error)), reason="protocol error")
                    result = Input.ENDED
                    break
                self.send(Error(str(error)))
                continue
            if not isinstance(event, Command):  # one check a command, not two
                if isinstance(event, NeedData):
                    result = WANT_DATA
                    break
                transport.close("client closed the connection")  # EndOfInput
                result = Input.ENDED
                break
            kind = type(event)
            transport.got_command = True  # transport.heard(), without the call
            self._look_again_told = False
            if self.turn_reminder is not None:
                self.turn_reminder.acted(trio.current_time())
            commands[kind] += 1
            if self.relay is not None:
                self.relay.forward(event)  # another node of the cluster answers it
                continue
            try:
                routes[kind](self, event)
                if self._pushes_view:
                    self._show_view()
            except Exception as error:
                self._failed(event, error)
        else:
            result = Input.ENDED
        if protocol.owed:  # only a fed framer may owe telnet refusals
            telnet = protocol.data_to_send()
            if telnet:
                transport.write_first(telnet)
        return result

    def _failed(self, command: Command, error: Exception) -> None:
        """A command's handler raised: the client is told, the server serves on.

        The games and the lobby answer their own errors; this is the last line of
        defence, so that no handler's bug or the system's refusal (``EMFILE`` while
        opening a map) can end the server or leave the client waiting for ever.
        """
        self.waiting = None
        if isinstance(error, OSError):
            self.log.error("command failed", command=command.verb, error=repr(error))
            reason = error.strerror or str(error)
            self.send(Error(f"the server cannot do that now ({reason}); try again later"))
        else:
            self.log.exception("command failed", command=command.verb)
            self.send(Error(f"the server failed to handle {command.verb} (a server bug)"))


_Handler = Callable[[Connection, Command], None]
"""What the session does with one command."""
_C = TypeVar("_C", bound=Command)


def _handles(
    kind: type[_C], handler: Callable[[Connection, _C], None]
) -> tuple[type[Command], _Handler]:
    """The session's own handler of ``kind``. Routes are looked up by the command's exact
    class, so ``handler`` only ever receives a ``kind``; the cast records that invariant."""
    return kind, cast(_Handler, handler)


_OWN: Final[dict[type[Command], _Handler]] = dict(
    (
        _handles(Quit, Connection._quit),
        _handles(Extend, Connection._extend),
        _handles(Help, Connection._help),
        _handles(Hello, Connection._hello),
    )
)
"""The session's own verbs (:attr:`Route.SESSION`)."""

_TO: Final[dict[Route, _Handler]] = {
    Route.LOBBY: Connection._to_lobby,
    Route.LADDER: Connection._to_ladder,
    Route.GAME: Connection._to_game,
}


def _asked(answer: Callable[[Asker], Reply]) -> _Handler:
    def handle(connection: Connection, command: Command) -> None:
        connection.send(answer(connection))

    return handle


def _route(verb: Verb) -> _Handler:
    if verb.answer is not None:
        return _asked(verb.answer)
    if verb.route is Route.SESSION:
        return _OWN[verb.command]
    return _TO[verb.route]


Connection.ROUTES = {verb.command: _route(verb) for verb in DECLARED_VERBS}
