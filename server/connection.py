"""One client connection: bytes in, commands to the game, replies out.

Data flows one way: socket → :class:`~protocol.connection.ServerProtocol` (framing
and parsing) → :class:`~server.game.Game` (world rules, events) → replies queued
here → socket.

Output is queued, never awaited by whoever produced it: a game can push a line
to any player without waiting for that player's socket. The connection's own
task writes its replies after each batch of input; a writer task writes what
others queue while it sleeps. A client that stops reading is cut off as soon as
its queue passes ``max_pending_output`` bytes, so it can never stall anyone.

In a world with rounds an action is answered when its round resolves: the game
hands the connection the round's ``done`` event (:meth:`Connection.wait_for`)
and the connection reads no further command until it is set, so replies always
come in the order of the commands.

Time limits are enforced by the server's watchdog (:meth:`Connection.check_time`,
called about every ``tick`` seconds), not by a deadline moved on every command:
moving a trio deadline costs more than the whole world's work on a ``MOVE``. So a
silent client is told ``BYE`` after between ``idle_timeout`` and ``idle_timeout``
+ ``tick`` seconds, and one that leaves its replies unread is cut off after between
``send_timeout`` and ``send_timeout`` + ``tick``.

``EXTEND`` is handled here, because capabilities belong to the connection:
``events`` (pushed lines about the game), ``chat`` (``MESSAGE`` lines) and
``bot`` (others see the player as ``B``; only before joining a world).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import trio

from protocol.commands import Command, Create, Extend, Games, Help, Join, Quit, Watch
from protocol.connection import ServerProtocol
from protocol.dialects import DEFAULT_DIALECT
from protocol.errors import RemoteProtocolError
from protocol.framing import END_OF_INPUT, NEED_DATA
from protocol.replies import Bye, Error, Extended, FinalReply, Lose, Reply, Win

from .dialects import GAME_OVER, EndlessTurn, greet

if TYPE_CHECKING:
    from .app import Server
    from .game import Game

RECEIVE_SIZE = 16384
_GONE = (OSError, trio.BrokenResourceError, trio.ClosedResourceError)
"""What reading or writing a socket raises once the peer or our side has closed it."""
CUT_OFF = "cut off: not reading its replies"
CAPABILITIES = ("events", "chat", "bot")
"""Everything ``EXTEND`` can turn on, in the order ``EXTENDED`` lists it."""
DEFAULT_CAPABILITIES = ("events", "chat")
"""What a bare ``EXTEND`` turns on."""
_LOBBY_COMMANDS = frozenset({Games, Create, Join, Watch})


class Connection:
    """The server's end of one client connection; ``run()`` serves it to the end."""

    def __init__(
        self,
        server: Server,
        stream: trio.SocketStream,
        connection_id: int,
        *,
        dialect: str = DEFAULT_DIALECT,
    ) -> None:
        self.server = server
        self.stream = stream
        # Bytes move through the stream's trio socket itself: the stream's layers (a
        # conflict detector, error translation) cost a fifth of a reply's time, and
        # this class already keeps one reader and one writer at a time.
        self._socket = stream.socket
        self.id = connection_id
        self.config = server.config
        self.protocol = ServerProtocol(
            max_line_length=self.config.max_line_length, dialect=dialect
        )
        self._render = self.protocol.send
        self.game: Game | None = None
        self.player: int | None = None
        self.name: str | None = None
        self.watching: Game | None = None
        self.events = False
        """Whether the client asked for pushed lines about its game."""
        self.chat = False
        self.bot = False
        for capability in self.protocol.dialect.capabilities:  # what its era's clients expect
            setattr(self, capability, True)
        self.endless_turn: EndlessTurn | None = None
        """A greeting dialect's turn in a world without turns (see :mod:`server.dialects`)."""
        self.over = False
        """The game ended for this client, which stays (dialects that keep it after ``WIN``)."""
        self.waiting: trio.Event | None = None
        """Set while an action waits for its round; no command is read until it is set."""
        self.reason: str | None = None
        """Why the connection is ending, once it is; ``None`` while it is served."""
        try:
            host, port = stream.socket.getpeername()[:2]
            peer = f"{host}:{port}"
        except OSError:
            peer = "?"
        self.log = server.log.bind(conn=connection_id, peer=peer, dialect=dialect)
        self._pending = bytearray()
        self._sending = False
        self._in_batch = False
        self._replying = False  # the reader is writing its own replies
        self._writer_wakeup = trio.lowlevel.ParkingLot()
        self._read_scope = trio.CancelScope()
        self._writer_done = trio.Event()
        self._heard = trio.current_time()  # when the client last sent bytes
        self._replying_since = 0.0
        self._expired: str | None = None  # which time limit the watchdog enforced

    # -- output -------------------------------------------------------------------

    def send(self, reply: Reply) -> None:
        """Queue ``reply``; never blocks. Cuts the client off if its queue is too long.

        The limit judges the backlog a reply joins, not the reply: one large reply
        (the ``MAP`` of a big board) to a client that reads is always sent, while a
        client that leaves more than ``max_pending_output`` bytes unread is cut off at
        the next line queued for it, so memory stays within the limit plus one reply.
        """
        if self.reason is not None:
            return
        if len(self._pending) > self.config.max_pending_output:
            self._pending.clear()
            self._stop(CUT_OFF)
            return
        self._pending += self._render(reply)
        if not self._in_batch:
            self._writer_wakeup.unpark_all()

    def finish(self, final: FinalReply, *, reason: str) -> None:
        """Send ``final`` as the last line and close the connection."""
        if self.reason is not None:
            return
        self.send(final)
        if isinstance(final, Win | Lose) and not self.protocol.dialect.closes_after_final:
            self.over = True
            self.log.info("game over for the client, which stays", outcome=reason)
            return
        self._stop(reason)

    def _stop(self, reason: str) -> None:
        self.reason = reason
        if not self._in_batch:
            # Called from another task: wake our reader so that it winds up.
            self._read_scope.cancel()
        self._writer_wakeup.unpark_all()

    async def _flush(self) -> None:
        self._sending = True
        send = self._socket.send
        try:
            while self._pending:
                data, self._pending = self._pending, bytearray()
                try:
                    sent = await send(data)
                    while sent < len(data):
                        del data[:sent]
                        sent = await send(data)
                except BaseException:
                    # Unsent, say because the reader was cancelled as the connection ends
                    # (a world failed during a round): the writer's last flush sends it.
                    self._pending[:0] = data
                    raise
        finally:
            self._sending = False

    async def _write_loop(self) -> None:
        try:
            while True:
                if self._pending and not self._sending:
                    with trio.move_on_after(self.config.send_timeout) as scope:
                        await self._flush()
                    if scope.cancelled_caught:
                        self._pending.clear()
                        self._stop(CUT_OFF)
                        return
                elif self.reason is not None and not self._sending:
                    return
                else:
                    await self._writer_wakeup.park()
        except _GONE:
            self._pending.clear()
            if self.reason is None:
                self._stop("connection lost")
        finally:
            self._writer_done.set()

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
        wanted = command.capabilities or DEFAULT_CAPABILITIES
        if "events" in wanted:
            self.events = True
        if "chat" in wanted:
            self.chat = True
        # A player's kind is fixed when it enters the world.
        if "bot" in wanted and self.player is None:
            self.bot = True
        enabled = {"events": self.events, "chat": self.chat, "bot": self.bot}
        self.send(Extended(tuple(name for name in CAPABILITIES if enabled[name])))
        game = self.game or self.watching
        if self.events and game is not None:
            game.listen(self)

    def _dispatch(self, command: Command) -> None:
        if self.endless_turn is not None:
            self.endless_turn.acted(trio.current_time())
        kind = type(command)
        if kind is Quit:
            self.finish(Bye("Thanks for playing."), reason="quit")
        elif kind in _LOBBY_COMMANDS:
            self.server.lobby.handle(self, command)
        elif kind is Extend:
            self._extend(command)  # type: ignore[arg-type]
        elif kind is Help:
            self.send((self.watching or self.server.game_for(self)).help())
        elif self.over:
            self.send(Error(GAME_OVER))
        elif self.watching is not None:
            self.watching.handle_watcher(self, command)
        else:
            self.server.game_for(self).handle(self, command)

    # -- the connection's life ------------------------------------------------------

    async def run(self) -> None:
        """Serve the connection until it ends, then leave the game and close the socket."""
        self.log.info("client connected")
        if self.protocol.dialect.greets:
            greet(self)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._write_loop)
                with self._read_scope:
                    await self._read_loop()
                if self.reason is None:
                    self._idle_out()
                self._leave_game()
                self._writer_wakeup.unpark_all()
                with trio.move_on_after(self.config.linger):
                    await self._writer_done.wait()
                nursery.cancel_scope.cancel()
        finally:
            self._leave_game()
            with trio.move_on_after(self.config.linger) as cleanup:
                cleanup.shield = True
                await self.stream.aclose()
            self.log.info("client disconnected", reason=self.reason or "server stopped")

    def check_time(self, now: float) -> None:
        """Enforce the idle and send time limits at ``now``; the server's watchdog calls it."""
        if self.reason is not None or self._expired is not None:
            return
        if self.endless_turn is not None:
            self.endless_turn.check(now)
        config = self.config
        if self._replying:
            if now - self._replying_since >= config.send_timeout:
                self._expired = CUT_OFF
                self._read_scope.cancel()
        elif self.waiting is None:  # waiting for a round is not idleness
            idle = config.idle_timeout
            if idle is not None and now - self._heard >= idle:
                self._expired = "idle timeout"
                self._read_scope.cancel()

    def _idle_out(self) -> None:
        if self._expired == CUT_OFF:
            self._pending.clear()
            self.reason = CUT_OFF
        elif self._expired is not None:
            timeout = self.config.idle_timeout
            self.finish(
                Bye(f"no command for {timeout:g} seconds; closing the connection"),
                reason="idle timeout",
            )
        else:
            self.reason = "connection lost"

    def _leave_game(self) -> None:
        self.leave_game("quit" if self.reason == "quit" else "disconnected")

    async def _read_loop(self) -> None:
        protocol = self.protocol
        receive = self._socket.recv
        clock = trio.current_time
        while True:
            try:
                data = await receive(RECEIVE_SIZE)
            except _GONE:
                self.reason = "connection lost"
                return
            self._heard = clock()
            protocol.receive_data(data)
            while True:
                self._in_batch = True
                try:
                    ended = self._handle_input()
                finally:
                    self._in_batch = False
                telnet = protocol.data_to_send()
                if telnet:
                    self._pending[:0] = telnet
                if self._pending and not self._sending:
                    # Written here rather than by the writer task to save a task switch
                    # per reply; a client that leaves them unread is cut off in time.
                    self._replying_since = self._heard
                    self._replying = True
                    try:
                        await self._flush()
                    except _GONE:
                        self._pending.clear()
                        self.reason = self.reason or "connection lost"
                        return
                    self._replying = False
                if ended or self.reason is not None:
                    return
                waiting = self.waiting
                if waiting is None:
                    break
                # The round has its own time limit; idleness counts from its end.
                await waiting.wait()
                self.waiting = None
                self._heard = clock()

    def _handle_input(self) -> bool:
        """Handle every complete line received; True when the input has ended."""
        protocol = self.protocol
        while self.reason is None:
            if self.waiting is not None:
                return False
            try:
                event = protocol.next_event()
            except RemoteProtocolError as error:
                self.log.info("protocol error", error=str(error), fatal=error.fatal)
                if error.fatal:
                    self.finish(Bye(str(error)), reason="protocol error")
                    return True
                self.send(Error(str(error)))
                continue
            if event is NEED_DATA:
                return False
            if event is END_OF_INPUT:
                self.reason = "client closed the connection"
                return True
            self._dispatch(event)  # type: ignore[arg-type]
        return True
