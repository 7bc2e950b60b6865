"""A trio client: the same commands and results as :mod:`clients.sync`, awaited.

::

    from dungeon_of_doom.clients import AsyncClient

    async with AsyncClient.connect("127.0.0.1", 40004) as client:
        goal = await client.hello("Ada")
        view = await client.look()
        moved = await client.move("N")

``connect`` is an async context manager that owns a nursery with one reader
task: it reads everything the server sends, hands each answer to the command
waiting for it and each pushed line to ``on_push`` or the ``events`` queue, so
pushes arrive while the bot is thinking, not only while it waits for an answer.
Leaving the block stops the reader and closes the connection. An exception
raised in the block comes out of it as itself, not wrapped in an exception group.

All the command logic lives in :class:`clients.core.ClientCore`; this class only
moves bytes. What a caller may rely on is what :mod:`clients.sync` promises,
and also: commands may be awaited from several tasks at once (they are sent in
the order they are called and answered first in, first out); a command that
times out raises :class:`~clients.errors.ClientTimeout` and its late answer is
dropped; ``next_event()`` waits for a pushed line; a ``REDIRECT`` is followed as
:mod:`clients.sync` says, on a connection of its own the client then serves, and the
commands of other tasks still waiting for their answers on the connection it leaves
raise :class:`~clients.errors.ConnectionMoved` (never wait for an answer that cannot
come).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import trio

from dungeon_of_doom.protocol.replies import FinalReply, Push

from .core import (
    DEFAULT_PORT,
    DEFAULT_TIMEOUT,
    MAX_REDIRECTS,
    RECEIVE_SIZE,
    Answer,
    AwaitingClient,
    ClientCore,
    Request,
)
from .errors import ClientTimeout, Redirected

__all__ = ["AsyncClient"]

T = TypeVar("T")


class AsyncClient(AwaitingClient):
    """A trio Dungeon of Doom client; make one with :meth:`connect`."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        on_push: Callable[[Push], None] | None = None,
    ) -> None:
        self._stream = stream
        self.timeout = timeout
        self._core = ClientCore(on_push=on_push)
        self._send_lock = trio.Lock()
        self._awaited: set[Request[Any]] = set()
        self._answers: dict[Request[Any], Answer[Any]] = {}
        self._progress = trio.Event()  # set (and replaced) whenever the server said something
        self._pushed = trio.lowlevel.ParkingLot()
        self._ended = trio.Event()
        self._nursery: trio.Nursery | None = None
        self._reading = trio.CancelScope()
        self._read = trio.Event()
        """Set once the reader of the current connection has stopped."""
        self.follow_redirects = True
        """Whether a ``REDIRECT`` (``extend("redirect")``) is followed: the client
        connects to the game's node and sends the command again there."""

    @classmethod
    @asynccontextmanager
    async def connect(
        cls,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        on_push: Callable[[Push], None] | None = None,
    ) -> AsyncIterator[AsyncClient]:
        """Connect and serve the connection for the ``async with`` block.

        Raises :class:`OSError` when the server cannot be reached and
        :class:`ClientTimeout` when connecting takes longer than ``timeout``.
        """
        try:
            with trio.fail_after(timeout if timeout is not None else float("inf")):
                stream = await trio.open_tcp_stream(host, port)
        except trio.TooSlowError:
            raise ClientTimeout(f"could not connect to {host}:{port} in time") from None
        async with cls.over(stream, timeout=timeout, on_push=on_push) as client:
            yield client

    async def _open(self, host: str, port: int) -> trio.SocketStream:
        try:
            with trio.fail_after(self._limit(None)):
                return await trio.open_tcp_stream(host, port)
        except trio.TooSlowError:
            raise ClientTimeout(f"could not connect to {host}:{port} in time") from None

    @classmethod
    @asynccontextmanager
    async def over(
        cls,
        stream: trio.abc.Stream,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        on_push: Callable[[Push], None] | None = None,
    ) -> AsyncIterator[AsyncClient]:
        """Serve a connection already open on ``stream`` (TCP, or a
        ``trio.testing.memory_stream_pair`` end) for the ``async with`` block, then
        close ``stream``."""
        try:
            async with trio.open_nursery() as nursery:
                client = cls(stream, timeout=timeout, on_push=on_push)
                client._nursery = nursery
                await client._start_reading()
                try:
                    yield client
                finally:
                    nursery.cancel_scope.cancel()
                    with trio.CancelScope(shield=True):
                        await client._stream.aclose()
        except BaseExceptionGroup as group:
            # The caller's block runs inside our nursery, which wraps what it raises;
            # give back the caller's own exception (ServerClosed, not a group of one).
            error = _single(group)
            if error is group:
                raise
            raise error from None

    # -- waiting for the server -------------------------------------------------------------

    async def next_event(self, timeout: float | None = None) -> Push:
        """The oldest pushed line, waiting for one if needed (``timeout`` defaults to the client's).

        Raises :class:`ClientTimeout` when none comes, or the closing error once closed.
        """
        with trio.move_on_after(self._limit(timeout)):
            while not self._core.events:
                if self._core.closed:
                    raise self._core.failure()
                await self._pushed.park()
            return self._core.events.popleft()
        raise ClientTimeout("no pushed line arrived in time")

    async def wait_closed(self, timeout: float | None = None) -> FinalReply | None:
        """Wait until the server closes the connection; returns its final line, if any."""
        with trio.move_on_after(self._limit(timeout)):
            await self._ended.wait()
            return self._core.final
        raise ClientTimeout("the server did not close the connection in time")

    # -- moving bytes -------------------------------------------------------------------------

    def _limit(self, timeout: float | None) -> float:
        timeout = self.timeout if timeout is None else timeout
        return float("inf") if timeout is None else timeout

    async def _call(self, request: Request[T]) -> T:
        try:
            return await self._exchange(request)
        except Redirected as redirected:
            if not self.follow_redirects:
                raise
            return await self._follow(redirected, request)

    async def _follow(self, redirected: Redirected, request: Request[T]) -> T:
        """Connect to the node ``redirected`` names, say who the client is there (its
        capabilities, its name) and send ``request``'s command again. Commands of other
        tasks still waiting for their answers on the old connection are answered
        :class:`~clients.errors.ConnectionMoved`; those sent meanwhile go to the new one."""
        for _ in range(MAX_REDIRECTS):
            stream = await self._open(redirected.host, redirected.port)
            async with self._send_lock:
                # Nothing is sent while the connection changes, and the client's EXTEND
                # and HELLO go out on the new one before any other task's command.
                old = self._core
                self._reading.cancel()
                await self._read.wait()
                await self._stream.aclose()
                self._stream, self._core = stream, old.moved()
                self._deliver(old)  # the old connection's unanswered requests
                self._ended = trio.Event()
                await self._start_reading()
                greetings: list[Request[Any]] = []
                if old.capabilities:
                    greetings.append(self._core.extend(*sorted(old.capabilities)))
                if old.name is not None:
                    greetings.append(self._core.hello(old.name))
                for greeting in greetings:
                    self._awaited.add(greeting)
                    await self._write(self._core.send(greeting))
            try:
                for greeting in greetings:
                    await self._answer(greeting)
            finally:
                self._awaited.difference_update(greetings)
            try:
                return await self._exchange(Request(request.command, request.interpret))
            except Redirected as again:
                redirected = again
        raise redirected

    async def _start_reading(self) -> None:
        assert self._nursery is not None
        self._reading = trio.CancelScope()
        self._read = trio.Event()
        self._nursery.start_soon(self._read_loop, self._stream, self._core, self._reading)

    async def _exchange(self, request: Request[T]) -> T:
        self._awaited.add(request)
        try:
            async with self._send_lock:
                await self._write(self._core.send(request))
        except BaseException:
            self._awaited.discard(request)
            raise
        return await self._answer(request)

    async def _answer(self, request: Request[T]) -> T:
        """``request``'s answer, once sent (and in ``_awaited``); it leaves ``_awaited``."""
        try:
            deadline = trio.current_time() + self._limit(None)
            while request not in self._answers:
                quiet = self._core.quiet_limit(request)
                wake = deadline if quiet is None else min(deadline, trio.current_time() + quiet)
                progress = self._progress
                with trio.move_on_at(wake):
                    await progress.wait()
                    continue
                if wake < deadline:
                    self._core.silence(request)
                    self._deliver()
                    continue
                raise self._core.timed_out(request)
            result: T = self._answers.pop(request).result()
            return result
        finally:
            self._awaited.discard(request)
            self._answers.pop(request, None)

    async def _write(self, data: bytes) -> None:
        # If the connection is gone, the reader sees the same end and fails the
        # request with the right error (the server's final line, if it sent one).
        if data:
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await self._stream.send_all(data)

    async def _read_loop(
        self, stream: trio.abc.Stream, core: ClientCore, scope: trio.CancelScope
    ) -> None:
        ended, read = self._ended, self._read
        with scope:
            try:
                while not core.closed:
                    try:
                        data = await stream.receive_some(RECEIVE_SIZE)
                    except (trio.BrokenResourceError, trio.ClosedResourceError):
                        core.connection_lost()
                    else:
                        core.receive_data(data if isinstance(data, bytes) else bytes(data))
                    self._deliver()
                    if again := core.data_to_send():
                        async with self._send_lock:
                            await self._write(again)
            finally:
                if not scope.cancel_called:  # not a redirect followed: the connection ended
                    if not core.closed:
                        core.connection_lost()
                        self._deliver()
                    ended.set()
                    self._pushed.unpark_all()
                read.set()

    def _deliver(self, core: ClientCore | None = None) -> None:
        """Hand the answers ``core`` (the connection's, unless given) has to the requests
        that wait for them, and wake those waiting for the server."""
        core = self._core if core is None else core
        while True:
            answer = core.next_answer()
            if not isinstance(answer, Answer):
                break
            if answer.request in self._awaited:
                self._answers[answer.request] = answer
        self._progress.set()
        self._progress = trio.Event()
        if core.events:
            self._pushed.unpark_all()


def _single(group: BaseExceptionGroup) -> BaseException:
    """The one exception inside nested groups of one, or ``group`` itself."""
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error
