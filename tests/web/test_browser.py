"""The web page in a real headless Chromium: the list, a live view, a replay, and play.

Each test takes a screenshot (kept in the test's temporary folder) and checks what the
page shows: the map's text, the players' names, the outcome.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .conftest import WebServer, wait_for_text


def _screenshot(page: Any, tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 5000  # a drawn page, not a blank one
    return path


def _map_text(page: Any) -> str:
    return str(page.inner_text("#map"))


def test_the_list_shows_every_game_with_its_world_and_map(
    web_server: WebServer, page: Any, tmp_path: Path
) -> None:
    player = web_server.player()
    player.send("HELLO ada")
    assert player.read_line().startswith("GOLD")
    page.goto(web_server.url)
    row = page.locator("#games tr[data-game=default]")
    row.wait_for()
    text = row.inner_text()
    assert "classic" in text and "default" in text
    assert re.search(r"\b1\b", text)  # ada plays
    assert "watch" in text and "play" in text
    _screenshot(page, tmp_path, "list")
    player.close()


def test_the_live_view_draws_the_map_and_names_the_players_as_they_move(
    web_server: WebServer, page: Any, tmp_path: Path
) -> None:
    page.goto(web_server.url + "#/watch/default")
    wait_for_text(page, "#map", "#")
    before = _map_text(page)
    assert "E" in before and "G" in before  # the classic default map's exits and gold
    player = web_server.player()
    player.send("HELLO bob")
    player.read_line()
    # Bob appears in the map (as P) and by name, pushed over the WebSocket: no reload.
    wait_for_text(page, "#map", "P")
    for direction in "NESW":
        player.send(f"MOVE {direction}")
        player.read_line()
    wait_for_text(page, "#players", "bob")
    assert "bob" in page.inner_text("#log")
    _screenshot(page, tmp_path, "live")
    player.close()


def test_a_browser_player_and_a_tcp_player_see_each_other(
    sprint_server: WebServer, page: Any
) -> None:
    page.goto(sprint_server.url + "#/play/default")
    page.fill("#player", "carol")
    page.click("#start")
    wait_for_text(page, "#map", "X")
    tcp = sprint_server.player()
    tcp.send("HELLO dave")
    tcp.read_line()
    # On a two-square map they stand side by side: each LOOK shows the other as P.
    assert any("P" in row for row in tcp.look())
    page.keyboard.press("l")
    wait_for_text(page, "#map", "P")
    tcp.close()


def test_keys_play_a_game_to_a_win_and_the_replay_viewer_shows_it(
    sprint_server: WebServer, page: Any, tmp_path: Path
) -> None:
    page.goto(sprint_server.url + "#/play/default")
    page.fill("#player", "erin")
    page.click("#start")
    wait_for_text(page, "#map", "X")
    page.locator("#map").focus()
    # West onto the gold (or into the wall), pick it up, east onto the exit.
    for key in ("ArrowLeft", "p", "ArrowRight"):
        page.keyboard.press(key)
    wait_for_text(page, "#outcome", re.compile(r"^WIN"))
    log = page.inner_text("#log")
    assert "> PICKUP" in log and "> MOVE E" in log
    _screenshot(page, tmp_path, "win")

    page.goto(sprint_server.url + "#/replays")
    link = page.locator("#replays a").first
    link.wait_for()
    link.click()
    wait_for_text(page, "#where", "step 0")
    assert _map_text(page).split() == ["####", "#GE#", "####"]  # as the game began
    assert "erin" in page.inner_text("#status")
    last = int(page.get_attribute("#slider", "max"))
    assert last >= 3  # join, name, three actions at least
    page.fill("#slider", str(last))
    wait_for_text(page, "#where", f"step {last}")
    told = page.inner_text("#log")
    assert "erin PICKUP: SUCCESS" in told
    assert "erin MOVE E" in told and "game over" in told
    page.click("#back")
    wait_for_text(page, "#where", f"step {last - 1}")
    page.click("#play")
    wait_for_text(page, "#where", f"step {last}")
    _screenshot(page, tmp_path, "replay")


def test_the_battle_world_shows_hit_points_action_points_and_whose_turn(
    tmp_path: Path, page: Any
) -> None:
    from .conftest import SPRINT, start_web_server

    board = tmp_path / "sprint.map"
    board.write_text(SPRINT)
    for server in start_web_server(tmp_path, "--world", "battle", "--map", str(board)):
        page.goto(server.url + "#/play/default")
        page.fill("#player", "fay")
        page.click("#start")
        wait_for_text(page, "#battle", "HP 3")
        shown = page.inner_text("#battle")
        assert "AP 6" in shown  # alone in the game: the turn is fay's, with all six points
        assert "carrying nothing" in shown


def test_the_leaderboard_page_shows_the_ratings_of_a_finished_game(
    web_server: WebServer, page: Any, tmp_path: Path
) -> None:
    import json
    import time
    import urllib.request

    ada, bob = web_server.player(), web_server.player()
    for player, name in ((ada, "ada"), (bob, "bob")):
        player.send(f"HELLO {name}")
        assert player.read_line().startswith("GOLD")
    for player in (ada, bob):  # both leave: a rated game of two named players
        player.send("QUIT")
        assert player.read_line().startswith("BYE")
        player.close()
    # The record is written in the background: wait (bounded) until the store has it.
    deadline = time.monotonic() + 30
    while True:
        with urllib.request.urlopen(web_server.url + "api/leaderboard?world=classic") as answer:
            standings = json.load(answer)["standings"]
        if standings or time.monotonic() > deadline:
            break
    assert sorted(s["name"] for s in standings) == ["ada", "bob"]
    page.goto(web_server.url + "#/leaderboard/classic")
    page.locator("#standings table").wait_for()
    rows = page.locator("#standings tbody tr")
    assert rows.count() == 2
    shown = {rows.nth(i).inner_text().split()[1] for i in range(2)}
    assert shown == {"ada", "bob"}
    assert page.inner_text("#world") == "classic"
    _screenshot(page, tmp_path, "leaderboard")
