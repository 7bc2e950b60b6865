"""The trio client against a real server over loopback."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial

import pytest
import trio

from dungeon_of_doom.clients import (
    AsyncClient,
    Bye,
    ClientTimeout,
    CommandError,
    ConnectionMoved,
    Grid,
    Notice,
    Push,
    ServerClosed,
    Win,
)
from dungeon_of_doom.protocol.replies import GameInfo, PlayerJoined
from dungeon_of_doom.server.app import Server
from dungeon_of_doom.server.setup.config import ServerConfig

from ..conftest import StartServer
from ..helpers import TIMEOUT, bound_port
from .conftest import ScriptedServer


async def test_a_whole_game_on_the_tiny_map(start_server: StartServer) -> None:
    server = await start_server(map="tiny", seed=1)
    async with AsyncClient.connect(port=bound_port(server)) as client:
        assert await client.hello("Ada") == 1
        assert client.name == "Ada"
        assert (await client.look()).relative(0, 1) == "."
        assert (await client.pickup()).gold == 1
        assert await client.move("E") is True
        assert await client.move("E") is True
        final = await client.wait_closed()
        assert final == Win("You escaped the dungeon with 1 gold in 3 moves.")
        assert client.moves == 3
        with pytest.raises(ServerClosed, match="server closed: WIN"):
            await client.move("W")


async def test_commands_from_several_tasks_are_answered_in_order(
    start_server: StartServer,
) -> None:
    server = await start_server(map="default", seed=2)
    async with AsyncClient.connect(port=bound_port(server)) as client:
        await client.hello()
        results: dict[str, object] = {}

        async def ask(key: str, command: Callable[[], Awaitable[object]]) -> None:
            results[key] = await command()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(ask, "look", client.look)
            nursery.start_soon(ask, "map", client.map)
            nursery.start_soon(ask, "help", client.help)
        look, whole, help_lines = results["look"], results["map"], results["help"]
        assert isinstance(look, Grid) and isinstance(whole, Grid)
        assert isinstance(help_lines, tuple) and isinstance(help_lines[0], str)
        assert look.height == 5
        assert whole.find("@") and whole.height == 13
        assert help_lines[0].startswith("You are in the classic world")


async def test_errors_leave_the_connection_usable_and_quit_ends_it(
    start_server: StartServer,
) -> None:
    server = await start_server(map="tiny", seed=1)
    async with AsyncClient.connect(port=bound_port(server)) as client:
        with pytest.raises(CommandError, match="MOVE SW is not allowed here"):
            await client.move("SW")
        assert await client.hello() == 1
        assert await client.quit() == Bye("Thanks for playing.")
        with pytest.raises(ServerClosed, match="BYE Thanks for playing"):
            await client.look()


async def test_an_exception_in_the_block_comes_out_as_itself(start_server: StartServer) -> None:
    server = await start_server(map="tiny", seed=1)
    with pytest.raises(ServerClosed, match="BYE Thanks for playing"):
        async with AsyncClient.connect(port=bound_port(server)) as client:
            await client.quit()
            await client.look()


async def test_a_bot_is_shown_as_b_and_extended_clients_get_pushed_lines(
    start_server: StartServer,
) -> None:
    server = await start_server(map="default", seed=3)
    async with (
        AsyncClient.connect(port=bound_port(server)) as watcher,
        AsyncClient.connect(port=bound_port(server)) as bot,
    ):
        assert "events" in await watcher.extend("events")
        await watcher.hello("ann")
        assert await bot.extend("bot") == frozenset({"bot"})
        await bot.hello("robo")
        # Nothing is sent by the watcher: the reader task takes the pushed line in.
        assert await watcher.next_event() == PlayerJoined("robo")
        world = await watcher.map()
        assert "B" in "".join(world.rows)


async def test_pushes_arrive_while_the_client_is_idle_and_go_to_the_callback(
    scripted_server: ScriptedServer,
) -> None:
    port = await scripted_server(b"NOTICE one\nNOTICE two\n")
    seen: list[Push] = []
    both = trio.Event()

    def on_push(push: Push) -> None:
        seen.append(push)
        if len(seen) == 2:
            both.set()

    async with AsyncClient.connect(port=port, on_push=on_push) as client:
        with trio.fail_after(5):
            await both.wait()
        assert seen == [Notice("one"), Notice("two")] and not client.events


async def test_no_answer_in_time_raises_client_timeout(scripted_server: ScriptedServer) -> None:
    port = await scripted_server(b"")
    async with AsyncClient.connect(port=port, timeout=0.2) as client:
        with pytest.raises(ClientTimeout, match="no answer to LOOK"):
            await client.look()
        with pytest.raises(ClientTimeout):
            await client.next_event()


async def test_connecting_to_no_server_raises_os_error() -> None:
    # Bound and never listening, and held while we try: no other test can take the port.
    with trio.socket.socket() as held:
        await held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
        with pytest.raises(OSError):
            async with AsyncClient.connect(port=port):
                pass


async def test_the_client_library_drives_the_real_connection_over_a_memory_stream(
    nursery: trio.Nursery,
) -> None:
    """The server's Connection and the client library, both ends on one
    ``trio.testing.memory_stream_pair``: no socket anywhere."""
    server = Server(ServerConfig(port=0, map="tiny", seed=1))
    await nursery.start(server.run)
    try:
        ours, theirs = trio.testing.memory_stream_pair()
        nursery.start_soon(lambda: server.serve_stream(theirs, host="memory"))
        async with AsyncClient.over(ours, timeout=5) as client:
            assert await client.extend("events") == frozenset({"events"})
            assert await client.hello("Mem") == 1
            assert (await client.look()).relative(0, 1) == "."
            assert (await client.pickup()).gold == 1
            assert await client.move("E") is True
            assert await client.move("E") is True
            final = await client.wait_closed()
        assert final == Win("You escaped the dungeon with 1 gold in 3 moves.")
    finally:
        server.shutdown()


async def test_a_followed_redirect_fails_the_commands_other_tasks_await_on_the_old_node(
    start_server: StartServer, nursery: trio.Nursery
) -> None:
    # Before: following the REDIRECT dropped the old connection's state, and the LOOK
    # another task awaited there was never answered (with no time-out, never at all).
    game_node = await start_server(map="tiny", seed=1)
    joined, looked = trio.Event(), trio.Event()

    async def old_node(stream: trio.SocketStream) -> None:
        """Sends the client on once its JOIN and another task's LOOK are both in, and
        never answers the LOOK."""
        received = b""
        async for data in stream:
            received += data
            if b"JOIN default\n" in received:
                joined.set()
            if b"LOOK\n" in received and not looked.is_set():
                looked.set()
                await stream.send_all(
                    f"REDIRECT default 127.0.0.1:{bound_port(game_node)}\n".encode()
                )

    listeners = await nursery.start(partial(trio.serve_tcp, old_node, 0, host="127.0.0.1"))
    port = listeners[0].socket.getsockname()[1]
    outcomes: dict[str, object] = {}
    async with AsyncClient.connect(port=port, timeout=None) as client:

        async def join() -> None:
            outcomes["join"] = await client.join("default")

        async def look() -> None:
            try:
                outcomes["look"] = await client.look()
            except ConnectionMoved as error:
                outcomes["look"] = error

        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as tasks:
                tasks.start_soon(join)
                await joined.wait()  # the JOIN goes first: the REDIRECT answers it
                tasks.start_soon(look)
        assert isinstance(outcomes["look"], ConnectionMoved)
        assert "followed a REDIRECT" in str(outcomes["look"])
        joined_game = outcomes["join"]
        assert isinstance(joined_game, GameInfo) and joined_game.name == "default"
        # The client goes on with the game's node, where it plays the tiny map.
        assert (await client.look()).relative(0, 1) == "."
