"""One client, from commands to the game and back: the session over a transport.

Data flows one way: stream → :class:`~server.session.transport.Transport` (bytes, the output
queue, time limits) → :class:`~protocol.connection.ServerProtocol` (framing and
parsing) → :class:`~server.game.game.Game` (world rules, events) → replies queued on the
transport → stream. A :class:`Connection` runs on any :class:`trio.abc.Stream`. It is
itself a :class:`~server.session.transport.Session` of its transport, the plain one
(:meth:`Connection.handle_input`, one command at a time through :meth:`Connection.handle`);
the server serves it through its fast path instead (:mod:`server.session.fast_path`),
which does the same, byte for byte.

Output is queued, never awaited by whoever produced it: a game can push a line to any
player without waiting for that player's socket (see :mod:`server.session.transport` for
back-pressure and the time limits).

In a world with rounds an action is answered when its round resolves: the game
hands the connection the round's ``done`` event (:meth:`Connection.wait_for`)
and the connection handles no further command until it is set, so replies always
come in the order of the commands. While a command waits for other players (a round,
a turn, a game to fill) it reads on (:meth:`Connection.read_ahead`): the client's end
and its ``QUIT``, which end the conversation, are acted on at once, and the commands
before them are never answered; what else comes waits, in order, up to
:data:`READ_AHEAD` bytes (then the client is read no more until the hold ends).

Each command goes where its verb's declaration says (:class:`protocol.commands.Route`;
the table :attr:`Connection.ROUTES` is derived from them): ``QUIT``, ``HELP`` and
``EXTEND`` are answered here, read-only questions (``WHOAMI``) by their declared answer
from what the session knows (:class:`protocol.commands.Asker`), ``GAMES``, ``CREATE``,
``JOIN`` and ``WATCH`` by the lobby, ``LEADERBOARD``, ``REGISTER`` and ``LOGIN`` by the
ladder (:mod:`server.lobby.ladder`, which also refuses a ``HELLO`` of someone else's claimed
name), everything else by the game the client plays or watches (the lobby knows which).

The session owns who the client is: its name (``HELLO <name>``), its claimed name,
its capabilities, its dialect. Games and the lobby see it only as an
:class:`~server.game.outbox.Outbox` (with its :class:`~server.game.outbox.Identity` and
:class:`~server.game.outbox.Wants`), and keep where it plays and under which name there
themselves; the session asks them (:meth:`~server.session.roles.Hall.seat`). What the
session sees of the server, the lobby, the ladder and a game are the small roles of
:mod:`server.session.roles`.

``EXTEND`` is answered here with what :class:`~protocol.connection.ServerProtocol`
grants: the protocol object holds the capabilities (``events``: pushed lines about the
game, ``chat``: ``MESSAGE`` lines, ``bot``: others see the player as ``B``, only before
joining a world) and refuses a push the client did not ask for; the session only
reads them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Final, TypeVar, cast

import trio

from dungeon_of_doom.protocol.commands import (
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
from dungeon_of_doom.protocol.connection import ServerProtocol
from dungeon_of_doom.protocol.dialects import DEFAULT_DIALECT
from dungeon_of_doom.protocol.errors import RemoteProtocolError
from dungeon_of_doom.protocol.framing import END_OF_INPUT, NEED_DATA, NeedData
from dungeon_of_doom.protocol.replies import (
    ActionPoints,
    Bye,
    Error,
    GameInfo,
    Reply,
    TurnBegins,
)
from dungeon_of_doom.worlds.turns import plays_in_turns

from ..game.roster import label
from ..lobby.claimant import Claimant
from .greetings import GAME_OVER, TurnReminder, endless_turn_points, greet, turn_points
from .mailbox import Mailbox
from .roles import Serving
from .transport import CUT_OFF, Input, Session, Transport

__all__ = ["CUT_OFF", "READ_AHEAD", "Connection"]

_CLOSED = "client closed the connection"
_LOST = frozenset({"connection lost", _CLOSED})
"""Why a connection ends when its player may come back (not ``QUIT``, nor a limit)."""
READ_AHEAD: Final = 16384
"""Bytes a client may have sent, unhandled, behind a command that is held, past which it
is read no more until the hold ends (its ``QUIT`` or its end are then seen in turn)."""


class Connection(Mailbox):
    """The server's end of one client connection; ``run()`` serves it to the end.

    It is the :class:`~server.game.outbox.Outbox` its games know it by (its
    :class:`~server.session.mailbox.Mailbox`), and the :class:`~protocol.commands.Asker`
    of the read-only verbs."""

    # Per-connection state on every command's path: one compact object, no __dict__
    # (issue 31); the mailbox's own attributes are its __slots__.
    __slots__ = (
        "config",
        "greet_late",
        "relay",
        "server",
        "stream",
        "turn_reminder",
    )

    ROUTES: ClassVar[dict[type[Command], Callable[[Connection, Command], None]]]
    """Where each command goes, by its class: derived from the verbs' declarations
    (:data:`protocol.commands.DECLARED_VERBS`) below the class."""

    def __init__(
        self,
        server: Serving,
        stream: trio.abc.Stream,
        connection_id: int,
        *,
        peer: str = "?",
        log: Any = None,
        dialect: str = DEFAULT_DIALECT,
    ) -> None:
        config = server.config
        protocol = ServerProtocol(max_line_length=config.max_line_length, dialect=dialect)
        transport = Transport(stream, config, server.poller, server.writers)
        super().__init__(
            protocol,
            transport,
            server.lobby,
            connection_id,
            peer,
            server.log if log is None else log,
        )
        self.server = server
        self.stream = stream
        self.config = config
        self.turn_reminder: TurnReminder | None = None
        """Reminds a greeting dialect's silent client of its turn (see
        :mod:`server.session.greetings`)."""
        self.greet_late = False
        """A ``HELLO`` answered later still owes its greeting (see :meth:`_hello`)."""
        self.relay: Any = None
        """Set while the client is carried to another node of a cluster, which then gets
        every command (:mod:`server.cluster.relay`)."""

    @property
    def reason(self) -> str | None:
        """Why the connection is ending, once it is; ``None`` while it is served."""
        return self.transport.reason

    def took_over(self, old: Claimant) -> None:
        """This connection plays ``old``'s player from now on (a logged-in player came
        back, :mod:`server.lobby.ladder`): it goes by the same name, as the same kind."""
        self.name, self.bot, self.over = old.name, old.who.bot, False

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
            self.lobby.hello(self, command)  # a HELLO may be refused there
        if self.waiting is not None:
            # Answered later (when the game's fresh world is built, or the cluster's
            # directory has caught up): the client is greeted then, as the command loop
            # resumes (handle_input), or a 2016ch client waits for STARTTURN for ever.
            self.greet_late = self.view_late = True  # the command loop checks view_late
            return
        self.greet()

    def greet(self) -> None:
        """What a client whose dialect pushes its view gets once its ``HELLO`` seated it:
        ``STARTTURN`` (``TurnBegins``), once, in a world where anyone may always act."""
        if self.pushes_view and not self._turn_told:
            seat = self.lobby.seat(self)
            if seat is not None and not plays_in_turns(seat[0].world):
                # Its clients act only on STARTTURN; here every player may always act.
                self._turn_told = True
                self.push(TurnBegins(0))

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
        self.lobby.command(self, command)

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

    async def run(self, session: Session | None = None) -> None:
        """Serve the connection until it ends, then leave the game and close the stream.
        ``session`` handles its input: the server's fast path
        (:class:`server.session.fast_path.FastPath`); by default the connection itself."""
        self.log.info("client connected")
        try:
            dialect = self.protocol.dialect
            for line in () if self.carried_here else dialect.welcome:
                self.send(line)
            if dialect.greets:
                self.turn_reminder = TurnReminder(self, self._turn_points, trio.current_time())
                if not self.carried_here:  # its own node greeted it
                    greet(self, self.lobby.default)
            await self.transport.run(self if session is None else session)
        finally:
            if self.relay is not None:
                self.relay.close()
            if self.reason == CUT_OFF:
                self.server.counts.cut_off += 1
            self._leave_game()
            self.lobby.client_gone(self)  # its played-out games go with it
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

    # -- the plain session of its transport (the fast path does the same) ------------

    def data_received(self, data: bytes) -> None:
        """Bytes from the client, to its protocol (``b""``: it closed its side)."""
        self.protocol.receive_data(data)

    def settle(self) -> None:
        """Make lasting what the batch changed (the replays), before its replies go out."""
        self.lobby.settle()

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
        transport = self.transport
        result: Input | trio.Event
        self.greeted()
        while transport.reason is None:
            if self.waiting is not None:
                result, self.waiting = self.waiting, None
                break
            if transport.backlogged:
                result = Input.PAUSED
                break
            try:
                event = self.protocol.next_event()
            except RemoteProtocolError as error:
                if self.refused(error):
                    result = Input.ENDED
                    break
                continue
            if isinstance(event, NeedData):
                result = Input.WANT_DATA
                break
            if not isinstance(event, Command):
                transport.close(_CLOSED)  # EndOfInput
                result = Input.ENDED
                break
            transport.heard()
            self.handle(event)
        else:
            result = Input.ENDED
        self.answer_telnet()
        return result

    def read_ahead(self) -> bool:
        """While a command is held: what the client sent since that cannot wait for it
        is acted on now (the protocol's :meth:`~protocol.connection.ServerProtocol.read_ahead`):
        its ``QUIT`` is handled (``BYE``, and the connection ends: the player leaves as
        on any ``QUIT``), its end ends the connection (as on any disconnect), a line too
        long is refused as ever; the rest waits for :meth:`handle_input`. Whether to
        read on (at most :data:`READ_AHEAD` bytes wait). Only a command that waits for
        other players is read ahead of (:attr:`reads_ahead`): one that waits for the
        server's own work (a world built, a token checked) is soon answered, and what
        follows it, a ``QUIT`` too, in its turn."""
        if not self.reads_ahead:
            return False
        try:
            ahead = self.protocol.read_ahead(READ_AHEAD)
        except RemoteProtocolError as error:
            self.refused(error)  # fatal: its BYE is the last line
            return False
        if isinstance(ahead, Quit):
            self.handle(ahead)
            return False
        if ahead is END_OF_INPUT:
            self.transport.close(_CLOSED)
            return False
        return ahead is NEED_DATA

    def greeted(self) -> None:
        """As the loop resumes after a wait: a ``HELLO`` answered meanwhile is greeted now
        (see :meth:`_hello`), and a command answered meanwhile shows the view it left
        (:attr:`view_late`), as a command answered at once shows it after its reply."""
        if self.greet_late:
            self.greet_late = False
            self.greet()
            self.view_late = self.pushes_view
        if self.view_late:
            self.view_late = False
            self.show_view()

    def refused(self, error: RemoteProtocolError) -> bool:
        """A line the protocol refused: answered ``ERROR``, or ``BYE`` and the end when the
        error is fatal (then ``True``); a carried client's goes to the node that answers
        its commands, to be refused there in its turn (a line too long: then this node
        reads no more, and the relay ends the connection)."""
        relay = self.relay
        if relay is not None and error.line is not None:
            relay.forward_line(error.line)  # answered there, in its turn
            return False
        self.server.counts.protocol_errors += 1
        self.log.info("protocol error", error=str(error), fatal=error.fatal)
        if error.fatal and relay is not None:
            relay.forward_too_long(self.config.max_line_length)
            # Nothing more is read: the game's node refuses the line in its turn and ends
            # the connection, and with it the relay.
            self.wait_for(relay.ended)
            return False
        if error.fatal:
            self.finish(Bye(str(error)), reason="protocol error")
            return True
        self.send(Error(str(error)))
        return False

    def answer_telnet(self) -> None:
        """The telnet refusals the protocol owes (only a fed framer may owe them), first."""
        protocol = self.protocol
        if protocol.owed:
            telnet = protocol.data_to_send()
            if telnet:
                self.transport.write_first(telnet)

    def handle(self, command: Command) -> None:
        """One command: counted, then routed where its verb says (or to the node of the
        cluster that carries the client), and, in a dialect that pushes its view, the view."""
        self.look_again_told = False
        if self.turn_reminder is not None:
            self.turn_reminder.acted(trio.current_time())
        self.server.counts.commands[type(command)] += 1
        if self.relay is not None:
            self.relay.forward(command)  # another node of the cluster answers it
            return
        try:
            self.ROUTES[type(command)](self, command)
            if self.pushes_view:
                self.show_view()
        except Exception as error:
            self.failed(command, error)

    def failed(self, command: Command, error: Exception) -> None:
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
