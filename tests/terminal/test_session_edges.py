"""Watching, chat, the command line, and the ends a player does not choose."""

from __future__ import annotations

import trio
from textual.pilot import Pilot

from clients import Client
from clients.terminal.app import EndScreen, PlayApp
from clients.terminal.session import Ending

from ..conftest import StartServer
from ..helpers import bound_port
from .conftest import RunApp, closed_port, log_text, map_text, status_text, until


async def test_watch_mode_follows_another_player(
    start_server: StartServer, run_app: RunApp
) -> None:
    server = await start_server(map="tiny", seed=1)

    async def scenario(app: PlayApp, pilot: Pilot[Ending]) -> None:
        await until(app, lambda: "#G.E#" in map_text(app))
        assert "watching" in status_text(app)
        await pilot.press("d")  # a spectator has no moves
        await until(app, lambda: "The key d does nothing here" in log_text(app))
        with Client.connect("127.0.0.1", bound_port(server)) as player:
            player.hello()
            await until(app, lambda: "#P.E#" in map_text(app))
            player.move("E")
            await until(app, lambda: "#GPE#" in map_text(app))
            await until(app, lambda: "players 1" in status_text(app))
            player.quit()
        await until(app, lambda: "Game over" in log_text(app))

    await run_app(PlayApp("127.0.0.1", bound_port(server), watch="default"), scenario)


async def test_watching_a_crawler_game_shows_every_level_opened(
    start_server: StartServer, run_app: RunApp
) -> None:
    # Before: level 1 only, the VIEW line; the player who went through the door vanished.
    server = await start_server(world="crawler", seed=1)  # the tutorial

    async def scenario(app: PlayApp, pilot: Pilot[Ending]) -> None:
        await until(app, lambda: "---+--?" in map_text(app))
        with Client.connect("127.0.0.1", bound_port(server)) as player:
            player.hello()
            for step in "SEEEEEEN":  # along the bottom row, then up through the door
                player.move(step)
            # Level 2 beside level 1, the player on it.
            await until(app, lambda: "---+--?   P-$-?" in map_text(app))
            assert map_text(app).splitlines()[:3] == [
                "---+---   -----",
                "---+--?   P-$-?",
                "-------   -----",
            ]
            player.quit()

    await run_app(PlayApp("127.0.0.1", bound_port(server), watch="default"), scenario)


async def test_chat_and_typed_commands(start_server: StartServer, run_app: RunApp) -> None:
    server = await start_server()

    async def scenario(app: PlayApp, pilot: Pilot[Ending]) -> None:
        await until(app, lambda: "you: Ada" in status_text(app) and "@" in map_text(app))
        await pilot.press("t", *"hello", "space", *"there", "enter")
        await until(app, lambda: "<Ada> hello there" in log_text(app))
        await pilot.press("colon", *"games", "enter")
        await until(app, lambda: "GAMES 1" in log_text(app))
        assert "> GAMES" in log_text(app)
        await pilot.press("colon", *"dance", "enter")
        await until(app, lambda: 'unknown command "dance"' in log_text(app))
        await pilot.press("colon", *"move", "space", "up", "escape")  # Esc leaves the line
        assert "MOVE UP" not in log_text(app)
        with Client.connect("127.0.0.1", bound_port(server)) as bob:
            bob.extend("chat")
            bob.hello("Bob")
            await until(app, lambda: "Bob joined the game" in log_text(app))
            await until(app, lambda: "players 2" in status_text(app))
            bob.shout("hi Ada")
            await until(app, lambda: "<Bob> hi Ada" in log_text(app))
            bob.quit()
        await until(app, lambda: "Bob quit" in log_text(app))

    await run_app(PlayApp("127.0.0.1", bound_port(server), name="Ada"), scenario)


async def test_server_closing_shows_its_last_line(
    start_server: StartServer, run_app: RunApp
) -> None:
    server = await start_server(map="tiny", seed=1)

    async def scenario(app: PlayApp, pilot: Pilot[Ending]) -> None:
        await until(app, lambda: "#@.E#" in map_text(app))
        trio.from_thread.run_sync(server.shutdown)
        await until(app, lambda: isinstance(app.screen, EndScreen))
        assert "BYE the server is shutting down; goodbye" in log_text(app)
        await pilot.press("x")
        await app.wait_session_end()

    app = await run_app(PlayApp("127.0.0.1", bound_port(server)), scenario)
    assert app.return_value is not None
    assert app.return_value.text == "BYE the server is shutting down; goodbye"


async def test_unreachable_server_ends_with_a_message(run_app: RunApp) -> None:
    async def scenario(app: PlayApp, pilot: Pilot[Ending]) -> None:
        await app.wait_session_end()

    with closed_port() as port:
        app = await run_app(PlayApp("127.0.0.1", port), scenario)
    assert app.return_value is not None
    assert app.return_value.status == 1
    assert app.return_value.text == f"cannot connect to 127.0.0.1:{port}: connection refused"


async def test_a_turn_waits_for_the_round_and_says_so(
    start_server: StartServer, run_app: RunApp
) -> None:
    server = await start_server(world="crawler")

    async def scenario(app: PlayApp, pilot: Pilot[Ending]) -> None:
        with Client.connect("127.0.0.1", bound_port(server)) as bob:
            bob.hello("Bob")
            await until(app, lambda: "players 2" in status_text(app))
            await pilot.press("e")
            await until(app, lambda: "STAY: waiting for the round" in status_text(app))
            assert "moves 0" in status_text(app)
            bob.stay()
            await until(app, lambda: "round 1" in status_text(app))
            await until(app, lambda: "waiting" not in status_text(app))
            assert "moves 1" in status_text(app)

    await run_app(PlayApp("127.0.0.1", bound_port(server), name="Ada"), scenario)


async def test_a_game_that_is_not_there_ends_with_the_error(
    start_server: StartServer, run_app: RunApp
) -> None:
    server = await start_server(map="tiny", seed=1)

    async def scenario(app: PlayApp, pilot: Pilot[Ending]) -> None:
        await app.wait_session_end()

    app = await run_app(PlayApp("127.0.0.1", bound_port(server), game="nosuchgame"), scenario)
    assert app.return_value is not None
    assert app.return_value.status == 1
    assert app.return_value.text.startswith("cannot join nosuchgame: ")
    assert "nosuchgame" in app.return_value.text.removeprefix("cannot join nosuchgame: ")
