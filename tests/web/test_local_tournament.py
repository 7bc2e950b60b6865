"""A one-machine ``dod-arena`` run (SQLite) on the web page (issue 40): its tournament on
the Tournaments tab with the contract it was played by, each match linking its replay
and its bots' logs, the replay view linking them too; the replays list with players and
results in a stated order; a player's page with places, what moves ratings, and replays."""

from __future__ import annotations

import contextlib
import json
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena import cli as arena

from .conftest import WebServer, start_web_server, wait_for_text

BOT = """
import socket, sys
port, game = sys.argv[1:3]
print("mine starts on", game)
s = socket.create_connection(("127.0.0.1", int(port)))
f = s.makefile("rw")
f.write(f"JOIN {game}\\nHELLO me\\nMOVE N\\n")
f.flush()
# The move waits for the game to start (start=full): a QUIT sent behind it would
# overtake it (docs/protocol.md), so the bot quits once its move is answered.
for line in f:
    print(line.strip())
    if line.startswith(("SUCCESS", "FAIL", "WIN", "LOSE")):
        break
f.write("QUIT\\n")
f.flush()
print(f.read().strip())
"""


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of a finished run: ``explorer`` against a bot that moves once and quits,
    two games on the default map (on ``tiny``, whose corridor is one square wide, the
    explorer gave up whenever the other bot stood in it)."""
    folder = tmp_path_factory.mktemp("local")
    (folder / "mine.py").write_text(BOT)
    code = arena.main(
        [
            "explorer",
            f"mine={sys.executable} {folder / 'mine.py'} {{port}} {{game}}",
            "--games",
            "2",
            "--sight",
            "look",
            "--servers",
            "1",
            "--dir",
            str(folder / "arena"),
            "--tournament",
            "home",
            "--json",
        ]
    )
    assert code == 0
    return folder / "arena"


@contextlib.contextmanager
def _server(tmp_path: Path, played: Path) -> Iterator[WebServer]:
    started = start_web_server(
        tmp_path,
        "--db",
        f"sqlite:///{played / 'records.db'}",
        "--replay-dir",
        str(played / "replays"),
    )
    try:
        yield next(started)
    finally:
        started.close()


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def _json(url: str) -> dict[str, Any]:
    status, body = _get(url)
    assert status == 200, body
    found: dict[str, Any] = json.loads(body)
    return found


def test_a_local_run_is_on_the_tournaments_tab_with_its_contract_replays_and_logs(
    tmp_path: Path, played: Path, page: Any
) -> None:
    """Before: a SQLite store held no tournament (404, "the workers keep them in the
    PostgreSQL database they share")."""
    with _server(tmp_path, played) as server:
        listed = _json(server.url + "api/tournaments")["tournaments"]
        assert [(t["name"], t["done"], t["games"], t["local"]) for t in listed] == [
            ("home", 2, 2, True)
        ]
        body = _json(server.url + "api/tournaments/home")
        assert (
            "what a bot may see: LOOK only (the arena refuses MAP)"
            in body["tournament"]["contract"]
        )
        assert [line["name"] for line in body["table"]] == ["explorer", "mine"]
        results = [match["result"] for match in body["matches"]]
        assert all(r["replay"] and set(r["logs"]) == {"explorer", "mine"} for r in results)
        status, log = _get(server.url + "replays/" + results[0]["logs"]["mine"])
        assert status == 200 and "mine starts on home-00000" in log
        frames = _json(server.url + f"api/replays/{results[0]['replay']}?count=1")
        assert {entry["bot"] for entry in frames["logs"]} == {"explorer", "mine"}

        page.goto(server.url + "#/tournaments/home")
        wait_for_text(page, "#contract", "LOOK only")
        wait_for_text(page, "#standings tbody tr:first-child", "explorer")
        wait_for_text(page, "#matches tr[data-match='0']", "mine's log")
        page.click("#matches tr[data-match='0'] a.replay")
        wait_for_text(page, "#status", "bots' output: explorer, mine")


def test_the_replays_list_and_a_players_page_show_results_places_and_replays(
    tmp_path: Path, played: Path, page: Any
) -> None:
    """Before: the list had no players nor results, in an order it did not state; the
    player page had no places, no replays, and ``win`` rows with a falling rating."""
    with _server(tmp_path, played) as server:
        by_time = _json(server.url + "api/replays")
        assert by_time["order"] == "time" and by_time["ordered"].startswith("newest first")
        written = [entry["written"] for entry in by_time["replays"]]
        assert written == sorted(written, reverse=True) and len(written) == 2
        for entry in by_time["replays"]:
            assert [(p["place"], p["name"], p["outcome"]) for p in entry["players"]] == [
                (1, "explorer", "win"),
                (2, "mine", "quit"),
            ]
        by_name = _json(server.url + "api/replays?order=name")["replays"]
        assert [entry["file"] for entry in by_name] == sorted(e["file"] for e in by_name)
        assert _get(server.url + "api/replays?order=size")[0] == 400
        mine = _json(server.url + "api/players/mine")
        assert [(g["outcome"], g["place"]) for g in mine["games"]] == [("quit", 2), ("quit", 2)]
        assert all(g["replay"] for g in mine["games"])

        page.goto(server.url + "#/replays")
        wait_for_text(page, "#replay-order", "newest first")
        wait_for_text(page, "#replay-list tbody tr:first-child .results", "1. explorer (win")
        page.select_option("#order", "name")
        wait_for_text(page, "#replay-order", "by name")
        page.goto(server.url + "#/player/mine")
        wait_for_text(page, "#rating-note", "Ratings come from places, not outcomes")
        wait_for_text(page, "#games-played tbody tr:first-child .place", "2")
        page.click("#games-played tbody tr:first-child a.replay")
        wait_for_text(page, "#status", "bots' output")
