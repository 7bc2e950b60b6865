"""The web face's sockets: our accept loop and limits around Hypercorn's HTTP and WebSockets.

Hypercorn parses HTTP/1.1 (h11) and WebSockets (wsproto), but its own accept loop
counts nothing, and it writes with its socket's send shielded from cancellation: a
client that never reads holds that write, its connection and the server's shutdown
for ever. So :func:`serve_http` accepts the sockets itself and hands each to
Hypercorn's per-connection server inside a :class:`GuardedStream`:

* each socket is admitted against the server's connection limits
  (:mod:`server.session.admission`: ``max_connections``, ``http_max_connections``, and the
  client address's ``max_connections_per_address``, which HTTP, WebSocket and game
  connections share; a trusted proxy's sockets count in the totals only, its clients
  by their own addresses once their requests name them); a socket over a limit is
  answered ``503`` with the reason and closed, and at most :data:`REFUSING` are being
  refused at once (more are closed at once);
* a write the client does not take within ``send_timeout`` seconds (``linger`` once
  the server stops) aborts the socket, whatever Hypercorn shields;
* Hypercorn is handed at most :data:`RECEIVE_SIZE` bytes a read (it inflates a
  compressed WebSocket message a read at a time), :data:`COMPRESSED_RECEIVE_SIZE`
  once a WebSocket's messages may be compressed, and none once a WebSocket's close
  frame has been sent (but the few a close reply needs): the bytes a client sends after
  it is told to go are dropped, never buffered;
* only HTTP/1.1 is spoken: cleartext HTTP/2 (``PRI *`` or ``Upgrade: h2c``), which
  browsers never use, would carry many streams on one admitted socket, and is refused.

What is left to Hypercorn's settings (set in :func:`hypercorn_config`): the keep-alive
time between requests, the WebSocket message size (a larger message ends the
WebSocket with close code 1009) and :data:`APP_QUEUE` messages queued for the
application (Hypercorn then stops reading the socket until the game has taken one).
"""

from __future__ import annotations

import contextlib
import logging
import socket as stdlib_socket
import struct
from collections.abc import Callable
from functools import partial
from typing import Final

import trio
from hypercorn.config import Config
from hypercorn.trio.tcp_server import TCPServer
from hypercorn.trio.worker_context import WorkerContext
from hypercorn.typing import ConnectionState
from hypercorn.utils import wrap_app
from starlette.types import ASGIApp

from ..setup.access import Networks
from .site import Site

RECEIVE_SIZE: Final = 2048
"""Bytes handed to Hypercorn a read at most (it asks for 64 KiB): a compressed WebSocket
message (``permessage-deflate``, which Hypercorn always offers) is inflated a read at a
time, to up to about a thousand times its size, before its length is checked; and a
read may begin before the socket is known to be a WebSocket, so every read is small.
Requests are small (the page's are a few hundred bytes)."""
COMPRESSED_RECEIVE_SIZE: Final = 256
"""Bytes handed to Hypercorn a read at most once ``permessage-deflate`` is agreed for a
WebSocket: inflated up to about a thousand times, a read is then at most about 256 KiB
(2 KiB reads let six sockets hold over 100 MiB at once). A browser's commands are a few
bytes a message."""
AFTER_CLOSE: Final = 256
"""Bytes handed to Hypercorn after a WebSocket close frame was sent: a close reply fits."""
REQUEST_HEAD: Final = 16384
"""Bytes of an HTTP request's head (line and headers) at most (Hypercorn's h11 limit)."""
APP_QUEUE: Final = 4
"""Messages (WebSocket messages, request body pieces) Hypercorn queues for the app at most."""
REFUSING: Final = 64
"""Connections being answered ``503`` at once; beyond these a refused socket is just closed."""
_CLOSE_FRAME: Final = 0x88  # FIN and opcode 8: a WebSocket close frame from the server


def hypercorn_config(server: Site) -> Config:
    """Hypercorn's settings for ``server``'s web face (the ones this module does not enforce)."""
    config = server.config
    hypercorn = Config()
    hypercorn.accesslog = None  # our own access log events instead (server.web.app.AccessLog)
    hypercorn.errorlog = logging.getLogger("hypercorn.error")  # through structlog
    hypercorn.keep_alive_timeout = config.http_keep_alive_timeout
    hypercorn.websocket_max_message_size = config.websocket_max_message
    # Messages queued for the application (Hypercorn reads no more meanwhile): a request
    # and its disconnect must fit, or a handler that reads no body never finishes.
    hypercorn.max_app_queue_size = APP_QUEUE
    hypercorn.h11_max_incomplete_size = REQUEST_HEAD
    hypercorn.h2_max_concurrent_streams = 1  # (HTTP/2 is refused anyway: GuardedStream)
    hypercorn.include_server_header = False
    return hypercorn


class GuardedStream(trio.abc.HalfCloseableStream):
    """One accepted HTTP socket as Hypercorn reads and writes it; see the module docstring.

    ``socket`` is the trio socket (Hypercorn reads its addresses there)."""

    def __init__(
        self,
        stream: trio.SocketStream,
        *,
        send_timeout: float,
        linger: float,
        on_close: Callable[[], object] = lambda: None,
    ) -> None:
        self.stream = stream
        self.on_close = on_close
        """Called once the socket is closed (Hypercorn's connection may live a little longer)."""
        self.socket = stream.socket
        self.send_timeout = send_timeout
        self.linger = linger
        self.aborted: str | None = None
        """Why the socket was aborted, once it is."""
        self._hurry = float("inf")  # the deadline of every write, once the server stops
        self._sending: trio.CancelScope | None = None
        self._started = False
        self._websocket = False
        self._read_size = RECEIVE_SIZE
        self._surplus = b""  # read before the read size fell: at most RECEIVE_SIZE bytes
        self._closing_budget: int | None = None  # bytes still passed on after a close frame

    def hurry(self, deadline: float) -> None:
        """Give up any write still waiting at ``deadline`` (the server is stopping)."""
        self._hurry = min(self._hurry, deadline)
        if self._sending is not None:
            self._sending.deadline = min(self._sending.deadline, deadline)

    def abort(self, why: str) -> None:
        """Close the socket now, unsent bytes dropped (a reset); every wait on it ends."""
        if self.aborted is not None:
            return
        self.aborted = why
        with contextlib.suppress(OSError):
            self.socket.setsockopt(
                stdlib_socket.SOL_SOCKET, stdlib_socket.SO_LINGER, struct.pack("ii", 1, 0)
            )
        self.socket.close()
        self.on_close()

    def _client_closed(self) -> None:
        # Hypercorn writes nothing once the client has closed, but its connection waits
        # out its keep-alive timer: the socket is closed (and uncounted) now.
        if self.aborted is None:
            self.aborted = "closed by the client"
            self.socket.close()
            self.on_close()

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self.aborted is not None:
            raise trio.BrokenResourceError(self.aborted)
        self._note_sent(data)
        if self.aborted is not None:
            raise trio.BrokenResourceError(self.aborted)
        # Hypercorn shields this call from cancellation; our own deadline still ends it.
        deadline = min(trio.current_time() + self.send_timeout, self._hurry)
        with trio.move_on_at(deadline) as scope:
            self._sending = scope
            try:
                await self.stream.send_all(data)
            except trio.ClosedResourceError as error:
                raise trio.BrokenResourceError(self.aborted or "closed") from error
            except trio.BrokenResourceError:
                # Reset by the client: Hypercorn may wait for ever to read the next
                # pipelined request, so the socket is closed (and uncounted) here.
                self.abort("connection lost")
                raise
            finally:
                self._sending = None
        if scope.cancelled_caught:
            self.abort("cut off: not reading its replies")
            raise trio.BrokenResourceError(self.aborted)

    def _note_sent(self, data: bytes | bytearray | memoryview) -> None:
        """Follow the conversation from what Hypercorn writes: the upgrade, the close."""
        head = bytes(data[:32]).lower()
        if head.startswith(b"http/1.1 101"):
            if b"upgrade: h2c" in bytes(data).lower():
                self.abort("cleartext HTTP/2 is not served")
            else:
                self._websocket = True
                if b"permessage-deflate" in bytes(data).lower():
                    self._read_size = COMPRESSED_RECEIVE_SIZE
        elif self._websocket and head[:1] == bytes([_CLOSE_FRAME]) and self._closing_budget is None:
            self._closing_budget = AFTER_CLOSE
            self._surplus = b""  # a compressed message's rest, most likely: never inflated

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self.aborted is not None:
            raise trio.BrokenResourceError(self.aborted)
        wanted = self._read_size if max_bytes is None else min(max_bytes, self._read_size)
        if self._surplus:
            # Hypercorn reads again before the application has answered an upgrade: what
            # that read brought past the compressed read size is handed on in pieces.
            data, self._surplus = self._surplus[:wanted], self._surplus[wanted:]
            await trio.lowlevel.checkpoint()
            return data
        try:
            if self._closing_budget is None:
                data = bytes(await self.stream.receive_some(wanted))
                if len(data) > self._read_size:  # the size fell while this read waited
                    data, self._surplus = data[: self._read_size], data[self._read_size :]
                if not data:
                    self._client_closed()
                elif not self._started:
                    self._started = True
                    if data.startswith(b"PRI * HTTP/2"):
                        self.abort("cleartext HTTP/2 is not served")
                        return b""
                return data
            return await self._receive_after_close(wanted)
        except trio.ClosedResourceError as error:
            raise trio.BrokenResourceError(self.aborted or "closed") from error

    async def _receive_after_close(self, wanted: int) -> bytes:
        """What a client sends once told to close: a close reply's worth, then nothing."""
        if self._closing_budget:
            data = bytes(await self.stream.receive_some(min(wanted, self._closing_budget)))
            self._closing_budget -= len(data)
            return data
        # Dropped, not buffered, until the client closes or ``linger`` passes.
        with trio.move_on_after(self.linger):
            while await self.stream.receive_some(RECEIVE_SIZE):
                pass
        return b""

    async def send_eof(self) -> None:
        # Hypercorn ends a connection (send_eof, then aclose) from the task that reads
        # it, outside the lock its application's writes hold: through trio's stream a
        # send_eof beside a send_all raises BusyResourceError in one of them. The
        # socket is shut down directly instead, and not while a write is under way
        # (aclose follows, which ends that write).
        if self.aborted is None and self._sending is None:
            with contextlib.suppress(OSError):
                self.socket.shutdown(stdlib_socket.SHUT_WR)
        await trio.lowlevel.checkpoint()

    async def aclose(self) -> None:
        try:
            if self.aborted is None:
                await self.stream.aclose()
            else:
                await trio.lowlevel.checkpoint()
        finally:
            self.on_close()


async def serve_http(
    server: Site,
    app: ASGIApp,
    listeners: list[trio.SocketListener],
    *,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve ``app`` on ``listeners`` until cancelled; then every write still waiting
    is given ``linger`` seconds before its socket is aborted."""
    config = server.config
    hypercorn = hypercorn_config(server)
    wrapped = wrap_app(app, hypercorn.wsgi_max_body_size, "asgi")  # type: ignore[arg-type]
    context = WorkerContext(None)
    proxies = Networks.parse(config.trusted_proxies)
    live: set[GuardedStream] = set()
    refusing = [0]

    async def serve_socket(stream: trio.SocketStream) -> None:
        try:
            host = str(stream.socket.getpeername()[0])
        except OSError:  # gone before we looked
            await stream.aclose()
            return
        behind_proxy = proxies.holds(host)
        counts = {"address": not behind_proxy, "web": True}
        admission = server.admission
        refusal = admission.refusal(host, **counts)
        if refusal is not None:
            server.counts.refused += 1
            server.client_log(host).warning("connection refused", reason=refusal, way="http")
            await _refuse(stream, refusal, refusing, linger=config.linger)
            return
        # Counted while the socket is open: Hypercorn's connection outlives it by up to
        # the keep-alive time (its timer), holding no descriptor meanwhile.
        counted = contextlib.ExitStack()
        counted.enter_context(admission.held(host, **counts))
        guarded = GuardedStream(
            stream, send_timeout=config.send_timeout, linger=config.linger, on_close=counted.close
        )
        live.add(guarded)
        try:
            await TCPServer(wrapped, hypercorn, context, ConnectionState({}), guarded)  # type: ignore[arg-type]
        except* Exception as failed:
            # Hypercorn's reading task and the application's task both answer on one
            # connection (a WebSocket upgrade with frames sent before its 101, say):
            # h11 may then refuse a write in the reading task, which Hypercorn does
            # not catch. That connection is lost, never the server.
            guarded.abort("failed in Hypercorn")
            server.client_log(host).warning(
                "http connection failed",
                error=" | ".join(repr(error) for error in failed.exceptions)[:500],
            )
        finally:
            counted.close()
            live.discard(guarded)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            partial(trio.serve_listeners, serve_socket, listeners, handler_nursery=nursery)
        )
        task_status.started()
        try:
            await trio.sleep_forever()
        finally:  # before the nursery waits for its connections
            await context.terminated.set()  # idle keep-alive connections close at once
            deadline = trio.current_time() + config.linger
            for guarded in list(live):
                guarded.hurry(deadline)


async def _refuse(
    stream: trio.SocketStream, why: str, refusing: list[int], *, linger: float
) -> None:
    """Answer ``503`` with ``why`` and close; a plain close when many are being refused."""
    with trio.CancelScope(shield=True), trio.move_on_after(linger):
        if refusing[0] >= REFUSING:
            await stream.aclose()
            return
        refusing[0] += 1
        try:
            body = why.encode() + b"\n"
            head = (
                "HTTP/1.1 503 Service Unavailable\r\n"
                "content-type: text/plain; charset=utf-8\r\n"
                f"content-length: {len(body)}\r\n"
                "retry-after: 10\r\n"
                "connection: close\r\n\r\n"
            )
            with contextlib.suppress(*_GONE):
                await stream.send_all(head.encode() + body)
                await stream.send_eof()
                # Read what the client sent (its request) before closing, so that
                # the close is no reset that could destroy the answer unread.
                taken = 0
                while taken < REQUEST_HEAD:
                    data = await stream.receive_some(REQUEST_HEAD)
                    if not data:
                        break
                    taken += len(data)
        finally:
            refusing[0] -= 1
            await stream.aclose()


_GONE: Final[tuple[type[BaseException], ...]] = (
    OSError,
    trio.BrokenResourceError,
    trio.ClosedResourceError,
)
