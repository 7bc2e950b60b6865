"""A client's session carried from the node it is connected to, to the node holding its game.

When a client of node B joins or watches a game node A holds, B opens a connection
to A's *relay port* and sends one handshake line: who the client is (its real
address, name, login, dialect and ``EXTEND`` capabilities), signed with the cluster's
shared secret. A checks the signature and its age, answers ``DOD-RELAY OK``, and
serves the rest of that connection as a client at the client's own address. From
then on B forwards each of the client's commands to A and A's bytes to the client
unchanged, so every reply, push, chat line and the end of the game reach it as on
one node; when A closes, B closes the client after the last byte.

What a caller may rely on:

* Only a holder of the cluster secret (kept in the directory's database) can make
  A serve a connection as coming from another address; a handshake that is unsigned,
  forged, older than :data:`MAX_AGE` seconds, longer than :data:`MAX_HANDSHAKE`
  bytes, or slower than :data:`HANDSHAKE_TIMEOUT` seconds is dropped unanswered, and
  at most :data:`MAX_PENDING_HANDSHAKES` may be under way at once.
* Forwarding never blocks the client's node: commands are queued for the link, up to
  :data:`MAX_QUEUED` bytes, past which the client is cut off.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from typing import Any, Final, Protocol, runtime_checkable

import structlog
import trio

from protocol.commands import Command

GREETING: Final = b"DOD-RELAY"
ACCEPTED: Final = b"DOD-RELAY OK\n"
MAX_HANDSHAKE: Final = 8192
MAX_AGE: Final = 60.0
HANDSHAKE_TIMEOUT: Final = 5.0
MAX_QUEUED: Final = 1 << 20
MAX_PENDING_HANDSHAKES: Final = 64
"""Relay connections that may be sending their handshake at once; more are closed."""
DIRECT_IO: Final = sys.platform != "win32"
"""Whether the link's socket can be written and read by its descriptor (the fast path
of :class:`Relay`: no task switch and no scheduler round trip per command or reply)."""
RECEIVE_SIZE: Final = 65536

log = structlog.get_logger("server.cluster.relay")


@dataclass(frozen=True, slots=True)
class Passenger:
    """Who a relayed client is: what its own node vouches for."""

    host: str
    port: int
    dialect: str
    name: str | None
    login: str | None
    capabilities: tuple[str, ...]
    bot: bool
    sent: float
    """When the handshake was made (seconds since the epoch), against replays."""


@runtime_checkable
class Relayable(Protocol):
    """What a node needs of a client's connection to carry it elsewhere."""

    relay: Any
    peer: str
    name: str | None
    login: str | None
    bot: bool

    @property
    def dialect(self) -> str: ...
    @property
    def capabilities(self) -> tuple[str, ...]: ...
    def write_raw(self, data: bytes) -> None: ...
    def end(self, reason: str) -> None: ...


def handshake(secret: str, passenger: Passenger) -> bytes:
    """The line that opens a relayed connection, signed with ``secret``."""
    body = base64.urlsafe_b64encode(json.dumps(asdict(passenger)).encode())
    signature = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest().encode()
    return b" ".join((GREETING, body, signature)) + b"\n"


def read_handshake(secret: str, line: bytes, now: float) -> Passenger | None:
    """The passenger ``line`` vouches for, if it is signed with ``secret`` and fresh."""
    parts = line.strip().split(b" ")
    if len(parts) != 3 or parts[0] != GREETING:
        return None
    body, signature = parts[1], parts[2]
    expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest().encode()
    if not hmac.compare_digest(expected, signature):
        return None
    try:
        fields = json.loads(base64.urlsafe_b64decode(body))
        fields["capabilities"] = tuple(fields["capabilities"])
        passenger = Passenger(**fields)
    except (ValueError, TypeError, KeyError):
        return None
    if not abs(now - passenger.sent) <= MAX_AGE:
        return None
    return passenger


ServeRelayed = Callable[[trio.abc.Stream, Passenger], Awaitable[None]]
"""Serves a checked relayed connection to its end (the server's session, on this node)."""


async def serve_relays(
    listeners: list[trio.SocketListener],
    secret: Callable[[], str | None],
    serve: ServeRelayed,
) -> None:
    """Accept relayed connections from other nodes until cancelled."""

    pending = [0]

    async def handle(stream: trio.SocketStream) -> None:
        key = secret()
        line = b""
        if pending[0] >= MAX_PENDING_HANDSHAKES:
            log.warning("relay handshake refused", reason="too many at once")
            await stream.aclose()
            return
        pending[0] += 1
        try:
            with trio.move_on_after(HANDSHAKE_TIMEOUT):
                while b"\n" not in line and len(line) <= MAX_HANDSHAKE:
                    chunk = await stream.receive_some(MAX_HANDSHAKE)
                    if not chunk:
                        break
                    line += chunk
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            line = b""
        finally:
            pending[0] -= 1
        passenger = None if key is None else read_handshake(key, line, time.time())
        if passenger is None or not line.endswith(b"\n"):
            log.warning("relay handshake refused", bytes=len(line))
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await stream.aclose()
            return
        try:
            await stream.send_all(ACCEPTED)
            await serve(stream, passenger)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        except Exception:
            log.exception("relayed connection failed", client=f"{passenger.host}:{passenger.port}")

    await trio.serve_listeners(handle, listeners)


class Relay:
    """One client carried to another node; :meth:`run` pipes it until either side ends."""

    def __init__(self, client: Relayable, address: str, secret: str) -> None:
        self.client = client
        self.address = address
        self._secret = secret
        self._queued = bytearray()
        self._ready = trio.Event()
        self._closed = False
        self._stream: trio.SocketStream | None = None
        self._fd = -1
        """The link's descriptor once connected, on the fast path; else -1."""
        self._sending = False
        """The sender task is in a write: nothing may be written around it meanwhile."""

    def forward(self, command: Command) -> None:
        """Send one of the client's commands to the other node, or queue it; never blocks."""
        self.forward_line((command.to_line()).encode())

    def forward_line(self, line: bytes) -> None:
        """Send one line the client sent (without its end) as it is: one its node could
        not read, which the game's node then refuses in its turn among the replies."""
        if self._closed:
            return
        queued = self._queued
        queued += line
        queued += b"\n"
        if len(queued) > MAX_QUEUED:
            self.close()
            self.client.end("relayed commands not taken by the game's node")
            return
        if self._fd >= 0 and not self._sending:
            # Most commands fit in the socket at once: written here, the command leaves
            # while the client's batch is handled, with no wake-up of the sender task.
            try:
                sent = os.write(self._fd, queued)
            except BlockingIOError:
                sent = 0
            except OSError:
                return  # the link is gone: its reader ends the client
            del queued[:sent]
            if not queued:
                return
        self._ready.set()

    def close(self) -> None:
        """The client has gone: end the link (idempotent)."""
        self._closed = True
        self._ready.set()

    async def run(self, first: Command) -> None:
        """Connect, hand the client over, send ``first`` and pipe to the end."""
        client = self.client
        host, _, port = client.peer.rpartition(":")
        passenger = Passenger(
            host=host or client.peer,
            port=int(port) if port.isdigit() else 0,
            dialect=client.dialect,
            name=client.name,
            login=client.login,
            capabilities=client.capabilities,
            bot=client.bot,
            sent=time.time(),
        )
        target_host, _, target_port = self.address.rpartition(":")
        why = "the game's node closed the relayed connection"
        try:
            with trio.fail_after(HANDSHAKE_TIMEOUT):
                stream = await trio.open_tcp_stream(target_host.strip("[]"), int(target_port))
                await stream.send_all(handshake(self._secret, passenger))
                answer = b""
                while not answer.endswith(b"\n") and len(answer) < len(ACCEPTED):
                    chunk = await stream.receive_some(len(ACCEPTED) - len(answer))
                    if not chunk:
                        break
                    answer += chunk
            if answer != ACCEPTED:
                raise OSError("the game's node refused the relay")
        except (OSError, trio.TooSlowError, trio.BrokenResourceError) as error:
            log.warning("relay failed", to=self.address, error=repr(error))
            client.write_raw(b"ERROR the node holding that game cannot be reached; try again\n")
            client.relay = None
            return
        self._stream = stream
        if DIRECT_IO:
            self._fd = stream.socket.fileno()
        self.forward(first)
        async with stream:
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._send, stream, nursery.cancel_scope)
                    with contextlib.suppress(
                        trio.BrokenResourceError, trio.ClosedResourceError, OSError
                    ):
                        await self._receive(stream)
                    nursery.cancel_scope.cancel()
            finally:
                # Closing the stream checkpoints: a command forwarded meanwhile must not
                # be written to the descriptor's number, which may be another file's by then.
                self._fd = -1
        self._closed = True
        client.end(why)

    async def _receive(self, stream: trio.SocketStream) -> None:
        """Hand the other node's bytes to the client until it closes the link."""
        write = self.client.write_raw
        fd = self._fd
        if fd < 0:
            while data := await stream.receive_some(RECEIVE_SIZE):
                write(data)
            return
        # On the descriptor itself: one wait and one read per chunk, where the stream's
        # receive adds a checkpoint and a read that finds nothing before each wait.
        wait_readable, read = trio.lowlevel.wait_readable, os.read
        while True:
            await wait_readable(fd)
            try:
                data = read(fd, RECEIVE_SIZE)
            except BlockingIOError:
                continue
            if not data:
                return
            write(data)

    async def _send(self, stream: trio.SocketStream, done: trio.CancelScope) -> None:
        """Write what :meth:`forward` could not send at once (a full socket), and the end."""
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            while True:
                await self._ready.wait()
                self._ready = trio.Event()
                if self._queued:
                    self._sending = True
                    try:
                        data, self._queued = bytes(self._queued), bytearray()
                        await stream.send_all(data)
                    finally:
                        self._sending = False
                if self._closed:
                    await stream.send_eof()
                    return
        done.cancel()
