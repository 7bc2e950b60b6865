"""Test helpers: a raw line client over real loopback sockets, and shared paths."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import trio

from protocol.connection import ClientProtocol
from protocol.framing import END_OF_INPUT, NEED_DATA
from protocol.replies import Reply
from worlds.api import Event, Joined, PlayerId, PlayerStatus, Position, World

from .limits import contention

if TYPE_CHECKING:
    from server.app import Server

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
COMPAT = SHARED / "compat"
TIMEOUT = 10
"""Seconds a reply may take on a quiet machine; :func:`reply_limit` scales it by the load."""


def reply_limit() -> float:
    """Seconds to wait for a reply now: :data:`TIMEOUT`, times the machine's contention
    (tests/limits.py), so a busy machine does not fail what a quiet one passes."""
    return TIMEOUT * contention()


class Peer:
    """A client that reads and writes exact bytes, every read with a time limit."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self._buffer = bytearray()
        self._closed = False

    @classmethod
    async def connect(cls, port: int) -> Peer:
        return cls(await trio.open_tcp_stream("127.0.0.1", port))

    async def send(self, data: bytes | str) -> None:
        await self.stream.send_all(data.encode() if isinstance(data, str) else data)

    async def _fill(self) -> bool:
        data = await self.stream.receive_some(65536)
        if not data:
            self._closed = True
        self._buffer += data
        return bool(data)

    async def read_line(self, timeout: float | None = None) -> str:
        """The next line, without its LF; fails if none arrives in time (default:
        :func:`reply_limit`)."""
        with trio.fail_after(reply_limit() if timeout is None else timeout):
            while b"\n" not in self._buffer:
                if not await self._fill():
                    raise EOFError(f"connection closed; unread: {bytes(self._buffer)!r}")
        line, _, rest = bytes(self._buffer).partition(b"\n")
        self._buffer = bytearray(rest)
        return line.decode()

    async def read_lines(self, count: int) -> list[str]:
        return [await self.read_line() for _ in range(count)]

    async def read_exactly(self, size: int, timeout: float | None = None) -> bytes:
        with trio.fail_after(reply_limit() if timeout is None else timeout):
            while len(self._buffer) < size:
                if not await self._fill():
                    break
        data, self._buffer = bytes(self._buffer[:size]), self._buffer[size:]
        return data

    async def read_to_end(self, timeout: float | None = None) -> bytes:
        """Everything until the server closes the connection."""
        with trio.fail_after(reply_limit() if timeout is None else timeout):
            while await self._fill():
                pass
        data, self._buffer = bytes(self._buffer), bytearray()
        return data

    async def ask(self, line: str) -> list[str]:
        """Send a command and read its reply lines (multi-line replies gathered)."""
        await self.send(line + "\n")
        first = await self.read_line()
        if first == "LOOKREPLY":
            return [first, *await self.read_lines(5)]
        keyword, _, rest = first.partition(" ")
        if keyword == "MAP":
            return [first, *await self.read_lines(int(rest.split()[0]))]
        if keyword == "HELP":
            return [first, *await self.read_lines(int(rest))]
        return [first]

    async def reply(self, line: str) -> Reply:
        """Send a command and parse its reply with the shared client-side parser."""
        parser = ClientProtocol()
        parser.receive_data(("\n".join(await self.ask(line)) + "\n").encode())
        event = parser.next_event()
        assert event is not NEED_DATA and event is not END_OF_INPUT
        return event  # type: ignore[return-value]

    async def aclose(self) -> None:
        await self.stream.aclose()


def bound_port(server: Server) -> int:
    """The port a started server listens on; fails if it is not listening yet."""
    assert server.port is not None, "the server is not listening yet"
    return server.port


def status_of(world: World, player: PlayerId) -> PlayerStatus:
    """The status of ``player``, who must be in ``world``."""
    status = world.status(player)
    assert status is not None, f"player {player} is not in the world"
    return status


def joined_at(events: Sequence[Event]) -> Position:
    """Where a join put its player: ``events`` (what ``join`` returned) begins with ``Joined``."""
    first = events[0]
    assert isinstance(first, Joined), f"a join began with {first!r}"
    return first.position
