"""One client, from commands to the game and back: the session over a transport.

Data flows one way: stream → :class:`~server.transport.Transport` (bytes, the output
queue, time limits) → :class:`~protocol.connection.ServerProtocol` (framing and
parsing) → :class:`~server.game.Game` (world rules, events) → replies queued on the
transport → stream. A :class:`Connection` runs on any :class:`trio.abc.Stream`; it
is the transport's :class:`~server.transport.Session`.

Output is queued, never awaited by whoever produced it: a game can push a line to any
player without waiting for that player's socket (see :mod:`server.transport` for
back-pressure and the time limits).

In a world with rounds an action is answered when its round resolves: the game
hands the connection the round's ``done`` event (:meth:`Connection.wait_for`)
and the connection reads no further command until it is set, so replies always
come in the order of the commands.

Each command goes where a table says (:attr:`Connection._ROUTES`): ``QUIT``,
``HELP`` and ``EXTEND`` are answered here, ``GAMES``, ``CREATE``, ``JOIN`` and ``WATCH``
by the lobby, ``LEADERBOARD``, ``REGISTER`` and ``LOGIN`` by the ladder
(:mod:`server.ladder`, which also refuses a ``HELLO`` of someone else's claimed name),
everything else by the game the client plays or watches.

``EXTEND`` is answered here, but what it turns on is the protocol's to keep
(:class:`~protocol.connection.ServerProtocol`): ``events`` (pushed lines about the
game), ``chat`` (``MESSAGE`` lines) and ``bot`` (others see the player as ``B``; only
before joining a world). Every byte written to the client goes through the protocol
object, which refuses a push the client did not ask for and anything after the final
line; :meth:`Connection.push` asks it first and drops what the client did not ask for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import trio

from protocol.commands import (
    Command,
    Create,
    Extend,
    Games,
    Hello,
    Help,
    Join,
    Leaderboard,
    Login,
    Quit,
    Register,
    Watch,
)
from protocol.connection import ServerProtocol, ServerState
from protocol.dialects import DEFAULT_DIALECT
from protocol.errors import LocalProtocolError, RemoteProtocolError
from protocol.framing import EndOfInput, NeedData
from protocol.replies import Bye, Error, FinalReply, Lose, Push, Reply, Win

from .dialects import GAME_OVER, TurnReminder, greet
from .transport import CUT_OFF, Input, Transport

if TYPE_CHECKING:
    from .app import Server
    from .game import Game

__all__ = ["CUT_OFF", "Connection"]

_LOST = frozenset({"connection lost", "client closed the connection"})
"""Why a connection ends when its player may come back (not ``QUIT``, nor a limit)."""


class Connection:
    """The server's end of one client connection; ``run()`` serves it to the end."""

    def __init__(
        self,
        server: Server,
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
        self.transport = Transport(stream, self.config)
        self._write = self.transport.write
        self.protocol = ServerProtocol(max_line_length=self.config.max_line_length, dialect=dialect)
        self._render = self.protocol.send
        self.game: Game | None = None
        self.player: int | None = None
        self.name: str | None = None
        self.watching: Game | None = None
        self._resumed_bot = False  # the kind of a player this connection took over
        self.login: str | None = None
        """The claimed name this connection proved it owns (``LOGIN``/``REGISTER``)."""
        self.turn_reminder: TurnReminder | None = None
        """Reminds a greeting dialect's silent client of its turn (see :mod:`server.dialects`)."""
        self.over = False
        """The game ended for this client, which stays (dialects that keep it after ``WIN``)."""
        self.waiting: trio.Event | None = None
        """Set while an action waits for its round; no command is read until it is set."""
        self.log = log if log is not None else server.log.bind(conn=connection_id, peer=peer)
        """Events about this client (rate-limited per address when the server made it)."""
        if dialect != DEFAULT_DIALECT:
            self.log = self.log.bind(dialect=dialect)

    @property
    def reason(self) -> str | None:
        """Why the connection is ending, once it is; ``None`` while it is served."""
        return self.transport.reason

    # -- what the client asked for (the protocol keeps it) -----------------------

    @property
    def events(self) -> bool:
        """Whether the client asked for pushed lines about its game."""
        return self.protocol.events

    @property
    def chat(self) -> bool:
        """Whether the client asked for ``MESSAGE`` lines."""
        return self.protocol.chat

    @property
    def bot(self) -> bool:
        """Whether the client's player is a bot (it said so, or it took one over)."""
        return self.protocol.bot or self._resumed_bot

    @bot.setter
    def bot(self, value: bool) -> None:
        self._resumed_bot = value

    # -- output -------------------------------------------------------------------

    def send(self, reply: Reply) -> None:
        """Queue ``reply``; never blocks (see :meth:`Transport.write` for the limit).

        Once the connection is closing nothing more is written (a game may still be
        telling everyone about the move that ended it). A reply the protocol refuses
        (a push the client did not ask for) is a bug in the server: it is logged and
        dropped, and the server serves on."""
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
        """Queue ``line`` if the client asked for such lines (the protocol says), else
        drop it; never blocks."""
        if self.transport.reason is None and self.protocol.wants(line):
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

    # -- the game -------------------------------------------------------------------

    def joined(self, game: Game, player: int) -> None:
        self.game = game
        self.player = player
        self.over = False
        self.log = self.log.bind(game=game.name, player=player)

    def wait_for(self, done: trio.Event) -> None:
        """Read no further command until ``done`` is set (an action waits for its round)."""
        self.waiting = done

    def leave_game(self, why: str) -> None:
        """Stop playing or watching, whichever this connection does."""
        if self.game is not None:
            game, self.game = self.game, None
            game.leave(self, why)
            self.player = None
        if self.watching is not None:
            watched, self.watching = self.watching, None
            watched.unwatch(self)

    def _extend(self, command: Extend) -> None:
        # A player's kind is fixed when it enters the world.
        self.send(self.protocol.extend(command, bot_allowed=self.player is None))
        game = self.game or self.watching
        if self.events and game is not None:
            game.listen(self)

    def _quit(self, command: Quit) -> None:
        self.finish(Bye("Thanks for playing."), reason="quit")

    def _help(self, command: Help) -> None:
        self.send((self.watching or self.server.game_for(self)).help())

    def _to_lobby(self, command: Command) -> None:
        self.server.lobby.handle(self, command)

    def _to_ladder(self, command: Command) -> None:
        self.server.ladder.handle(self, command)

    def _hello(self, command: Hello) -> None:
        """``HELLO``, unless it takes a name claimed by someone else (see server.ladder)."""
        refusal = self.server.ladder.refusal(self, command)
        if refusal is not None:
            self.send(refusal)
        else:
            self._to_game(command)

    def _to_game(self, command: Command) -> None:
        """Every command the session does not route elsewhere: the game's to answer."""
        if self.over:
            self.send(Error(GAME_OVER))
        elif self.watching is not None:
            self.watching.handle_watcher(self, command)
        else:
            self.server.game_for(self).handle(self, command)

    _ROUTES: ClassVar[dict[type[Command], Callable[[Connection, Any], None]]] = {
        Quit: _quit,
        Extend: _extend,
        Help: _help,
        Games: _to_lobby,
        Create: _to_lobby,
        Join: _to_lobby,
        Watch: _to_lobby,
        Leaderboard: _to_ladder,
        Register: _to_ladder,
        Login: _to_ladder,
        Hello: _hello,
    }
    """Where each kind of command goes; the game's commands (MOVE, LOOK, ...) are not here."""

    # -- the connection's life ------------------------------------------------------

    async def run(self) -> None:
        """Serve the connection until it ends, then leave the game and close the stream."""
        self.log.info("client connected")
        try:
            if self.protocol.dialect.greets:
                greet(self)
            await self.transport.run(self)
        finally:
            if self.reason == CUT_OFF:
                self.server.counts.cut_off += 1
            self._leave_game()
            self.server.lobby.client_gone(self)  # its unjoined games go with it
            self.log.info("client disconnected", reason=self.reason or "server stopped")

    def check_time(self, now: float) -> None:
        """Enforce the idle and send time limits at ``now``; the server's watchdog calls it."""
        if self.turn_reminder is not None:
            self.turn_reminder.check(now)
        self.transport.check_time(now)

    def _leave_game(self) -> None:
        if self.reason in _LOST and self.server.ladder.hold(self):
            return  # a logged-in player may come back to it (server.ladder)
        self.leave_game("quit" if self.reason == "quit" else "disconnected")

    # -- the transport's session ----------------------------------------------------

    def data_received(self, data: bytes) -> None:
        self.protocol.receive_data(data)

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
        result = self._handle_commands()
        if self.game is not None:
            self.game.flush()  # the replay holds every action before its reply is written
        telnet = self.protocol.data_to_send()
        if telnet:
            self.transport.write_first(telnet)
        return result

    def _handle_commands(self) -> Input | trio.Event:
        protocol = self.protocol
        transport = self.transport
        commands = self.server.counts.commands
        while transport.reason is None:
            if self.waiting is not None:
                done, self.waiting = self.waiting, None
                return done
            if transport.backlogged:
                return Input.PAUSED
            try:
                event = protocol.next_event()
            except RemoteProtocolError as error:
                self.server.counts.protocol_errors += 1
                self.log.info("protocol error", error=str(error), fatal=error.fatal)
                if error.fatal:
                    self.finish(Bye(str(error)), reason="protocol error")
                    return Input.ENDED
                self.send(Error(str(error)))
                continue
            if isinstance(event, NeedData):
                return Input.WANT_DATA
            if isinstance(event, EndOfInput):
                transport.close("client closed the connection")
                return Input.ENDED
            transport.heard()
            if self.turn_reminder is not None:
                self.turn_reminder.acted(trio.current_time())
            kind = type(event)
            commands[kind] += 1
            try:
                self._ROUTES.get(kind, Connection._to_game)(self, event)
            except Exception as error:
                self._failed(event, error)
        return Input.ENDED

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
