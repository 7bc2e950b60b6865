"""A client's session carried from the node it is connected to, to the node holding its game.

When a client of node B joins or watches a game node A holds, B opens a link to A's
*relay port* (:mod:`server.cluster.links`: keepalive, a user timeout, TLS if the
operator gave certificates; :mod:`server.cluster.relay_port` is A's side) and the two
nodes shake hands (:mod:`server.cluster.handshake`: A's challenge, B's signed answer
naming A and the client). A then serves the rest of the link as a client at the
client's own address. From then on B forwards each of the client's commands to A and
A's bytes to the client unchanged, so every reply, push, chat line and the end of the
game reach it as on one node.

What a caller may rely on:

* A's end is told apart from A's loss: A ends every link it served with
  :data:`~server.cluster.handshake.END` after the client's last byte. A link that ends
  without it (A killed, the link cut, a command A did not take within the link's
  timeout) ends the client with a ``BYE`` line saying so; one that ends with it
  closes the client after that last byte, as one node would.
* The game's node answers the client's commands in the order the client sent them,
  the command that carried it first. The client's node reads what the client sent
  behind that command only once :attr:`Relay.opened` is set (then forwards it), or the
  relay has failed (then answers it itself).
* A line the client's node cannot read is refused by the game's node in its turn,
  after the replies to the commands before it: forwarded as it is
  (:meth:`Relay.forward_line`), or, too long to keep, as a line too long for the game's
  node too (:meth:`Relay.forward_too_long`), which ends the client's input there as it
  would on one node.
* Forwarding never blocks the client's node: commands are queued for the link, up to
  :data:`MAX_QUEUED` bytes, past which the client is cut off.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Final, Protocol, runtime_checkable

import structlog
import trio

from protocol.commands import Command
from protocol.framing import LONGEST_MAX_LINE_LENGTH
from protocol.replies import Bye, Error, FinalReply, Reply

from .handshake import (
    ACCEPTED,
    END,
    HANDSHAKE_TIMEOUT,
    MAX_CHALLENGE,
    HandshakeRefused,
    Passenger,
    handshake,
    read_challenge,
)
from .links import GONE, RECEIVE_SIZE, LineReader, Links

__all__ = ["Relay", "Relayable"]

MAX_QUEUED: Final = 2 * (LONGEST_MAX_LINE_LENGTH + 2)
"""Bytes of the client's commands the link may hold unsent before the client is cut off:
room for the longest line a node may read, or the line too long past it
(:meth:`Relay.forward_too_long`), behind as much again."""
DIRECT_IO: Final = sys.platform != "win32"
"""Whether the link's socket can be written and read by its descriptor (the fast path
of :class:`Relay`: no task switch and no scheduler round trip per command or reply)."""

log = structlog.get_logger("server.cluster.relay")


@runtime_checkable
class Relayable(Protocol):
    """What a node needs of a client's connection to carry it elsewhere."""

    relay: Any

    def passenger(self) -> Passenger:
        """Who the client is and what it was told here, for the game's node."""
        ...

    def send(self, reply: Reply) -> None: ...
    def write_raw(self, data: bytes) -> None: ...
    def end(self, reason: str) -> None: ...
    def finish(self, final: FinalReply, *, reason: str) -> None: ...


# -- the client's node: carrying a client -----------------------------------------------


class Relay:
    """One client carried to another node; :meth:`run` pipes it until either side ends."""

    def __init__(
        self,
        client: Relayable,
        address: str,
        secret: str,
        *,
        target: str,
        links: Links | None = None,
    ) -> None:
        self.client = client
        self.address = address
        self.target = target
        """The id of the node the relay is for: its handshake is good there only."""
        self.links = links or Links()
        self._secret = secret
        self._queued = bytearray()
        self._ready = trio.Event()
        self._closed = False
        self._stream: trio.abc.Stream | None = None
        self._fd = -1
        """The link's descriptor once connected, on the fast path; else -1."""
        self._sending = False
        """The sender task is in a write: nothing may be written around it meanwhile."""
        self._ended_well = False
        """The game's node ended the link itself (:data:`END` was the last byte read)."""
        self._gone = False
        """The client has gone (:meth:`close`): nothing more is said to it."""
        self._lost: str | None = None
        """Why the link failed, in words for the client, once it has."""
        self._mid_line = False
        """The last byte handed to the client did not end a line."""
        self.opened = trio.Event()
        """Set once the link is open and its handshake accepted, or has failed."""
        self.ended = trio.Event()
        """Set once :meth:`run` has returned: the client has been handed back, told
        why the relay failed, or ended."""

    def forward(self, command: Command) -> None:
        """Send one of the client's commands to the other node, or queue it; never blocks."""
        self.forward_line(command.to_line().encode())

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
        self._closed = self._gone = True
        self._ready.set()

    def forward_too_long(self, limit: int) -> None:
        """The client sent a line longer than ``limit`` bytes, which its node does not
        keep: send one as long (its bytes do not matter), which the game's node, reading
        the client's lines under the same limit (:class:`Passenger`), refuses in its turn
        as one node would: after the replies to the commands before it, with the final
        line that ends the connection. The client's node reads nothing more from it."""
        self.forward_line(b"x" * (limit + 1))

    async def _open(self) -> tuple[trio.abc.Stream, bytes]:
        """The link, its handshake accepted, and the bytes read past the answer."""
        with trio.fail_after(HANDSHAKE_TIMEOUT):
            stream = await self.links.connect(self.address)
            try:
                reader = LineReader(stream)
                nonce = read_challenge(await reader.line(MAX_CHALLENGE))
                passenger = self.client.passenger()
                signed = handshake(self._secret, passenger, target=self.target, nonce=nonce)
                await stream.send_all(signed)
                answer = await reader.line(MAX_CHALLENGE)
                if answer != ACCEPTED:
                    raise HandshakeRefused(answer.decode(errors="replace").strip() or "no answer")
            except BaseException:
                await trio.aclose_forcefully(stream)
                raise
        return stream, reader.rest

    async def run(self, first: Command) -> None:
        """Connect, hand the client over, send ``first`` and pipe to the end; then set
        :attr:`ended`."""
        try:
            await self._run(first)
        finally:
            self.ended.set()

    async def _run(self, first: Command) -> None:
        client = self.client
        try:
            stream, early = await self._open()
        except (*GONE, ValueError, trio.TooSlowError, HandshakeRefused) as error:
            log.warning("relay failed", to=self.address, error=str(error) or repr(error))
            client.relay = None  # its node answers it again, from its next command
            self._closed = True
            client.send(Error("the node holding that game cannot be reached; try again"))
            return
        finally:
            self.opened.set()
        self._stream = stream
        if DIRECT_IO and isinstance(stream, trio.SocketStream):
            self._fd = stream.socket.fileno()
        if early:
            self._deliver(early)
        self.forward(first)
        async with stream:
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._send, stream, nursery.cancel_scope)
                    try:
                        await self._receive(stream)
                    except GONE as error:
                        self._lost = self._lost or _why_lost(error, self.links.timeout)
                    nursery.cancel_scope.cancel()
            finally:
                # Closing the stream checkpoints: a command forwarded meanwhile must not
                # be written to the descriptor's number, which may be another file's by then.
                self._fd = -1
        self._closed = True
        if self._ended_well or self._gone:
            client.end("the game's node closed the relayed connection")
            return
        self._say_lost(self._lost or "the node holding this game went away")

    def _say_lost(self, why: str) -> None:
        """The link ended without the game's node ending it: tell the client why."""
        log.warning("relayed client lost its game's node", to=self.address, why=why)
        if self._mid_line:
            self.client.write_raw(b"\n")  # the line cut short ends, so the BYE reads whole
        self.client.finish(Bye(f"{why}; connect again"), reason="relay lost")

    def _deliver(self, data: bytes) -> None:
        if data[-1:] == END:
            data = data[:-1]
            self._ended_well = True
        if data:
            self._mid_line = data[-1:] != b"\n"
            self.client.write_raw(data)

    async def _receive(self, stream: trio.abc.Stream) -> None:
        """Hand the other node's bytes to the client until it closes the link."""
        deliver = self._deliver
        fd = self._fd
        if fd < 0:
            while data := await stream.receive_some(RECEIVE_SIZE):
                deliver(bytes(data))
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
            deliver(data)

    async def _send(self, stream: trio.abc.Stream, done: trio.CancelScope) -> None:
        """Write what :meth:`forward` could not send at once (a full socket), and the end;
        each write must be taken within the link's timeout, or the link is given up."""
        try:
            while True:
                await self._ready.wait()
                self._ready = trio.Event()
                if self._queued:
                    self._sending = True
                    try:
                        data, self._queued = bytes(self._queued), bytearray()
                        with trio.fail_after(self.links.timeout):
                            await stream.send_all(data)
                    finally:
                        self._sending = False
                if self._closed:
                    if isinstance(stream, trio.SocketStream):
                        await stream.send_eof()
                    else:
                        await stream.aclose()
                    return  # the game's node closes the link once it has seen the end
        except trio.TooSlowError:
            timeout = self.links.timeout
            self._lost = f"the node holding this game took no command for {timeout:g} seconds"
        except GONE as error:
            self._lost = _why_lost(error, self.links.timeout)
        done.cancel()


def _why_lost(error: BaseException, timeout: float) -> str:
    """What the client is told of a link that failed with ``error``."""
    cause = error.__cause__ if isinstance(error, trio.BrokenResourceError) else error
    if isinstance(cause, TimeoutError):
        return f"the node holding this game stopped answering for {timeout:g} seconds"
    return "the node holding this game went away"
