"""The relay's link to the game's node, alone: a real loopback socket and a stand-in node
that reads when the test says, so that the link's socket fills as a slow node's would."""

from __future__ import annotations

from functools import partial

import trio

from protocol.commands import Shout
from protocol.replies import FinalReply
from server.cluster import handshake
from server.cluster.handshake import END
from server.cluster.links import LineReader
from server.cluster.relay import Relay

SECRET = "test secret"
NODE = "the game's node"


class Client:
    """What the relay needs of the carried client: it records what it is given."""

    relay: object = None
    peer = "127.0.0.1:5555"
    name = "Ada"
    login = None
    bot = False
    dialect = "2013"
    capabilities: tuple[str, ...] = ()

    def __init__(self) -> None:
        self.received = bytearray()
        self.ended: str | None = None
        self.ended_event = trio.Event()

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


async def test_commands_that_fill_the_link_reach_the_node_whole_and_in_order() -> None:
    read_from, heard = trio.Event(), bytearray()
    async with trio.open_nursery() as nursery:
        [listener] = await nursery.start(
            partial(trio.serve_tcp, partial(slow_node, read_from, heard), 0, host="127.0.0.1")
        )
        port = listener.socket.getsockname()[1]
        client = Client()
        link = Relay(client, f"127.0.0.1:{port}", SECRET, target=NODE)  # type: ignore[arg-type]
        nursery.start_soon(link.run, Shout("0"))
        while link._stream is None:  # connected, handshake answered
            await trio.sleep(0)
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
        read_from.set()
        link.close()
        with trio.fail_after(60):
            await client.ended_event.wait()
        assert bytes(heard) == expected
        assert bytes(client.received) == expected  # every byte of the node's, to the client
        nursery.cancel_scope.cancel()


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
        link = Relay(client, f"127.0.0.1:{port}", SECRET, target=NODE)  # type: ignore[arg-type]
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
