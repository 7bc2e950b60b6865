"""The web page in a real headless Chromium: the list, a live view, a replay, and play.

Each test takes a screenshot (kept in the test's temporary folder) and checks what the
page shows: the map's text, the players' names, the outcome.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .conftest import WebServer, start_web_server


def _screenshot(page: Any, tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 5000  # a drawn page, not a blank one
    return path


def _map_text(page: Any) -> str:
    """The rows of the level the board shows, as the server sent them."""
    rows = page.evaluate("() => window.dodViewer.rows()")
    return "\n".join(rows)


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
    assert "0 moves" in text and "round" not in text  # classic has no rounds: moves made
    assert "watch" in text and "play" in text
    _screenshot(page, tmp_path, "list")
    player.close()


def test_the_live_view_draws_the_map_and_names_the_players_as_they_move(
    web_server: WebServer, page: Any, tmp_path: Path
) -> None:
    page.goto(web_server.url + "#/watch/default")
    page.wait_for_function("() => window.dodViewer && window.dodViewer.rows().length > 0")
    before = _map_text(page)
    assert "E" in before and "G" in before  # the classic default map's exits and gold
    player = web_server.player()
    player.send("HELLO bob")
    player.read_line()
    # Bob appears on the board by name, pushed over the WebSocket: no reload.
    page.locator(".tag[data-player='bob']").wait_for()
    assert "P" in _map_text(page)
    for direction in "NESW":
        player.send(f"MOVE {direction}")
        player.read_line()
    page.locator(".card[data-player='bob']", has_text="moves").wait_for()
    assert "bob entered the dungeon" in page.inner_text("#events")
    _screenshot(page, tmp_path, "live")
    player.close()


def test_a_browser_player_and_a_tcp_player_see_each_other(
    sprint_server: WebServer, page: Any
) -> None:
    page.goto(sprint_server.url + "#/play/default")
    page.fill("#player", "carol")
    page.click("#start")
    page.locator("#look", has_text="X").wait_for()
    tcp = sprint_server.player()
    tcp.send("HELLO dave")
    tcp.read_line()
    # On a two-square map they stand side by side: each LOOK shows the other as P.
    assert any("P" in row for row in tcp.look())
    page.keyboard.press("l")
    page.locator("#look", has_text="P").wait_for()
    tcp.close()


def test_keys_play_a_game_to_a_win_and_the_replay_viewer_shows_it(
    sprint_server: WebServer, page: Any, tmp_path: Path
) -> None:
    page.goto(sprint_server.url + "#/play/default")
    page.fill("#player", "erin")
    page.click("#start")
    page.locator("#look", has_text="X").wait_for()
    page.locator("#look").focus()
    # West onto the gold (or into the wall), pick it up, east onto the exit.
    for key in ("ArrowLeft", "p", "ArrowRight"):
        page.keyboard.press(key)
    page.locator("#outcome", has_text="WIN").wait_for()
    log = page.inner_text("#log")
    assert "> PICKUP" in log and "> MOVE E" in log
    _screenshot(page, tmp_path, "win")

    page.goto(sprint_server.url + "#/replays")
    link = page.locator("#replays a").first
    link.wait_for()
    link.click()
    page.locator("#where[data-step='0']").wait_for()
    assert _map_text(page).split() == ["####", "#GE#", "####"]  # as the game began
    assert "erin" in page.inner_text("#status")
    last = int(page.get_attribute("#slider", "max"))
    assert last >= 3  # join, name, three actions at least
    page.fill("#slider", str(last))
    page.locator(f"#where[data-step='{last}']").wait_for()
    told = page.inner_text("#events")
    assert "erin picked up gold (1 of 1)" in told
    assert "erin won: You escaped the dungeon" in told and "game over" in told
    page.click("#back")
    page.locator(f"#where[data-step='{last - 1}']").wait_for()
    page.click("#play")
    page.locator(f"#where[data-step='{last}']").wait_for()
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
        page.locator("#battle", has_text="HP 3").wait_for()
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


def test_the_replay_viewer_pages_through_a_long_replay(web_server: WebServer, page: Any) -> None:
    """The server sends 200 frames a page (``/api/replays/<file>?from=N``): the viewer
    shows the first at once and fetches the rest behind it, up to the game's end."""
    player = web_server.player()
    player.send("HELLO Ada")
    moves = 450
    for step in range(moves):
        player.send("MOVE E" if step % 2 else "MOVE W")
    player.send("QUIT")
    while not player.read_line().startswith("BYE"):
        pass
    player.close()
    (replay,) = web_server.replay_dir.iterdir()
    page.goto(f"{web_server.url}#/replay/{replay.name}")
    last = 2 + moves + 2  # the join, the name, the moves, the leave and the end
    page.locator(f"#slider[max='{last}']").wait_for()  # every page read, the count known
    page.fill("#slider", str(last))
    page.locator(f"#where[data-step='{last}']").wait_for()
    assert f"step {last} of {last}" in page.inner_text("#where")
    assert "reading" not in page.inner_text("#where")
    page.locator("#events", has_text="game over").wait_for()


def test_the_play_pad_offers_the_moves_of_its_world(tmp_path: Path, page: Any) -> None:
    # Before: diagonal buttons in the classic world, whose players move four ways only.
    for world, diagonals in (("classic", False), ("baddies", True)):
        for server in start_web_server(tmp_path / world, "--world", world):
            page.goto(server.url + "#/play/default")
            page.fill("#player", "ada")
            page.click("#start")
            page.locator("#log", has_text="HELP").wait_for()
            assert page.locator(".pad button[data-key='ArrowUp']").is_visible()
            assert page.locator(".pad button[data-key='Home']").is_visible() is diagonals, world
            assert page.locator(".pad button[data-key='PageDown']").is_visible() is diagonals
