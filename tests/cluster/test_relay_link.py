"""The relay's link to the game's node, alone: a real loopback socket and a stand-in node
that reads when the test says, so that the link's socket fills as a slow node's would."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial

import pytest
import trio

from protocol.commands import Shout
from protocol.framing import LONGEST_MAX_LINE_LENGTH
from protocol.replies import FinalReply, Reply
from server.cluster import handshake
from server.cluster.handshake import END, Passenger
from server.cluster.links import LineReader
from server.cluster.relay import Relay

SECRET = "test secret"
NODE = "the game's node"


class Client:
    """What the relay needs of the carried client: it records what it is given."""

    relay: object = None

    def __init__(self) -> None:
        self.received = bytearray()
        self.ended: str | None = None
        self.ended_event = trio.Event()

    def passenger(self) -> Passenger:
        return Passenger("127.0.0.1", 5555, "2013", "Ada", None, (), False)

    def send(self, reply: Reply) -> None:
        self.received += reply.to_bytes()

    def write_raw(self, data: bytes) -> None:
        self.received += data

    def end(self, reason: str) -> None:
        self.ended = reason
        self.ended_event.set()

    def finish(self, final: FinalReply, *, reason: str) -> None:
        self.received += final.to_bytes()
        self.end(reason)


async def shake_hands(stream: trio.SocketStream) -> None:
    """The game's node's side of the handshake: challenge, check, accept."""
    nonce = handshake.new_nonce()
    await stream.send_all(handshake.challenge(nonce))
    line = await LineReader(stream).line(handshake.MAX_HANDSHAKE)
    passenger = handshake.read_handshake(SECRET, line, node=NODE, nonce=nonce)
    assert passenger.name == "Ada"
    await stream.send_all(handshake.ACCEPTED)


async def slow_node(
    read_from: trio.Event,
    heard: bytearray,
    stream: trio.SocketStream,
) -> None:
    """Accept the handshake, then read nothing until ``read_from`` is set; then echo every
    line back and close once the relay ends its side."""
    await shake_hands(stream)
    await read_from.wait()
    while data := await stream.receive_some(65536):
        heard += data
        await stream.send_all(data)
    await stream.send_all(END)  # as a node ends every link it served
    await stream.aclose()


@dataclass
class SlowLink:
    """A relay's link to :func:`slow_node`, open: its first command was ``SHOUT 0``."""

    link: Relay
    client: Client
    read_from: trio.Event
    heard: bytearray

    async def drain(self) -> None:
        """Let the node read (and echo) everything, end the link, and wait for its end."""
        self.read_from.set()
        self.link.close()
        with trio.fail_after(60):
            await self.client.ended_event.wait()


@asynccontextmanager
async def slow_link() -> AsyncIterator[SlowLink]:
    """A relay linked to :func:`slow_node` over loopback, for the length of the block."""
    read_from, heard = trio.Event(), bytearray()
    async with trio.open_nursery() as nursery:
        [listener] = await nursery.start(
            partial(trio.serve_tcp, partial(slow_node, read_from, heard), 0, host="127.0.0.1")
        )
        port = listener.socket.getsockname()[1]
        client = Client()
        link = Relay(client, f"127.0.0.1:{port}", SECRET, target=NODE)
        nursery.start_soon(link.run, Shout("0"))
        await link.opened.wait()  # connected, handshake answered
        yield SlowLink(link, client, read_from, heard)
        nursery.cancel_scope.cancel()


async def test_commands_that_fill_the_link_reach_the_node_whole_and_in_order() -> None:
    async with slow_link() as slow:
        link, client = slow.link, slow.client
        # Until the link's socket is full and commands wait in the relay's queue (the
        # sender task's to write), then some more behind them.
        text, lines, full_at = "x" * 60, [b"SHOUT 0\n"], None
        while full_at is None or len(lines) < full_at + 100:
            command = Shout(f"{len(lines)} {text}")
            lines.append(f"SHOUT {command.text}\n".encode())
            link.forward(command)
            if full_at is None and link._queued:
                full_at = len(lines)
            assert len(lines) < 1_000_000, "the link's socket never filled"
        assert client.ended is None
        expected = b"".join(lines)
        await slow.drain()
        assert bytes(slow.heard) == expected
        assert bytes(client.received) == expected  # every byte of the node's, to the client


async def closing_node(stream: trio.SocketStream) -> None:
    """Accept the handshake, then close the link at once (the node went away)."""
    await shake_hands(stream)
    await stream.aclose()


async def test_no_command_is_written_to_the_links_descriptor_once_it_is_closed() -> None:
    # A command forwarded while the link closes (the client's batch runs at the close's
    # checkpoint) must not reach the descriptor's number: the system may already have
    # given it to another socket or file.
    async with trio.open_nursery() as nursery:
        [listener] = await nursery.start(partial(trio.serve_tcp, closing_node, 0, host="127.0.0.1"))
        port = listener.socket.getsockname()[1]
        client = Client()
        link = Relay(client, f"127.0.0.1:{port}", SECRET, target=NODE)
        kept: list[int] = []

        async def forward_at_every_checkpoint() -> None:
            while not client.ended_event.is_set():
                stream = link._stream
                assert stream is None or isinstance(stream, trio.SocketStream)
                if stream is not None and stream.socket.fileno() == -1 and link._fd != -1:
                    kept.append(link._fd)  # closed, yet forward would write to it
                link.forward(Shout("still here"))
                await trio.lowlevel.checkpoint()

        nursery.start_soon(forward_at_every_checkpoint)
        nursery.start_soon(link.run, Shout("0"))
        with trio.fail_after(60):
            await client.ended_event.wait()
        assert kept == []
        nursery.cancel_scope.cancel()


def test_a_handshake_carries_what_the_client_was_told_and_a_line_limit_within_bounds() -> None:
    told = handshake.Told(view=("X###X", "#..E#"), turn=True, over=False, gold=2)
    passenger = handshake.Passenger("10.0.0.9", 4242, "2016ch", "Ada", None, (), False, 64, told)
    nonce = handshake.new_nonce()
    line = handshake.handshake(SECRET, passenger, target=NODE, nonce=nonce)
    assert handshake.read_handshake(SECRET, line, node=NODE, nonce=nonce) == passenger
    # The game's node reads the client's lines under this limit: never past the most a
    # node may be set to read, whoever signed it.
    unbounded = dataclasses.replace(passenger, line_limit=LONGEST_MAX_LINE_LENGTH + 1)
    line = handshake.handshake(SECRET, unbounded, target=NODE, nonce=nonce)
    with pytest.raises(handshake.HandshakeRefused, match="cannot read"):
        handshake.read_handshake(SECRET, line, node=NODE, nonce=nonce)


async def test_a_line_too_long_for_the_longest_limit_reaches_the_node_whole() -> None:
    # A client's node may read lines up to the longest limit: the line too long past it,
    # forwarded for the game's node to refuse in its turn, must not overflow the queue.
    async with slow_link() as slow:
        link, client = slow.link, slow.client
        link.forward(Shout("1"))
        link.forward_too_long(LONGEST_MAX_LINE_LENGTH)
        assert client.ended is None
        await slow.drain()
        too_long = b"x" * (LONGEST_MAX_LINE_LENGTH + 1) + b"\n"
        assert bytes(slow.heard) == b"SHOUT 0\nSHOUT 1\n" + too_long
