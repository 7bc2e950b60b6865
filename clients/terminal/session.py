"""One connection played from the terminal: the trio side of the client.

A :class:`Session` connects with :class:`clients.AsyncClient`, asks for pushed
lines (``EXTEND``), learns the world (``HELP``), says ``HELLO`` (or joins or
watches a game) and then serves two queues: keys and typed lines from the
screen, and the server's pushes. It keeps a :class:`~clients.terminal.state.GameState`
and calls ``on_change`` after every change. It speaks only the public protocol.

What a caller may rely on:

* :meth:`Session.run` returns an :class:`Ending` and never raises for anything
  the network or the server does: an unreachable server, a refused connection,
  a dropped one, a final line, a broken reply, a game to join or watch that the
  server refuses (status 1, at once) all become an ending with a message.
* :meth:`Session.submit` may be called from any thread once ``run`` has started.
  A turn (a move, ``STAY``, ``PICKUP``) submitted while another is unanswered is
  dropped, so holding a key never queues up moves; typed lines are never dropped.
* After every answered turn the map is asked for again (``MAP``, or ``LOOK`` where
  there is no ``MAP``), and again after each pushed line that can change it;
  requests that pile up are merged into one.
* Quitting does not wait behind an unanswered turn: ``QUIT`` is sent at once, and
  if no ``BYE`` comes within a few seconds (a round still running) the
  connection is closed, which leaves the game as well.
* :meth:`Session.stop` ends ``run`` at once (thread-safe).
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable
from dataclasses import dataclass

import trio

from protocol.capabilities import DEFAULT_CAPABILITIES
from protocol.commands import (
    ApGet,
    Attack,
    Command,
    EndTurn,
    Hello,
    HpGet,
    Join,
    Move,
    Pickup,
    Quit,
    Shout,
    Stay,
    Watch,
    parse_command,
)
from protocol.errors import RemoteProtocolError
from protocol.replies import (
    Bye,
    FinalReply,
    GameInfo,
    GameOver,
    Notice,
    PlayerJoined,
    PlayerLeft,
    Push,
    RoundEnded,
    Seen,
)

from ..aio import AsyncClient
from ..core import PickupResult
from ..errors import ClientError, ClientTimeout, CommandError, ServerClosed, UnexpectedReply
from . import command_line
from .keys import Action, Verb
from .messages import Kind, describe_final
from .state import GameState, WorldInfo, read_help

__all__ = ["Ending", "Session"]

CONNECT_TIMEOUT = 10.0
QUIT_TIMEOUT = 5.0
"""Seconds to wait for the ``BYE`` that answers ``QUIT`` before closing anyway."""
_MAP_CHANGES = (Seen, PlayerJoined, PlayerLeft, RoundEnded, Notice, GameOver)
_COUNT_CHANGES = (PlayerJoined, PlayerLeft, GameOver)


@dataclass(frozen=True, slots=True)
class Ending:
    """How a session ended.

    ``text`` is for the terminal once the screen is gone; ``status`` is the exit
    status (0: a game played to its end or left, 1: no server, or the connection
    broke); ``wait`` is true when the screen should show the ending until a key
    is pressed (the server ended the game, not the player); ``final`` is the
    server's last line, if it sent one.
    """

    text: str
    status: int = 0
    wait: bool = False
    final: FinalReply | None = None


class Session:
    """A connection to one server, driven by the screen; see the module docstring."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        name: str | None = None,
        game: str | None = None,
        watch: str | None = None,
        on_change: Callable[[], None] = lambda: None,
    ) -> None:
        self.state = GameState(host, port)
        self._name = name
        self._join = game
        self._watch = watch
        self._on_change = on_change
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None
        self._inbox_send, self._inbox = trio.open_memory_channel[Action | str](64)
        self._turn_busy = False
        self._quitting = False
        self._broken: str | None = None
        self._refused: str | None = None
        self._wanted = trio.Event()
        self._moves_base = 0
        self._client: AsyncClient | None = None
        self._nursery: trio.Nursery | None = None

    # -- from the screen (any thread) -----------------------------------------------------

    def submit(self, item: Action | str) -> None:
        """A key's action, or a line typed on the command line, for the session to play.

        Ignored before ``run`` has started and after it has ended.
        """
        self._soon(self._accept, item)

    def stop(self) -> None:
        """End the session now, without a word to the server (nothing once it has ended)."""
        if self._scope is not None:
            self._soon(self._scope.cancel)

    def _soon(self, function: Callable[..., object], *args: object) -> None:
        if self._token is not None:
            with contextlib.suppress(trio.RunFinishedError):
                self._token.run_sync_soon(function, *args)

    def _accept(self, item: Action | str) -> None:
        if isinstance(item, Action) and item.verb is Verb.QUIT:
            # Not behind a turn that waits for a slow round: quit now.
            if self._nursery is not None and self._client is not None:
                self._nursery.start_soon(self._quit, self._client)
            return
        if isinstance(item, Action) and item.is_turn:
            if self._turn_busy:
                return
            self._turn_busy = True
        try:
            self._inbox_send.send_nowait(item)
        except trio.WouldBlock:
            self._turn_busy = False

    # -- the connection --------------------------------------------------------------------

    async def run(self) -> Ending:
        """Play until the connection ends or :meth:`stop`; see the module docstring."""
        self._token = trio.lowlevel.current_trio_token()
        state = self.state
        where = f"{state.host}:{state.port}"
        with trio.CancelScope() as self._scope:
            try:
                async with AsyncClient.connect(
                    state.host, state.port, timeout=CONNECT_TIMEOUT, on_push=self._pushed
                ) as client:
                    # Rounds may take as long as the slowest player: never time a reply out.
                    client.timeout = None
                    state.connected = True
                    self._changed()
                    async with trio.open_nursery() as nursery:
                        self._client, self._nursery = client, nursery
                        nursery.start_soon(self._play, client)
                        nursery.start_soon(self._refresh_loop, client)
                        final = await client.wait_closed(math.inf)
                        nursery.cancel_scope.cancel()
            except (OSError, ClientTimeout) as error:
                if state.connected:
                    raise
                return Ending(f"cannot connect to {where}: {_reason(error)}", status=1)
            return self._ending(final)
        if self._refused is not None:
            return Ending(self._refused, status=1)
        if self._quitting:
            return Ending("left the game; the server did not say goodbye")
        return Ending("")

    def _ending(self, final: FinalReply | None) -> Ending:
        self.state.connected = False
        if self._broken is not None:
            self.state.note(self._broken, Kind.ERROR)
            self._changed()
            return Ending(f"the connection broke: {self._broken}", status=1, wait=True)
        entry = describe_final(final)
        self.state.note(entry.text, entry.kind)
        self._changed()
        if final is None:
            return Ending("the server closed the connection", status=1, wait=True)
        said = final.lines()[0]
        if self._quitting and isinstance(final, Bye):
            return Ending(said, final=final)
        return Ending(said, wait=True, final=final)

    def _changed(self) -> None:
        self._on_change()

    def _want_refresh(self) -> None:
        self._wanted.set()

    def _pushed(self, push: Push) -> None:
        self.state.take_push(push)
        # A spectator's map comes pushed (VIEW); only the counts need asking for.
        changes = _COUNT_CHANGES if self.state.watching else _MAP_CHANGES
        if isinstance(push, changes):
            self._want_refresh()
        self._changed()

    # -- playing ------------------------------------------------------------------------------

    async def _play(self, client: AsyncClient) -> None:
        try:
            await self._start(client)
        except CommandError as error:
            # The game asked for on the command line is not there: nothing to play.
            self._refuse(f"cannot {error.command.lower()}: {error.message}")
            return
        except ServerClosed:
            return
        except ClientError as error:
            self._fail(error)
            return
        async for item in self._inbox:
            try:
                if isinstance(item, str):
                    await self._typed(client, item)
                else:
                    await self._key(client, item)
            except CommandError as error:
                self.state.note(error.message, Kind.ERROR)
            except ServerClosed:
                return
            except ClientError as error:
                self._fail(error)
                return
            finally:
                self._turn_busy = False
                self.state.pending = None
                self._changed()

    def _refuse(self, why: str) -> None:
        """End the session at once with ``why`` (leaving by closing the connection)."""
        self._refused = why
        self.state.note(why, Kind.ERROR)
        self._changed()
        if self._scope is not None:
            self._scope.cancel()

    def _fail(self, error: ClientError) -> None:
        # The client has closed the connection; ``run`` reports it when the reader stops.
        if isinstance(error, UnexpectedReply):
            self._broken = str(error)

    async def _start(self, client: AsyncClient) -> None:
        state = self.state
        try:
            # A spectator also asks for every level of the game (LEVEL, with "board").
            wanted = (*DEFAULT_CAPABILITIES, "board") if self._watch is not None else ()
            await client.extend(*wanted)
        except CommandError:
            state.note("This server sends no pushed lines (no EXTEND): no chat or news.")
        if self._watch is not None:
            state.enter(await client.watch(self._watch), watching=True)
            await self._learn_world(client)
        else:
            if self._join is not None:
                state.enter(await client.join(self._join), watching=False)
            await self._learn_world(client)
            await self._hello(client)
        world = state.world.name or "an unknown"
        doing = "Watching" if state.watching else "Playing"
        state.note(f"{doing} game {state.game} in the {world} world. Press ? for help.")
        self._want_refresh()
        self._changed()

    async def _learn_world(self, client: AsyncClient) -> None:
        try:
            told = read_help(await client.help())
        except CommandError:
            return
        name = told.name or self.state.world.name
        self.state.world = WorldInfo(name, told.directions, told.stay)

    async def _hello(self, client: AsyncClient) -> None:
        try:
            goal = await client.hello(self._name)
        except CommandError as error:
            if self._name is None:
                raise
            self.state.note(f"{error.message}; playing without a name", Kind.ERROR)
            goal = await client.hello()
        self.state.goal = goal
        self.state.name = client.name
        self._moves_base = client.moves
        await self._battle_status(client)

    async def _battle_status(self, client: AsyncClient) -> None:
        """In a turn-based world, ask for the hit and action points the status line shows."""
        if self.state.world.name != "battle":
            return
        self.state.hp = await client.hit_points()
        self.state.ap = await client.action_points()

    async def _key(self, client: AsyncClient, action: Action) -> None:
        state = self.state
        if action.verb is Verb.REDRAW:
            self._want_refresh()
            return
        line = action.protocol_line
        if line is None:
            return
        state.pending = line
        self._changed()
        if action.verb is Verb.MOVE and action.direction is not None:
            if not await client.move(action.direction):
                state.note(f"{line}: blocked")
        elif action.verb is Verb.STAY:
            await client.stay()
        else:
            self._picked_up(await client.pickup())
        state.moves = client.moves - self._moves_base
        await self._battle_status(client)
        self._want_refresh()

    def _picked_up(self, picked: PickupResult) -> None:
        if picked.gold is not None:
            self.state.gold = picked.gold
            self.state.note(f"You pick up gold: you hold {picked.gold}.", Kind.NOTICE)
        elif picked:
            self.state.note("You pick it up.", Kind.NOTICE)
        else:
            self.state.note("There is nothing here to pick up.")

    async def _quit(self, client: AsyncClient) -> None:
        self._quitting = True
        with trio.move_on_after(QUIT_TIMEOUT) as waited:
            try:
                await client.quit()
            except ClientError:
                return  # the connection is over anyway; ``run`` reports how
        if waited.cancelled_caught and self._scope is not None:
            self._scope.cancel()

    async def _typed(self, client: AsyncClient, line: str) -> None:
        state = self.state
        try:
            command = parse_command(line)
        except RemoteProtocolError as error:
            state.note(f"{line.strip()}: {error}", Kind.ERROR)
            return
        if command is None:
            return
        # Chat comes back as a MESSAGE line: echoing the SHOUT and its SUCCESS is noise.
        chat = isinstance(command, Shout)
        if not chat:
            state.note(f"> {command.to_line()}", Kind.SENT)
        if isinstance(command, Quit):
            self._quitting = True
        if isinstance(command, Move | Stay | Pickup):
            state.pending = command.to_line()
            self._changed()
        sent = await command_line.send(client, command)
        if not chat:
            state.log.extend(Kind.REPLY, sent.lines)
        await self._after_typed(client, command, sent.value)
        self._want_refresh()

    async def _after_typed(self, client: AsyncClient, command: Command, value: object) -> None:
        """Keep the picture true after a typed command that changes the game."""
        state = self.state
        if isinstance(command, Join | Watch) and isinstance(value, GameInfo):
            state.enter(value, watching=isinstance(command, Watch))
            await self._learn_world(client)
            if isinstance(command, Join):
                await self._hello(client)
        elif isinstance(command, Hello) and isinstance(value, int):
            state.goal, state.name = value, client.name
        elif isinstance(value, PickupResult) and value.gold is not None:
            state.gold = value.gold
        state.moves = client.moves - self._moves_base
        if isinstance(command, Move | Pickup | Attack | EndTurn | ApGet | HpGet):
            await self._battle_status(client)

    async def _refresh_loop(self, client: AsyncClient) -> None:
        state = self.state
        while True:
            await self._wanted.wait()
            self._wanted = trio.Event()
            try:
                if not state.watching:
                    await self._redraw_map(client)
                state.update_games(await client.games())
            except CommandError:
                pass
            except ServerClosed:
                return
            except ClientError as error:
                self._fail(error)
                return
            self._changed()

    async def _redraw_map(self, client: AsyncClient) -> None:
        try:
            grid, look = await client.map(), False
        except CommandError:
            grid, look = await client.look(), True
        self.state.map_rows, self.state.look = grid.rows, look


def _reason(error: BaseException) -> str:
    """Why connecting failed, in a few words ("connection refused")."""
    if isinstance(error, ClientTimeout):
        return "no answer in time"
    # trio reports every address it tried, as a group under one OSError.
    candidates: list[BaseException | None] = [error, error.__cause__]
    if isinstance(error.__cause__, BaseExceptionGroup):
        candidates += error.__cause__.exceptions
    for candidate in candidates:
        if isinstance(candidate, OSError) and candidate.strerror:
            # trio's strerror quotes the address again; the system's words are enough.
            errno = candidate.errno
            words = os.strerror(errno) if errno is not None and errno > 0 else candidate.strerror
            return words[:1].lower() + words[1:]
    return str(error)
