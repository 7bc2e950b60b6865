"""The blocking client against a real server over loopback (each client in a thread)."""

from __future__ import annotations

import pytest
import trio

from dungeon_of_doom.clients import (
    Bye,
    Client,
    ClientTimeout,
    CommandError,
    Notice,
    ServerClosed,
    Win,
)
from dungeon_of_doom.server.app import Server
from dungeon_of_doom.server.setup.config import ServerConfig

from ..conftest import StartServer
from ..helpers import bound_port
from .conftest import ScriptedServer


async def test_a_whole_game_on_the_tiny_map(start_server: StartServer) -> None:
    server = await start_server(map="tiny", seed=1)

    def play() -> None:
        with Client.connect(port=bound_port(server)) as client:
            assert client.hello() == 1
            view = client.look()
            assert view.rows == ("X###X", "#####", "##G.E", "#####", "X###X")
            pickup = client.pickup()
            assert pickup and pickup.gold == 1 == client.gold
            assert client.move("N") is False
            assert client.move("E") is True
            assert client.move("E") is True
            final = client.wait_closed()
            assert final == Win("You escaped the dungeon with 1 gold in 4 moves.")
            assert client.moves == 4
            with pytest.raises(ServerClosed, match="server closed: WIN You escaped") as caught:
                client.look()
            assert caught.value.final == final

    await trio.to_thread.run_sync(play)


async def test_a_refused_command_raises_and_the_game_goes_on(start_server: StartServer) -> None:
    server = await start_server(map="tiny", seed=1)

    def play() -> None:
        with Client.connect(port=bound_port(server)) as client:
            with pytest.raises(CommandError, match="MOVE NE is not allowed here"):
                client.move("NE")
            with pytest.raises(CommandError, match="STAY is not available"):
                client.stay()
            assert client.map().rows == ("#####", "#@.E#", "#####")
            assert client.quit() == Bye("Thanks for playing.")
            assert client.closed
            with pytest.raises(ServerClosed, match="BYE Thanks for playing"):
                client.hello()

    await trio.to_thread.run_sync(play)


@pytest.mark.parametrize("wait_first", [False, True])
async def test_a_command_after_the_server_said_goodbye_raises_its_final_line(
    wait_first: bool,
) -> None:
    server = Server(ServerConfig(port=0, map="tiny"))
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        client = await trio.to_thread.run_sync(lambda: Client.connect(port=bound_port(server)))
        await trio.to_thread.run_sync(client.hello)
        server.shutdown()
    # The server has stopped: every connection was told BYE and closed.
    with client:
        if wait_first:
            final = await trio.to_thread.run_sync(client.wait_closed)
            assert final == Bye("the server is shutting down; goodbye")
        with pytest.raises(ServerClosed, match="BYE the server is shutting down"):
            await trio.to_thread.run_sync(client.look)


async def test_no_answer_in_time_raises_client_timeout(scripted_server: ScriptedServer) -> None:
    port = await scripted_server(b"")

    def ask() -> None:
        with Client.connect(port=port, timeout=0.2) as client, pytest.raises(ClientTimeout):
            client.look()

    await trio.to_thread.run_sync(ask)


async def test_pushed_lines_reach_the_event_queue_or_the_callback(
    scripted_server: ScriptedServer,
) -> None:
    port = await scripted_server(b"NOTICE one\nNOTICE two\n")

    def read() -> None:
        with Client.connect(port=port) as client:
            assert client.next_event() == Notice("one")
            assert list(client.events) == [Notice("two")]
        seen: list[object] = []
        with Client.connect(port=port, on_push=seen.append) as client:
            client.poll(timeout=0.0)
            while len(seen) < 2:
                client.poll(timeout=1.0)
            assert seen == [Notice("one"), Notice("two")] and not client.events

    await trio.to_thread.run_sync(read)
