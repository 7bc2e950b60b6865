"""A baseline from outside trio: an asyncio ``Protocol`` line server on uvloop.

What a user might write instead of the game's server to answer lines fast: one
:class:`asyncio.Protocol` per connection on uvloop's libuv loop (asyncio's own loop
where uvloop is missing, said on standard error), no task per client, the bytes
split into lines in ``data_received`` and every reply of a read written at once.
It answers as :mod:`bench.bare_server` does: ``SUCCESS`` to every line, or with
``--shaped`` the game's six-line ``LOOKREPLY`` to a ``LOOK``, so the load generator
reads the same bytes from it as from the game. ``python -m bench.uvloop_server
--port 0`` prints ``listening on HOST:PORT`` on standard error.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from typing import cast

from .bare_server import LOOK_REPLY, REPLY


class LineProtocol(asyncio.Protocol):
    """One client: the fixed replies to every complete line it sends."""

    __slots__ = ("pending", "shaped", "transport")

    def __init__(self, shaped: bool) -> None:
        self.shaped = shaped
        self.pending = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses, but have its methods.
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        *lines, self.pending = (self.pending + data).split(b"\n")
        if not lines or self.transport is None:
            return
        if self.shaped:
            out = b"".join(LOOK_REPLY if line.startswith(b"LOOK") else REPLY for line in lines)
        else:
            out = REPLY * len(lines)
        self.transport.write(out)


async def serve(host: str, port: int, shaped: bool) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: LineProtocol(shaped), host, port)
    bound = server.sockets[0].getsockname()[1]
    print(f"listening on {host}:{bound}", file=sys.stderr, flush=True)
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with server:
        await stop.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument(
        "--shaped", action="store_true", help="answer LOOK with a LOOKREPLY of the game's size"
    )
    args = parser.parse_args()
    try:
        import uvloop  # type: ignore[import-not-found, unused-ignore]  # an optional extra
    except ImportError:
        sys.exit("uvloop is not installed: pip install -e '.[bench]'")
    with contextlib.suppress(KeyboardInterrupt):
        uvloop.run(serve(args.host, args.port, args.shaped))


if __name__ == "__main__":
    main()
