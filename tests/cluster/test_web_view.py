"""The web page's live view of a game another node holds, in a real headless Chromium:
the page and its WebSocket are served by one node, the game is played on another."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.web.conftest import browser, page, wait_for_text

from .conftest import Cluster, eventually

__all__ = ["browser", "page"]


def _web(node: Any) -> str:
    return str(node.wait_for(r"web page listening.*?url=(http://[^\s]+)").group(1))


def test_the_live_view_of_another_node_s_game_shows_its_moves(
    cluster: Cluster, page: Any, tmp_path: Path
) -> None:
    a, b = cluster.node(), cluster.node("--http-port", "0")
    ada = a.client()
    assert ada.ask("HELLO ada") == "GOLD 3"
    assert ada.ask("CREATE arena classic").startswith("GAME arena ")
    assert ada.ask("JOIN arena").startswith("GAME arena ")
    eventually(lambda: "arena" in b.client().games(), "B lists arena")
    page.goto(_web(b) + "#/watch/arena")
    # The board is A's game, carried through B: ada is on it by name.
    page.locator(".tag[data-player='ada']").wait_for()
    rows = page.evaluate("() => window.dodViewer.rows()")
    assert any("P" in row for row in rows)
    # One step (the first direction not walled): the board must show ada elsewhere.
    assert any(ada.ask(f"MOVE {direction}") == "SUCCESS" for direction in "NESW")
    # The moves made on A reach the page on B, pushed over its WebSocket: no reload.
    page.locator(".card[data-player='ada']", has_text=re.compile(r"moves\s*[1-9]")).wait_for()
    assert page.evaluate("() => window.dodViewer.rows()") != rows
    wait_for_text(page, "#events", "ada")  # A's pushed lines, told on B's page
    shot = tmp_path / "remote-live.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 5000
