"""A small WebSocket client over trio and wsproto, for tests that must misbehave.

A browser cannot send a 1 MiB message in one frame and then never read, forge an
``Origin``, or name a forwarded address; this client can. It speaks the protocol with
``wsproto`` (the library the server's Hypercorn uses) on a real TCP socket.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import trio
from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Event,
    RejectConnection,
    RejectData,
    Request,
    TextMessage,
)
from wsproto.frame_protocol import FrameProtocol

Headers = Sequence[tuple[str, str]]


@dataclass
class Refused(Exception):
    """The server answered the handshake with an HTTP response, not a WebSocket."""

    status: int
    body: str


@dataclass
class Closed(Exception):
    """The server closed the WebSocket (``code``) or the socket (``code`` 1006)."""

    code: int
    reason: str = ""


class WebSocketClient:
    """One WebSocket to ``/ws``; :meth:`open` connects and shakes hands."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.ws = WSConnection(ConnectionType.CLIENT)
        self._events: list[Event] = []
        self._text: list[str] = []
        self._lines: list[str] = []

    @classmethod
    async def open(
        cls,
        port: int,
        *,
        host: str | None = None,
        headers: Headers = (),
        receive_buffer: int | None = None,
        path: str = "/ws",
    ) -> WebSocketClient:
        """Connect to 127.0.0.1:``port``; ``host``: the Host header (default the address
        and port); raises :class:`Refused` if the server answers with a status."""
        sock = trio.socket.socket()
        if receive_buffer is not None:
            import socket

            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        await sock.connect(("127.0.0.1", port))
        client = cls(trio.SocketStream(sock))
        request = Request(
            host=host or f"127.0.0.1:{port}",
            target=path,
            extra_headers=[(k.encode("ascii"), v.encode("ascii")) for k, v in headers],
        )
        await client._send(client.ws.send(request))
        status, body = 0, b""
        while True:
            event = await client._next_event()
            if isinstance(event, AcceptConnection):
                return client
            if isinstance(event, RejectConnection):
                status = event.status_code
                if not event.has_body:
                    break
            elif isinstance(event, RejectData):
                body += event.data
                if event.body_finished:
                    break
            elif event is None:
                break
        await client.stream.aclose()
        raise Refused(status, body.decode())

    async def _send(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def _next_event(self) -> Event | None:
        while not self._events:
            try:
                data = await self.stream.receive_some(65536)
            except (trio.BrokenResourceError, OSError):
                data = b""
            self.ws.receive_data(data or None)
            self._events.extend(self.ws.events())
            if not data and not self._events:
                return None
        return self._events.pop(0)

    async def send(self, text: str) -> None:
        """Send ``text`` as one text message."""
        await self._send(self.ws.send(TextMessage(data=text)))

    async def send_bytes(self, data: bytes) -> None:
        await self._send(self.ws.send(BytesMessage(data=data)))

    async def read_line(self) -> str:
        """The next line the server sent; raises :class:`Closed` when it has closed."""
        while not self._lines:
            event = await self._next_event()
            if event is None:
                raise Closed(1006, "the socket closed")
            if isinstance(event, CloseConnection):
                raise Closed(event.code, event.reason or "")
            if isinstance(event, TextMessage):
                self._text.append(event.data)
                if event.message_finished:
                    text = "".join(self._text)
                    self._text.clear()
                    self._lines.extend(text.splitlines())
        return self._lines.pop(0)

    async def aclose(self) -> None:
        await self.stream.aclose()


def text_frame(text: str) -> bytes:
    """``text`` as one masked frame of a client, whatever the state of any connection."""
    return bytes(FrameProtocol(client=True, extensions=[]).send_data(text, fin=True))


def resident_bytes() -> int:
    """This process's resident memory now (Linux)."""
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    import os

    return pages * os.sysconf("SC_PAGE_SIZE")
