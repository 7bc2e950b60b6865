"""The arena's relay between a bot and its server, driven over memory streams: what the
server is sent, and in how many writes."""

from __future__ import annotations

import trio
import trio.testing

from dungeon_of_doom.arena.relay import AS_BOT, Seat, relay


class CountedWrites(trio.abc.Stream):
    """The relay's end of its server connection, keeping each ``send_all`` it is given."""

    def __init__(self, inner: trio.abc.Stream) -> None:
        self.inner = inner
        self.writes: list[bytes] = []

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        self.writes.append(bytes(data))
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self.inner.receive_some(max_bytes)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_a_chunk_of_pipelined_lines_reaches_the_server_in_one_write() -> None:
    # Before: a write per line. A bot flooding LOOKs made the arena's process spend a
    # system call on each (650,000 of them in one tournament of tests/arena/test_arena.py).
    bot, bots_side = trio.testing.memory_stream_pair()
    servers_side, server = trio.testing.memory_stream_pair()
    to_server = CountedWrites(servers_side)
    seat = Seat(name="evil", game="t-1")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(relay, bots_side, to_server, seat)
        await bot.send_all(b"hello random\r\n" + b"LOOK\n" * 500 + b"CREATE mine\nMOVE N\n")
        await trio.testing.wait_all_tasks_blocked()
        assert seat.sent_join.is_set()
        await bot.aclose()
    assert to_server.writes == [
        AS_BOT,
        b"JOIN t-1\nHELLO evil\n"
        + b"LOOK\n" * 500
        + b"DOD-ARENA-REFUSED-1\n"  # (the relay's own refusal of CREATE, kept in its place)
        + b"MOVE N\n",
    ]
    assert await server.receive_some() == b"".join(to_server.writes)
