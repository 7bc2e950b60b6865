"""A blocking client over a plain socket: one method per command, typed results.

::

    from clients import Client

    with Client.connect("127.0.0.1", 40004) as client:
        goal = client.hello("Ada")        # gold needed to win
        view = client.look()              # a 5x5 Grid; view.centre is you
        if client.move("N"):              # True if you moved
            ...

All the command logic lives in :class:`clients.core.ClientCore`; this class only
moves bytes. What a caller may rely on:

* Each command waits at most ``timeout`` seconds for its answer, else raises
  :class:`~clients.errors.ClientTimeout` (``timeout=None`` waits forever).
* When the server ends the game (``WIN``, ``LOSE``, ``BYE``) the final line is
  kept in ``final``, the socket is closed, and the next command raises
  :class:`~clients.errors.ServerClosed` carrying it. A winning ``move()`` still
  returns ``True``; ``wait_closed()`` then returns the ``WIN`` line.
* Pushed lines never answer a command. They are read whenever the client
  reads (during any command, ``poll()`` or ``next_event()``) and go to
  ``on_push`` if given, else to the ``events`` queue.
* The client is not thread-safe: use one per thread.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from types import TracebackType
from typing import TypeVar

from protocol.direction import Direction
from protocol.replies import FinalReply, GameInfo, Push

from .core import (
    CLOSED,
    DEFAULT_PORT,
    DEFAULT_TIMEOUT,
    RECEIVE_SIZE,
    Answer,
    ClientCore,
    ClientState,
    PickupResult,
    Request,
)
from .errors import ClientTimeout
from .grid import Grid

__all__ = ["Client"]

T = TypeVar("T")


class Client(ClientState):
    """A blocking Dungeon of Doom client; see the module docstring."""

    def __init__(
        self,
        sock: socket.socket,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        on_push: Callable[[Push], None] | None = None,
    ) -> None:
        self._sock = sock
        self.timeout = timeout
        self._core = ClientCore(on_push=on_push)

    @classmethod
    def connect(
        cls,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        on_push: Callable[[Push], None] | None = None,
    ) -> Client:
        """Open a connection; raises :class:`OSError` when the server cannot be reached."""
        sock = socket.create_connection((host, port), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(sock, timeout=timeout, on_push=on_push)

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the socket (without ``QUIT``; the server treats it as leaving)."""
        self._sock.close()

    # -- commands ---------------------------------------------------------------------------

    def hello(self, name: str | None = None) -> int:
        """``HELLO [name]``: join the game; returns the gold needed to win."""
        return self._call(self._core.hello(name))

    def move(self, direction: Direction | str) -> bool:
        """``MOVE <d>``: True if the player moved, False if something was in the way."""
        return self._call(self._core.move(direction))

    def stay(self) -> bool:
        """``STAY`` (worlds where monsters move): let a turn pass."""
        return self._call(self._core.stay())

    def pickup(self) -> PickupResult:
        """``PICKUP``: true if something was picked up; ``.gold`` is the new gold total."""
        return self._call(self._core.pickup())

    def attack(self, direction: Direction | str) -> bool:
        """``ATTACK <d>`` (battle): True if the blow landed."""
        return self._call(self._core.attack(direction))

    def end_turn(self) -> None:
        """``ENDTURN`` (battle): give up the rest of this turn."""
        return self._call(self._core.end_turn())

    def action_points(self) -> int:
        """``APGET`` (battle): action points left this turn, 0 off one's turn."""
        return self._call(self._core.action_points())

    def hit_points(self) -> int:
        """``HPGET`` (battle): the player's hit points."""
        return self._call(self._core.hit_points())

    def look(self) -> Grid:
        """``LOOK``: the 5×5 view around the player (``view.centre`` is the player)."""
        return self._call(self._core.look())

    def map(self) -> Grid:
        """``MAP``: the whole map as the world lets the player see it."""
        return self._call(self._core.map())

    def help(self) -> tuple[str, ...]:
        """``HELP``: the commands of this world, one line each."""
        return self._call(self._core.help())

    def extend(self, *capabilities: str) -> frozenset[str]:
        """``EXTEND [capability ...]``: ask for extensions; returns those turned on.

        ``events`` and ``chat`` make the server push lines (see ``on_push`` and
        ``events``); ``bot`` shows this player to others as ``B`` and must come
        before the first game command. None named: the server's default set.
        """
        return self._call(self._core.extend(*capabilities))

    def shout(self, text: str) -> None:
        """``SHOUT <text>``: a message to everyone in the game who asked for ``chat``."""
        return self._call(self._core.shout(text))

    def games(self) -> tuple[GameInfo, ...]:
        """``GAMES``: the games on the server."""
        return self._call(self._core.games())

    def create(
        self,
        game: str,
        world: str,
        *,
        map: str | None = None,
        seed: int = 0,
        players: int | None = None,
        turn: float | None = None,
    ) -> GameInfo:
        """``CREATE``: open a game (``players``: most at once; ``turn``: seconds per round)."""
        return self._call(
            self._core.create(game, world, map=map, seed=seed, players=players, turn=turn)
        )

    def join(self, game: str) -> GameInfo:
        """``JOIN <game>``: leave the current game and play in ``game``."""
        return self._call(self._core.join(game))

    def watch(self, game: str) -> GameInfo:
        """``WATCH <game>``: follow a game as a spectator; its views arrive as pushes."""
        return self._call(self._core.watch(game))

    def quit(self) -> FinalReply:
        """``QUIT``: leave the game; returns the server's ``BYE`` line."""
        return self._call(self._core.quit())

    # -- waiting for the server -------------------------------------------------------------

    def poll(self, timeout: float = 0.0) -> None:
        """Read whatever the server sent within ``timeout`` seconds, routing pushed lines."""
        deadline = time.monotonic() + timeout
        while not self._core.closed and self._receive(deadline, quiet=True):
            self._absorb()

    def next_event(self, timeout: float | None = None) -> Push:
        """The oldest pushed line, waiting for one if needed (``timeout`` defaults to the client's).

        Raises :class:`ClientTimeout` when none comes, or the closing error once closed.
        """
        deadline = self._deadline(timeout)
        while not self._core.events:
            if self._core.closed:
                raise self._core.failure()
            self._receive(deadline)
            self._absorb()
        return self._core.events.popleft()

    def wait_closed(self, timeout: float | None = None) -> FinalReply | None:
        """Read until the server closes the connection; returns its final line, if any."""
        deadline = self._deadline(timeout)
        while not self._core.closed:
            self._receive(deadline)
            self._absorb()
        self._sock.close()
        return self._core.final

    # -- moving bytes -------------------------------------------------------------------------

    def _call(self, request: Request[T]) -> T:
        # Take in what already arrived first: if the server has said goodbye, the
        # command fails with its final line instead of writing into a closed socket.
        self.poll()
        self._write(self._core.send(request))
        deadline = self._deadline(None)
        while True:
            answer = self._core.next_answer()
            self._write(self._core.data_to_send())
            if isinstance(answer, Answer):
                if answer.request is request:
                    # Lines already read after the answer (TREASUREMOD after SUCCESS) count now.
                    self._absorb()
                    if self._core.closed:
                        self._sock.close()
                    return answer.result()
            elif answer is CLOSED:
                self._sock.close()
                raise self._core.failure()
            else:
                self._await(request, deadline)

    def _await(self, request: Request, deadline: float | None) -> None:
        """Read once for ``request``; a silence the core reads as an answer is passed on."""
        quiet = self._core.quiet_limit(request)
        wake = deadline
        if quiet is not None:
            wake = (
                time.monotonic() + quiet
                if deadline is None
                else min(deadline, time.monotonic() + quiet)
            )
        if self._receive(wake, quiet=True):
            return
        if wake != deadline:
            self._core.silence(request)
            return
        raise self._core.timed_out(request)

    def _write(self, data: bytes) -> None:
        if not data:
            return
        try:
            self._sock.sendall(data)
        except OSError:
            self._core.connection_lost()

    def _absorb(self) -> None:
        """Let the core parse what was received (answers to abandoned requests are dropped)."""
        while isinstance(self._core.next_answer(), Answer):
            pass
        self._write(self._core.data_to_send())

    def _deadline(self, timeout: float | None) -> float | None:
        timeout = self.timeout if timeout is None else timeout
        return None if timeout is None else time.monotonic() + timeout

    def _receive(self, deadline: float | None, *, quiet: bool = False) -> bool:
        """Read once into the core; False when nothing came before ``deadline`` and ``quiet``."""
        if deadline is None:
            self._sock.settimeout(None)
        else:
            self._sock.settimeout(max(0.0, deadline - time.monotonic()))
        try:
            data = self._sock.recv(RECEIVE_SIZE)
        except (TimeoutError, BlockingIOError):
            if quiet:
                return False
            raise ClientTimeout("no word from the server in time") from None
        except OSError:
            self._core.connection_lost()
            return True
        self._core.receive_data(data)
        return True
