"""The client library plays every server of DIALECTS.md, each reproduced by a test double."""

from __future__ import annotations

import pytest
import trio

from clients import AsyncClient, Client, CommandError, ServerClosed, Win
from clients.core import Answer, ClientCore
from clients.dialect import TreasureChanged, TurnStarted, Unasked, ViewChanged

from ..peers import start_peer

PLAYABLE = ("zss", "lib", "ldjb2", "ldjb3", "ch")
DIALECT = {"zss": "2015", "lib": "2016", "ldjb2": "2013", "ldjb3": "2013", "ch": "2016"}


@pytest.mark.parametrize("peer", PLAYABLE)
async def test_extend_refused_in_any_form_then_hello_look_and_move(
    nursery: trio.Nursery, peer: str
) -> None:
    server = await start_peer(nursery, peer)
    async with AsyncClient.connect(port=server.port, timeout=5) as client:
        with pytest.raises(CommandError):
            await client.extend("bot")
        assert await client.hello() == 2
        view = await client.look()
        assert (view.height, view.width) == (5, 5) and view.relative(-2, -2) == "X"
        assert await client.move("N") is False  # a wall above every spawn square
        assert await client.move("S") is True
        again = await client.look()
        assert again.rows != view.rows
        assert client.moves == 2
        assert client.dialect == DIALECT[peer], client.dialect_evidence


async def test_a_greeting_is_an_event_and_tells_the_target(nursery: trio.Nursery) -> None:
    server = await start_peer(nursery, "zss")
    async with AsyncClient.connect(port=server.port, timeout=5) as client:
        assert await client.next_event() == Unasked("GOLD 2")
        assert await client.next_event() == TurnStarted()
        assert client.goal == 2 and client.dialect == "2015"
        assert await client.hello("Ada") == 2
    # HELLO without a name was refused (FAIL HELLO needs an argument) and sent again named.
    server2 = await start_peer(nursery, "zss")
    async with AsyncClient.connect(port=server2.port, timeout=5) as client:
        await client.next_event()  # the greeting, read before HELLO is sent
        assert await client.hello() == 2
        assert client.name == "player"
    assert server2.received == ["HELLO", "HELLO player"]


async def test_turns_a_command_out_of_turn_waits_for_starturn(nursery: trio.Nursery) -> None:
    server = await start_peer(nursery, "zss")
    async with (
        AsyncClient.connect(port=server.port, timeout=5) as first,
        AsyncClient.connect(port=server.port, timeout=5) as second,
    ):
        await first.hello("A")
        await second.hello("B")
        # B's move is refused (not your turn) and sent again once A has used its six actions.
        async with trio.open_nursery() as moves:
            moves.start_soon(second.move, "S")
            for _ in range(6):
                await first.move("E" if _ % 2 == 0 else "W")
        assert second.moves == 1
    assert server.received.count("MOVE S") == 2


async def test_treasure_and_views_pushed_by_a_2016_server(nursery: trio.Nursery) -> None:
    server = await start_peer(nursery, "ch")
    async with AsyncClient.connect(port=server.port, timeout=5) as client:
        await client.hello("Ada")
        assert await client.move("E") and await client.move("E")
        picked = await client.pickup()
        assert picked and client.gold == 1
        kinds = {type(event) for event in client.events}
        assert {TreasureChanged, ViewChanged, TurnStarted} <= kinds


async def test_mbuckley2000s_lines_are_read_as_its_dialect_writes_them(
    nursery: trio.Nursery,
) -> None:
    # Its server speaks a private protocol of its own (H2, L5 rows, MS, PS1); the client
    # library said it "cannot be played" (issue 39). It reads them by the forms our own
    # 2016mbk port writes them in.
    server = await start_peer(nursery, "mbk")
    async with AsyncClient.connect(port=server.port, timeout=5) as client:
        with pytest.raises(CommandError):  # silence: no extensions
            await client.extend("bot")
        assert await client.hello() == 2  # H2: the gold still needed
        assert client.dialect == "2016"
        assert client.dialect_evidence[-1].endswith("a line only 2016mbk writes, (2016)")
        view = await client.look()
        assert view.rows == ("X###X", "#####", "##P.G", "##.#.", "X#..X")
        assert await client.move("N") is False  # MF
        assert await client.move("E") is True  # MS, and its view pushed
        assert await client.move("E") is True
        picked = await client.pickup()  # PS1: the gold now held
        assert picked and client.gold == 1
        assert (await client.look()).rows[2] == "..P#."
        assert any(isinstance(event, ViewChanged) for event in client.events)
        assert (await client.pickup()).gold == 2  # its gold stays where it was


@pytest.mark.parametrize("peer", ["zss", "mbk", "lib", "ldjb3", "ch"])
async def test_the_blocking_client_wins(nursery: trio.Nursery, peer: str) -> None:
    server = await start_peer(nursery, peer)

    def play() -> object:
        with Client.connect(port=server.port, timeout=5) as client:
            client.hello("Ada")
            try:
                # From (1, 1): E E onto the gold at (1, 3), S S E onto the gold at
                # (3, 4), then E E E onto the exit.
                for step in ("E", "E"):
                    assert client.move(step)
                client.pickup()
                for step in ("S", "S", "E"):
                    assert client.move(step)
                client.pickup()
                assert client.gold == 2
                for step in ("E", "E", "E"):
                    client.move(step)
                return client.wait_closed(5)
            except ServerClosed as closed:
                return closed.final

    final = await trio.to_thread.run_sync(play)
    assert isinstance(final, Win)


def test_a_view_with_a_blank_line_after_it_leaves_nothing_for_the_next_command() -> None:
    core = ClientCore()
    look, extend = core.look(), core.extend("bot")
    core.send(look)
    core.send(extend)
    core.receive_data(b"LOOKREPLY:\nX###X\n###A#\n##EG.\n#LG.H\nX#S.X\n\n\n")
    first = core.next_answer()
    second = core.next_answer()
    assert isinstance(first, Answer) and isinstance(second, Answer)
    assert first.result().rows[2] == "##EG."
    with pytest.raises(CommandError, match="refused"):
        second.result()


async def test_a_pause_inside_chs_answer_to_hello_is_waited_out(nursery: trio.Nursery) -> None:
    # ch739 pauses after GOAL (it starts its game) longer than the client's quiet spell,
    # with 'Welcome to Dungeon of Doom!', a line no dialect explains, already read: the
    # MESSAGE and GOAL before it show a dialect we read, so the answer is awaited.
    server = await start_peer(nursery, "ch-slow")
    async with AsyncClient.connect(port=server.port, timeout=10) as client:
        assert await client.hello("Ada") == 2
        assert client.name == "Ada" and client.dialect == "2016"

    def blocking_hello() -> int:
        with Client.connect(port=server.port, timeout=10) as blocking:
            return blocking.hello("Bob")

    assert await trio.to_thread.run_sync(blocking_hello) == 2
