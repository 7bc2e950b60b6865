"""The yardstick: a bare trio line server that answers every line with a fixed reply.

It does the least a line server can do (receive, split lines, send), so the game
server's throughput over it says what the protocol and world code cost. Run it
alone with ``python -m bench.bare_server --port 0``; it prints its port on
standard error as ``listening on HOST:PORT``.

By default every line gets ``SUCCESS``. With ``--shaped`` a line that starts with
``LOOK`` gets a fixed six-line ``LOOKREPLY`` of the game's size instead, so that
both servers write the same bytes and the load generator reads the same lines
from each: the comparison is then of the servers' work alone.

With ``--raw`` the server reads and writes through the stream's trio socket
(``sock.recv``/``sock.send``) instead of the ``SocketStream`` layers around it:
the fastest a trio line server goes through trio's socket API; the target is
measured against it.

With ``--fd`` it moves bytes the way the game server's transport does on its fast
path (:mod:`server.session.transport`): it parks once per batch in
:func:`trio.lowlevel.wait_readable`, then ``os.read``/``os.write`` on the socket's
descriptor, with no checkpoint around each call: the way the game's transport moves
a client's bytes when that client's own task serves it.

With ``--poll`` (Linux) one task serves every client, the way the game's
:mod:`server.session.poller` does: it parks in ``wait_readable`` on an ``epoll`` set of every
client socket and reads and answers each that is ready, so a batch of clients costs
one wake-up. The game's ratio over it is the cost of the game's own work alone, on
equal I/O terms.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import signal
import sys
from collections.abc import Awaitable, Callable
from functools import partial

import trio

REPLY = b"SUCCESS\n"
LOOK_REPLY = b"LOOKREPLY\nX...X\n.....\n.....\n.....\nX...X\n"


async def handle(stream: trio.SocketStream) -> None:
    pending = b""
    try:
        while data := await stream.receive_some(16384):
            pending += data
            count = pending.count(b"\n")
            if count:
                pending = pending[pending.rindex(b"\n") + 1 :]
                await stream.send_all(REPLY * count)
    except trio.BrokenResourceError:
        pass


async def handle_shaped(stream: trio.SocketStream) -> None:
    pending = b""
    try:
        while data := await stream.receive_some(16384):
            *lines, pending = (pending + data).split(b"\n")
            if lines:
                await stream.send_all(
                    b"".join(LOOK_REPLY if line.startswith(b"LOOK") else REPLY for line in lines)
                )
    except trio.BrokenResourceError:
        pass


def _answer(lines: list[bytes], shaped: bool) -> bytes:
    if shaped:
        return b"".join(LOOK_REPLY if line.startswith(b"LOOK") else REPLY for line in lines)
    return REPLY * len(lines)


async def handle_raw(stream: trio.SocketStream, shaped: bool) -> None:
    sock = stream.socket
    recv, send = sock.recv, sock.send
    pending = b""
    try:
        while data := await recv(16384):
            *lines, pending = (pending + data).split(b"\n")
            if lines:
                out = memoryview(_answer(lines, shaped))
                while out:
                    out = out[await send(out) :]
    except (OSError, trio.BrokenResourceError):
        pass
    finally:
        sock.close()


async def handle_fd(stream: trio.SocketStream, shaped: bool) -> None:
    sock = stream.socket
    fd = sock.fileno()
    pending = b""
    try:
        while True:
            await trio.lowlevel.wait_readable(fd)
            try:
                data = os.read(fd, 16384)
            except BlockingIOError:
                continue
            if not data:
                break
            *lines, pending = (pending + data).split(b"\n")
            if lines:
                out = memoryview(_answer(lines, shaped))
                while out:
                    try:
                        out = out[os.write(fd, out) :]
                    except BlockingIOError:
                        await trio.lowlevel.wait_writable(fd)
    except (OSError, trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    finally:
        sock.close()


async def poll_clients(listeners: list[trio.SocketListener], shaped: bool) -> None:
    """Serve every client from one task, the way the game's poller does."""
    epoll = select.epoll()
    streams: dict[int, trio.SocketStream] = {}
    pending: dict[int, bytes] = {}

    async def accept(listener: trio.SocketListener) -> None:
        while True:
            stream = await listener.accept()
            fd = stream.socket.fileno()
            streams[fd] = stream
            pending[fd] = b""
            epoll.register(fd, select.EPOLLIN)

    async with trio.open_nursery() as nursery:
        for listener in listeners:
            nursery.start_soon(accept, listener)
        while True:
            await trio.lowlevel.wait_readable(epoll.fileno())
            for fd, _ in epoll.poll(0):
                try:
                    data = os.read(fd, 16384)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    epoll.unregister(fd)
                    streams.pop(fd).socket.close()
                    continue
                *lines, pending[fd] = (pending[fd] + data).split(b"\n")
                if lines:
                    # A bot that stops reading, or is gone, loses its reply: a yardstick
                    # need not keep what the game's transport keeps.
                    with contextlib.suppress(OSError):
                        os.write(fd, _answer(lines, shaped))


async def serve(
    host: str,
    port: int,
    shaped: bool = False,
    raw: bool = False,
    fd: bool = False,
    poll: bool = False,
) -> None:
    listeners = await trio.open_tcp_listeners(port, host=host)
    bound = listeners[0].socket.getsockname()[1]
    print(f"listening on {host}:{bound}", file=sys.stderr, flush=True)
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:
            if poll:
                nursery.start_soon(poll_clients, listeners, shaped)
                async for _ in signals:
                    nursery.cancel_scope.cancel()
                    break
                return
            handler: Callable[[trio.SocketStream], Awaitable[None]]
            if fd:
                handler = partial(handle_fd, shaped=shaped)
            elif raw:
                handler = partial(handle_raw, shaped=shaped)
            else:
                handler = handle_shaped if shaped else handle
            nursery.start_soon(trio.serve_listeners, handler, listeners)
            async for _ in signals:
                nursery.cancel_scope.cancel()
                break


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument(
        "--shaped", action="store_true", help="answer LOOK with a LOOKREPLY of the game's size"
    )
    parser.add_argument(
        "--raw", action="store_true", help="read and write the trio socket, not the SocketStream"
    )
    parser.add_argument(
        "--fd",
        action="store_true",
        help="park in wait_readable, then os.read/os.write the descriptor (the game's own path)",
    )
    parser.add_argument(
        "--poll",
        action="store_true",
        help="serve every client from one task with its own epoll (the game's server.poller)",
    )
    args = parser.parse_args()
    trio.run(serve, args.host, args.port, args.shaped, args.raw, args.fd, args.poll)


if __name__ == "__main__":
    main()
