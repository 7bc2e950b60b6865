"""Playing with keys against a real server: each world's keys, the map, messages, quitting."""

from __future__ import annotations

import re

from textual.pilot import Pilot
from textual.widgets import Static

from dungeon_of_doom.clients.terminal.app import ConfirmScreen, EndScreen, HelpScreen, PlayApp
from dungeon_of_doom.clients.terminal.session import Ending

from ..conftest import StartServer
from ..helpers import bound_port
from .conftest import RunApp, log_text, map_text, status_text, until


async def test_classic_move_pick_up_and_win_with_keys(
    start_server: StartServer, run_app: RunApp
) -> None:
    server = await start_server(map="tiny", seed=1)

    async def scenario(app: PlayApp, pilot: Pilot[Ending]) -> None:
        await until(app, lambda: "#@.E#" in map_text(app))
        assert "classic world" in status_text(app)
        assert "gold 0/1" in status_text(app)
        await pilot.press("p")
        await until(app, lambda: "gold 1/1" in status_text(app))
        assert "You pick up gold: you hold 1." in log_text(app)
        await pilot.press("w")
        await until(app, lambda: "MOVE N: blocked" in log_text(app))
        await pilot.press("d")
        await until(app, lambda: "#.@E#" in map_text(app))
        assert "moves 3" in status_text(app)
        await pilot.press("right")
        await until(app, lambda: isinstance(app.screen, EndScreen))
        assert "WIN You escaped the dungeon with 1 gold in 4 moves." in log_text(app)
        await pilot.press("space")
        await app.wait_session_end()

    app = await run_app(PlayApp("127.0.0.1", bound_port(server)), scenario)
    assert app.return_value is not None
    assert app.return_value.text == "WIN You escaped the dungeon with 1 gold in 4 moves."
    assert app.return_value.status == 0


async def test_quit_asks_first_then_says_goodbye(
    start_server: StartServer, run_app: RunApp
) -> None:
    server = await start_server(map="tiny", seed=1)

    async def scenario(app: PlayApp, pilot: Pilot[Ending]) -> None:
        await until(app, lambda: "#@.E#" in map_text(app))
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        assert not isinstance(app.screen, ConfirmScreen)
        assert app.return_value is None
        await pilot.press("q", "y")
        await app.wait_session_end()

    app = await run_app(PlayApp("127.0.0.1", bound_port(server), name="Ada"), scenario)
    assert app.return_value is not None
    assert app.return_value.text == "BYE Thanks for playing."
    assert app.return_code == 0


def _rows(app: PlayApp) -> list[str]:
    return map_text(app).splitlines()


def _where(app: PlayApp, glyph: str) -> tuple[int, int] | None:
    for r, row in enumerate(_rows(app)):
        if glyph in row:
            return r, row.index(glyph)
    return None


async def test_crawler_keys_stay_move_and_notice(
    start_server: StartServer, run_app: RunApp
) -> None:
    server = await start_server(world="crawler")

    async def scenario(app: PlayApp, pilot: Pilot[Ending]) -> None:
        await until(app, lambda: _where(app, "o") == (1, 0))
        assert "treasure 0/1" in status_text(app)
        await pilot.press("e")  # the crawler's stay key: a turn passes, nobody moves
        await until(app, lambda: "moves 1" in status_text(app))
        assert _where(app, "o") == (1, 0)
        await pilot.press("down")
        await until(app, lambda: _where(app, "o") == (2, 0))
        for _ in range(6):
            await pilot.press("d")
        await until(app, lambda: _where(app, "o") == (2, 6))
        await pilot.press("w")  # through the door
        await until(app, lambda: "level 2" in status_text(app))
        log = log_text(app)
        assert "You go through the doorway into the unknown beyond..." in log
        assert "Level 2" in log
        assert "moves 9" in status_text(app)

    await run_app(PlayApp("127.0.0.1", bound_port(server)), scenario)


async def test_baddies_nine_keys_and_quit_without_q(
    start_server: StartServer, run_app: RunApp
) -> None:
    server = await start_server(world="baddies", map="lure")

    async def scenario(app: PlayApp, pilot: Pilot[Ending]) -> None:
        await until(app, lambda: _where(app, "@") == (2, 1))
        assert "baddies world" in status_text(app)
        await pilot.press("s")  # s stays here
        await until(app, lambda: "moves 1" in status_text(app))
        assert _where(app, "@") == (2, 1)
        await pilot.press("e")  # north-east
        await until(app, lambda: _where(app, "@") == (1, 2))
        await pilot.press("q")  # north-west, not quit
        await until(app, lambda: _where(app, "@") == (0, 1))
        assert not isinstance(app.screen, ConfirmScreen)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        shown = "\n".join(str(part.content) for part in app.screen.query(Static))
        assert "Keys (baddies)" in shown
        assert re.search(r"^Esc Ctrl-Q Ctrl-C +quit", shown, re.MULTILINE)
        assert re.search(r"^q +move north-west", shown, re.MULTILINE)
        assert "escape ladder" in shown
        await pilot.press("space")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n", "ctrl+q")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await app.wait_session_end()

    app = await run_app(PlayApp("127.0.0.1", bound_port(server)), scenario)
    assert app.return_value is not None
    assert app.return_value.text == "BYE Thanks for playing."


async def test_knight_moves_east_and_south_only(start_server: StartServer, run_app: RunApp) -> None:
    server = await start_server(world="knight")

    async def scenario(app: PlayApp, pilot: Pilot[Ending]) -> None:
        await until(app, lambda: "[-2]" in map_text(app))
        assert "health ?" in status_text(app)
        await pilot.press("d")
        await until(app, lambda: "[-3]" in map_text(app))
        assert "health 2" in status_text(app)
        assert "Health 2 at (0, 1) after a trap of -3." in log_text(app)
        await pilot.press("w")
        await until(app, lambda: "The key w does nothing here" in log_text(app))
        await pilot.press("down")  # onto the -10 trap
        await until(app, lambda: isinstance(app.screen, EndScreen))
        assert "LOSE A trap of -10 at (1, 1)" in log_text(app)
        await pilot.press("enter")
        await app.wait_session_end()

    app = await run_app(PlayApp("127.0.0.1", bound_port(server)), scenario)
    assert app.return_value is not None
    assert app.return_value.text.startswith("LOSE A trap of -10")
