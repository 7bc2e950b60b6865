"""A WebSocket as a :class:`trio.abc.Stream`, so the game server serves it like a socket.

The browser sends commands as text messages (one or more lines; a message that does
not end with a newline is taken as one whole line, as a browser sends a command) and
receives the server's bytes as text messages, exactly the lines a TCP client reads.
Nothing here knows the protocol: the same :class:`~server.session.client.Connection` that
serves a TCP client serves this stream.
"""

from __future__ import annotations

import contextlib

import trio
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState


class WebSocketStream(trio.abc.Stream):
    """One accepted WebSocket, read and written as a byte stream of protocol lines."""

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket
        self._closed = False
        self._unread = memoryview(b"")  # the rest of the last message (at most one)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self._closed:
            raise trio.ClosedResourceError("the WebSocket is closed")
        try:
            # Every line the server writes is UTF-8 text it built itself.
            await self.websocket.send_text(bytes(data).decode("utf-8", "replace"))
        except (WebSocketDisconnect, RuntimeError, OSError) as error:
            raise trio.BrokenResourceError("the browser went away") from error

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        """At most ``max_bytes`` of the browser's lines, as a socket gives them: the
        server reads a WebSocket in the same pieces and under the same limits as TCP
        (a message is at most ``websocket_max_message`` bytes: Hypercorn's limit)."""
        if self._closed:
            raise trio.ClosedResourceError("the WebSocket is closed")
        if not self._unread:
            try:
                message = await self.websocket.receive()
            except (RuntimeError, OSError):
                return b""
            if message["type"] == "websocket.disconnect":
                return b""
            data: bytes = message.get("bytes") or (message.get("text") or "").encode("utf-8")
            if not data.endswith(b"\n"):
                data += b"\n"
            self._unread = memoryview(data)
        size = len(self._unread) if max_bytes is None else max_bytes
        piece, self._unread = self._unread[:size], self._unread[size:]
        return bytes(piece)

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.websocket.application_state == WebSocketState.CONNECTED:
            with contextlib.suppress(RuntimeError, OSError):
                await self.websocket.close()
        await trio.lowlevel.checkpoint()
