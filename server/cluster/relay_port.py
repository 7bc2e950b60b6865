"""A node's relay port: the links other nodes open to carry their clients here.

Each link is one client of another node (:mod:`server.cluster.relay` is that node's
side): this node sends a challenge, reads the signed answer
(:mod:`server.cluster.handshake`) and serves the rest of the link as a client at the
client's own address, ending it with :data:`~server.cluster.handshake.END`.

What a caller may rely on:

* Only a holder of the cluster secret can make this node serve a connection as coming
  from another address, and only with a handshake made for this node and this link's
  challenge: anything else is answered ``DOD-RELAY REFUSED <why>``, logged, and closed.
* One address cannot keep others from being carried: handshakes under way are bounded
  (:data:`MAX_PENDING_HANDSHAKES`, :data:`MAX_PENDING_PER_ADDRESS` from one address),
  each has :data:`~server.cluster.handshake.HANDSHAKE_TIMEOUT` seconds, and a newcomer
  past a bound pushes out the oldest handshake of the address holding most. Refusals
  are logged through the address's rate-limited logger (``log_for``).
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable
from typing import Final

import structlog
import trio

from .directory import LogFor, ServeRelayed
from .handshake import (
    ACCEPTED,
    END,
    HANDSHAKE_TIMEOUT,
    MAX_HANDSHAKE,
    REFUSED,
    HandshakeRefused,
    challenge,
    new_nonce,
    read_handshake,
)
from .links import GONE, RECEIVE_SIZE, LineReader, Links

__all__ = ["MAX_PENDING_HANDSHAKES", "HandshakeGate", "LogFor", "ServeRelayed", "serve_relays"]

MAX_PENDING_HANDSHAKES: Final = 64
"""Relay connections that may be shaking hands at once."""
MAX_PENDING_PER_ADDRESS: Final = 16
"""Of those, from one address."""

log = structlog.get_logger("server.cluster.relay")


class _Ticket:
    """One handshake under way: its deadline, and why it was pushed out, if it was."""

    __slots__ = ("scope", "why")

    def __init__(self) -> None:
        self.scope = trio.CancelScope(deadline=trio.current_time() + HANDSHAKE_TIMEOUT)
        self.why = f"no handshake within {HANDSHAKE_TIMEOUT:g} seconds"


class HandshakeGate:
    """The handshakes under way, by address; see the module docstring."""

    def __init__(
        self, total: int = MAX_PENDING_HANDSHAKES, share: int = MAX_PENDING_PER_ADDRESS
    ) -> None:
        self.total, self.share = total, share
        self._held: dict[str, deque[_Ticket]] = {}
        self._count = 0

    def enter(self, address: str) -> _Ticket:
        """A place for a handshake from ``address``, taken from an older one if need be."""
        held = self._held.setdefault(address, deque())
        if len(held) >= self.share:
            self._push_out(address, f"more than {self.share} handshakes at once from its address")
        elif self._count >= self.total:
            most = max(self._held, key=lambda other: len(self._held[other]))
            self._push_out(most, f"more than {self.total} handshakes at once")
        ticket = _Ticket()
        held.append(ticket)
        self._count += 1
        return ticket

    def _push_out(self, address: str, why: str) -> None:
        oldest = self._held[address][0]
        oldest.why = f"pushed out: {why}"
        oldest.scope.cancel()
        self.leave(address, oldest)

    def leave(self, address: str, ticket: _Ticket) -> None:
        held = self._held.get(address)
        if held is None or ticket not in held:
            return  # pushed out already
        held.remove(ticket)
        self._count -= 1
        if not held:
            del self._held[address]


async def serve_relays(
    listeners: list[trio.SocketListener],
    *,
    node: str,
    secret: Callable[[], str | None],
    serve: ServeRelayed,
    links: Links | None = None,
    log_for: LogFor | None = None,
) -> None:
    """Take links other nodes open to node ``node`` and serve each as its client,
    until cancelled (module docstring)."""
    links = links or Links()
    gate = HandshakeGate()

    async def handle(stream: trio.SocketStream) -> None:
        try:
            host, port = stream.socket.getpeername()[:2]
        except OSError:
            host, port = "?", 0
        said = (log_for or (lambda _: log))(str(host)).bind(peer=f"{host}:{port}")
        ticket = gate.enter(str(host))
        link: trio.abc.Stream = stream
        line, nonce = b"", ""
        try:
            with ticket.scope:
                link = await links.accept(stream)
                nonce = new_nonce()
                await link.send_all(challenge(nonce))
                reader = LineReader(link)
                line = await reader.line(MAX_HANDSHAKE)
            if ticket.scope.cancelled_caught:
                raise HandshakeRefused(ticket.why)
            key = secret()
            if not line.endswith(b"\n"):
                raise HandshakeRefused(
                    f"a handshake longer than {MAX_HANDSHAKE} bytes"
                    if len(line) > MAX_HANDSHAKE
                    else "the link ended before its handshake did"
                )
            if key is None:
                raise HandshakeRefused("this node does not know the cluster's secret yet")
            passenger = read_handshake(key, line, node=node, nonce=nonce)
            if reader.rest:
                raise HandshakeRefused("it sent more than its handshake before the answer")
        except HandshakeRefused as refusal:
            said.warning("relay handshake refused", reason=str(refusal))
            await _refuse(link, str(refusal))
            return
        except GONE as error:
            said.warning("relay handshake refused", reason=f"the link failed: {error!r}")
            await trio.aclose_forcefully(link)
            return
        finally:
            gate.leave(str(host), ticket)
        try:
            await link.send_all(ACCEPTED)
            await serve(_lend(link), passenger)
            await link.send_all(END)
        except GONE:
            pass
        except Exception:
            log.exception("relayed connection failed", client=f"{passenger.host}:{passenger.port}")
        await _close(link)

    await trio.serve_listeners(handle, listeners)


async def _refuse(link: trio.abc.Stream, why: str) -> None:
    with trio.move_on_after(1), contextlib.suppress(*GONE):
        await link.send_all(b"%s %s\n" % (REFUSED, why.encode()))
    await trio.aclose_forcefully(link)


def _lend(link: trio.abc.Stream) -> trio.abc.Stream:
    """The link for a session to serve and close, while it stays open for :data:`END`:
    a TCP link's socket as a second descriptor (so that the session reads and writes it
    on its fast path), any other stream behind a close that does nothing."""
    if isinstance(link, trio.SocketStream):
        return trio.SocketStream(link.socket.dup())
    return _Lent(link)


class _Lent(trio.abc.Stream):
    """A stream whose close leaves the stream it wraps open (:func:`_lend`)."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self._stream = stream

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self._stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self._stream.wait_send_all_might_not_block()

    async def send_eof(self) -> None:
        pass

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self._stream.receive_some(max_bytes)

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()


async def _close(link: trio.abc.Stream) -> None:
    """End a link served: say no more, then take what the other node still sends until
    it closes too (closing with bytes unread would reset the link, and the other node
    might lose the last bytes sent to it), for a second at most."""
    with trio.move_on_after(1), contextlib.suppress(*GONE):
        if isinstance(link, trio.SocketStream):
            await link.send_eof()
            while await link.receive_some(RECEIVE_SIZE):
                pass
    await trio.aclose_forcefully(link)
