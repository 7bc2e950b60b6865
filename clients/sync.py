"""A blocking client over a plain socket: one method per command, typed results.

::

    from dungeon_of_doom.clients import Client

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
* ``JOIN`` or ``WATCH`` answered ``REDIRECT`` (after ``extend("redirect")``, a node of
  a cluster naming the node that holds the game) is followed: the client closes its
  connection, connects to that node, sends the same ``EXTEND`` and ``HELLO <name>``
  again and then the command, whose answer it returns (``follow_redirects = False``
  raises :class:`~clients.errors.Redirected` instead).
* The client is not thread-safe: use one per thread.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeVar

from dungeon_of_doom.protocol.replies import FinalReply, Push

from .core import (
    CLOSED,
    DEFAULT_PORT,
    DEFAULT_TIMEOUT,
    MAX_REDIRECTS,
    RECEIVE_SIZE,
    Answer,
    BlockingClient,
    ClientCore,
    Request,
)
from .errors import ClientTimeout, Redirected

__all__ = ["Client"]

T = TypeVar("T")


class Client(BlockingClient):
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
        self.follow_redirects = True
        """Whether a ``REDIRECT`` (``extend("redirect")``) is followed: the client
        connects to the game's node and sends the command again there."""

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
        try:
            return self._exchange(request)
        except Redirected as redirected:
            if not self.follow_redirects:
                raise
            return self._follow(redirected, request)

    def _follow(self, redirected: Redirected, request: Request[T]) -> T:
        """Connect to the node ``redirected`` names, say who the client is there (its
        capabilities, its name) and send ``request``'s command again."""
        for _ in range(MAX_REDIRECTS):
            sock = socket.create_connection((redirected.host, redirected.port), self.timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            old = self._core
            self._sock.close()
            self._sock, self._core = sock, old.moved()
            if old.capabilities:
                self._exchange(self._core.extend(*sorted(old.capabilities)))
            if old.name is not None:
                self._exchange(self._core.hello(old.name))
            try:
                return self._exchange(Request(request.command, request.interpret))
            except Redirected as again:
                redirected = again
        raise redirected

    def _exchange(self, request: Request[T]) -> T:
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
                    result: T = answer.result()
                    return result
            elif answer is CLOSED:
                self._sock.close()
                raise self._core.failure()
            else:
                self._await(request, deadline)

    def _await(self, request: Request[Any], deadline: float | None) -> None:
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
