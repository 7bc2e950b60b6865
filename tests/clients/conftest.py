from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial

import pytest
import trio

ScriptedServer = Callable[[bytes], Awaitable[int]]


@pytest.fixture
async def scripted_server(nursery: trio.Nursery) -> ScriptedServer:
    """A one-connection server on a free port that writes ``script`` when a client
    connects, then reads and never answers (for time-outs and pushed lines)."""

    async def start(script: bytes) -> int:
        async def serve(stream: trio.SocketStream) -> None:
            await stream.send_all(script)
            async for _ in stream:
                pass

        listeners = await nursery.start(partial(trio.serve_tcp, serve, 0, host="127.0.0.1"))
        port: int = listeners[0].socket.getsockname()[1]
        return port

    return start
