"""The viewer in a real headless Chromium, checked against what the server says.

Each test takes a screenshot and reads it: at the square where the server put each player
(a TCP player's own ``MAP``, or the replay's record), the pixel must be that player's
colour, the colours must differ, and the name label over the square must be the
player's name. Screenshots go to the test's folder, and also to ``$DOD_SHOTS`` if set.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from .conftest import LinePlayer, WebServer, start_web_server, web_limit

THREE = "name Three\nwin 1\n###########\n#G.......E#\n#.........#\n#.........#\n###########\n"
"""A room with room for three players, wherever the seed puts them."""


def shoot(page: Any, tmp_path: Path, name: str) -> Image.Image:
    """The page as a screenshot (CSS transitions finished), kept; the image to read."""
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), animations="disabled")
    shots = os.environ.get("DOD_SHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(shots) / path.name)
    return Image.open(io.BytesIO(path.read_bytes())).convert("RGB")


def rgb(colour: str) -> tuple[int, int, int]:
    value = colour.lstrip("#")
    return (int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16))


def near(seen: tuple[int, ...], wanted: tuple[int, int, int], slack: int = 40) -> bool:
    return all(abs(a - b) <= slack for a, b in zip(seen[:3], wanted, strict=True))


def own_square(player: LinePlayer, me: str = "@") -> tuple[int, int]:
    """Where the server says ``player`` stands: its ``@`` in its own ``MAP``."""
    player.send("MAP")
    header = player.read_line()
    while not header.startswith("MAP "):
        header = player.read_line()
    rows = [player.read_line() for _ in range(int(header.split()[1]))]
    [found] = [(r, row.index(me)) for r, row in enumerate(rows) if me in row]
    return found


def wait_settled(page: Any) -> None:
    page.wait_for_function("() => window.dodViewer && window.dodViewer.settled()")


def check_player_drawn(page: Any, shot: Image.Image, name: str, square: tuple[int, int]) -> str:
    """Assert ``name`` is drawn at ``square`` in its colour, labelled; its colour."""
    where = page.evaluate("(name) => window.dodViewer.positionOf(name)", name)
    assert where is not None, f"{name} is not on the board"
    box = page.locator("canvas.board").bounding_box()
    px = where["px"]
    assert abs(where["x"] - (box["x"] + square[1] * px + px / 2)) < 1
    assert abs(where["y"] - (box["y"] + square[0] * px + px / 2)) < 1
    seen = shot.getpixel((round(where["x"]), round(where["y"])))
    assert isinstance(seen, tuple), "an RGB screenshot has a tuple for a pixel"
    assert near(seen, rgb(where["colour"])), f"{name}: {seen} is not {where['colour']}"
    tag = page.locator(f".tag[data-player='{name}']")
    assert tag.inner_text() == name
    label = tag.bounding_box()
    assert abs(label["x"] + label["width"] / 2 - where["x"]) <= 2  # centred over the square
    assert label["y"] + label["height"] <= where["y"]  # above the player, not on it
    return str(where["colour"])


@pytest.fixture
def three_server(tmp_path: Path) -> Any:
    path = tmp_path / "three.map"
    path.write_text(THREE)
    yield from start_web_server(tmp_path, "--map", str(path), "--seed", "5")


def test_a_live_game_shows_three_named_players_each_in_its_colour(
    three_server: WebServer, page: Any, tmp_path: Path
) -> None:
    page.goto(three_server.url + "#/watch/default")
    page.locator("canvas.board").wait_for()
    # Watching from here on: the map came over the page's WebSocket in answer to its WATCH,
    # so every arrival after it is told to the page (one arrival before it was missed once
    # in ten runs, and "Ada entered the dungeon" with it).
    page.wait_for_function("() => window.dodViewer && window.dodViewer.levels.length > 0")
    players = {}
    for name in ("Ada", "Bob", "Cy"):
        player = three_server.player()
        player.send(f"HELLO {name}")
        assert player.read_line() == "GOLD 1"
        players[name] = player
    squares = {name: own_square(player) for name, player in players.items()}
    expected = [[name, *square] for name, square in squares.items()]
    page.wait_for_function(
        """(expected) => window.dodViewer && JSON.stringify(window.dodViewer.seats.map(
             (s) => [s.name, s.row, s.col])) === JSON.stringify(expected)""",
        arg=expected,
    )
    page.locator(".tag[data-player='Cy']").wait_for()
    wait_settled(page)
    shot = shoot(page, tmp_path, "live-three-players")
    colours = {name: check_player_drawn(page, shot, name, squares[name]) for name in squares}
    assert len(set(colours.values())) == 3, colours
    # The header and the panel agree on who plays, with their gold and moves.
    assert page.locator("#count").inner_text() == "3"
    for name in squares:
        card = page.locator(f".card[data-player='{name}']")
        assert "gold 0/1" in card.inner_text() and "moves 0" in card.inner_text()
    # Events in words, not protocol lines.
    events = page.locator("#events")
    for name in squares:
        assert f"{name} entered the dungeon" in events.inner_text()
    assert "JOINED" not in events.inner_text()
    # Following one lights its view; a player who moves is drawn where it went.
    page.select_option("#follow", "Bob")
    players["Bob"].send("MOVE S")
    moved = players["Bob"].read_line()
    bob = own_square(players["Bob"])
    page.wait_for_function(
        """(at) => { const s = window.dodViewer.seatOf('Bob');
                     return s && s.row === at[0] && s.col === at[1]; }""",
        arg=list(bob),
    )
    wait_settled(page)
    shot = shoot(page, tmp_path, "live-following-bob")
    check_player_drawn(page, shot, "Bob", bob)
    assert moved in ("SUCCESS", "FAIL")
    for player in players.values():
        player.close()


def _wait_for_replay(server: WebServer) -> str:
    deadline = time.monotonic() + web_limit()
    while True:
        with urllib.request.urlopen(server.url + "api/replays") as answer:
            found = [r["file"] for r in json.load(answer)["replays"]]
        if found or time.monotonic() > deadline:
            assert found, "no replay was written"
            return str(found[0])


def test_a_crawler_replay_follows_its_player_past_a_door(tmp_path: Path, page: Any) -> None:
    for server in start_web_server(tmp_path, "--world", "crawler", "--map", "tutorial"):
        ada = server.player()
        ada.send("HELLO Ada")
        assert ada.read_line() == "GOLD 1"
        # Round the pillar to level 1's door, then take level 2's treasure.
        for move in ("S", *"EEEEEE", "N", "E", "E", "E"):
            ada.send(f"MOVE {move}")
            assert ada.read_line() == "SUCCESS"
        ada.send("QUIT")
        ada.close()
        replay = _wait_for_replay(server)
        with urllib.request.urlopen(f"{server.url}api/replays/{replay}") as answer:
            frames = json.load(answer)["frames"]
        through = next(
            i for i, f in enumerate(frames) if f["players"][:1] and f["players"][0]["level"] == 2
        )
        page.goto(f"{server.url}#/replay/{replay}?follow=Ada&step={through}")
        page.locator(f"#where[data-step='{through}']").wait_for()
        assert page.locator(".levels button.on").inner_text().startswith("level 2")
        assert "Ada on level 2" in page.inner_text("#where")
        wait_settled(page)
        shot = shoot(page, tmp_path, "replay-crawler-level-2")
        arrived = frames[through]["players"][0]
        colour = check_player_drawn(page, shot, "Ada", (arrived["row"], arrived["col"]))
        # A step back, before the door: level 1 is shown again, Ada at its door.
        page.click("#back")
        page.locator(f"#where[data-step='{through - 1}']").wait_for()
        assert page.evaluate("() => window.dodViewer.levelShown()") == 1
        assert "on level 1" in page.inner_text("#where")
        before = frames[through - 1]["players"][0]
        wait_settled(page)
        check_player_drawn(
            page,
            shoot(page, tmp_path, "replay-crawler-door"),
            "Ada",
            (before["row"], before["col"]),
        )
        # The treasure is told in words, and its event jumps to its step.
        treasure = page.locator("#events li", has_text="treasure").first
        step = int(treasure.get_attribute("data-step"))
        treasure.locator("button").click()
        page.locator(f"#where[data-step='{step}']").wait_for()
        assert f"step={step}" in page.get_attribute("#link", "href")
        assert page.evaluate("() => window.dodViewer.positionOf('Ada').colour") == colour


def test_a_browser_player_is_marked_and_wins(
    sprint_server: WebServer, page: Any, tmp_path: Path
) -> None:
    dave = sprint_server.player()
    dave.send("HELLO dave")
    assert dave.read_line() == "GOLD 1"
    page.goto(sprint_server.url + "#/play/default")
    page.fill("#player", "carol")
    page.click("#start")
    page.locator(".tag[data-player='carol'].me").wait_for()
    page.wait_for_function("() => window.dodViewer.seats.length === 2")
    carol = page.evaluate("() => window.dodViewer.seatOf('carol')")
    wait_settled(page)
    shot = shoot(page, tmp_path, "play-carol-marked")
    check_player_drawn(page, shot, "carol", (carol["row"], carol["col"]))
    check_player_drawn(page, shot, "dave", own_square(dave))
    assert "you" in page.locator(".card[data-player='carol']").inner_text()
    # dave bumps into the wall (carol is told, between her replies) and leaves the way free.
    dave.send("MOVE N")
    assert dave.read_line() == "FAIL"
    page.locator("#events li", has_text="dave could not move north").wait_for()
    dave.send("QUIT")
    dave.close()
    page.wait_for_function("() => window.dodViewer.seats.length === 1")
    page.locator("#look").focus()
    # The gold is west of the exit: from the exit go west first; take it, step east.
    keys = ("p", "ArrowRight") if carol["col"] == 1 else ("ArrowLeft", "p", "ArrowRight")
    for key in keys:
        page.keyboard.press(key)
    page.locator("#outcome", has_text="WIN").wait_for()
    log = page.inner_text("#log").splitlines()
    assert "> PICKUP  ⇒ SUCCESS, GOLD COINS: 1" in log
    assert "> MOVE E  ⇒ SUCCESS" in log
    assert "> HELLO carol  ⇒ GOLD 1" in log
    for line in log:  # every reply paired with its own command
        if line.startswith("> LOOK"):
            assert "⇒ LOOKREPLY" in line, line
        elif line.startswith("> MOVE"):
            assert line.endswith(("⇒ SUCCESS", "⇒ FAIL")), line
    page.locator(".card.gone[data-player='carol']").wait_for()  # she escaped
    shoot(page, tmp_path, "play-carol-won")


def test_a_solo_win_appears_among_the_best_results(
    sprint_server: WebServer, page: Any, tmp_path: Path
) -> None:
    erin = sprint_server.player()
    erin.send("HELLO erin")
    assert erin.read_line() == "GOLD 1"
    for command in ("MOVE W", "PICKUP", "MOVE E"):
        erin.send(command)
        erin.read_line()
    assert erin.read_line().startswith("WIN")
    erin.close()
    deadline = time.monotonic() + 30
    while True:  # the record is written in the background: wait (bounded) for it
        with urllib.request.urlopen(sprint_server.url + "api/leaderboard?world=classic") as answer:
            groups = json.load(answer)["bests"]
        if groups or time.monotonic() > deadline:
            break
    assert [g["map"] for g in groups] == ["sprint.map"]
    page.goto(sprint_server.url + "#/leaderboard/classic")
    row = page.locator("#bests table tbody tr").first
    row.wait_for()
    cells = row.locator("td").all_inner_texts()
    assert cells[:4] == ["1", "erin", "3", "1"]  # rank, name, moves, gold
    assert "sprint.map" in page.inner_text("#bests")
    assert "No rated games" in page.inner_text("#standings")  # a solo win is not rated
    shoot(page, tmp_path, "leaderboard-solo-best")
    row.locator("a", has_text="erin").click()
    page.locator("#history tbody tr").first.wait_for()
    game = page.locator("#history tbody tr").first.inner_text()
    assert "win" in game and "sprint.map" in game
    assert str(tmp_path) not in game  # the server's folders are not shown
    assert "sprint.map" in page.inner_text("#bests")
    shoot(page, tmp_path, "player-erin")


def test_tiles_come_from_each_worlds_help_and_a_world_naming_none_is_drawn_plainly(
    web_server: WebServer, page: Any
) -> None:
    from worlds.registry import load_plugin, world_names

    page.goto(web_server.url)
    page.locator("#games").wait_for()
    kinds = {}
    for name in world_names():
        notes = list(type(load_plugin(name).open(None, seed=0)).help_notes)
        kinds[name] = page.evaluate(
            """async (lines) => {
                 const tiles = (await import('/static/tiles.js')).tilesFromHelp(lines);
                 const kinds = Object.entries(tiles || {}).map(([g, t]) => [g, t.kind]);
                 return tiles && Object.fromEntries(kinds);
               }""",
            notes,
        )
    assert {kinds["classic"][g] for g in "#.GE"} == {"wall", "floor", "gold", "exit"}
    assert kinds["classic"]["L"] == kinds["classic"]["H"] == "item"
    assert (kinds["crawler"]["$"], kinds["crawler"]["?"], kinds["crawler"]["M"]) == (
        "gold",
        "door",
        "foe",
    )
    assert (kinds["baddies"]["#"], kinds["baddies"]["*"], kinds["baddies"]["~"]) == (
        "abyss",
        "exit",
        "foe",
    )
    assert kinds["knight"] is None  # its squares are numbers (BOARD's cell=), no glyphs
    # A world whose HELP names no glyphs: every character drawn as it is, on a square.
    page.goto(web_server.url + "#/watch/default")
    page.wait_for_function("() => window.dodViewer && window.dodViewer.rows().length > 0")
    # The world's own tiles come with the answer to the page's HELP, which may arrive after
    # the view: wait for them, or they would replace the plain tiles set below.
    page.locator(".legend", has_text="exit").wait_for()
    page.evaluate("() => window.dodViewer.setTiles(null)")
    page.locator(".legend", has_text="drawn as they are").wait_for()
