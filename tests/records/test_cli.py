"""``dod-records``: every command against a real SQLite store, and its exits."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from records.cli import main
from records.store import Store

from .test_store import finished


@pytest.fixture
def url(tmp_path: Path) -> str:
    """A store with three classic games (a beats b, b beats c, a beats c) and one baddies."""
    url = f"sqlite:///{tmp_path / 'records.db'}"
    store = Store(url)
    store.migrate()
    for winner, loser in [("a", "b"), ("b", "c"), ("a", "c")]:
        store.record([finished([(winner, "win", 2), (loser, "lose", 0)])])
    store.record([finished([("c", "win", 1), ("a", "quit", 0)], world="baddies")])
    store.close()
    return url


def run(url: str, *argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(["--db", url, *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_leaderboard_as_json_is_per_world_best_first(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(url, "leaderboard", "--world", "classic", "--json", capsys=capsys)
    assert status == 0
    rows = json.loads(out)
    assert [(r["rank"], r["name"], r["games"], r["wins"]) for r in rows] == [
        (1, "a", 2, 2),
        (2, "b", 2, 1),
        (3, "c", 2, 0),
    ]
    status, out, _ = run(url, "leaderboard", capsys=capsys)
    assert status == 0 and "baddies" in out and "classic" in out


def test_names_that_look_like_markup_are_printed_as_they_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 36: a player called [/] made the leaderboard exit 2 (Rich read it as markup).
    url = f"sqlite:///{tmp_path / 'records.db'}"
    store = Store(url)
    store.migrate()
    store.record([finished([("[/]", "win", 2), ("[bold]x", "lose", 0)])])
    store.close()
    status, out, err = run(url, "leaderboard", capsys=capsys)
    assert status == 0, err
    assert "[/]" in out and "[bold]x" in out
    status, out, err = run(url, "history", "[/]", capsys=capsys)
    assert status == 0, err
    assert "[/]: 1 games" in out


def test_history_and_game(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(url, "history", "c", "--json", capsys=capsys)
    rows = json.loads(out)
    assert status == 0
    assert sorted((r["world"], r["outcome"]) for r in rows) == [
        ("baddies", "win"),
        ("classic", "lose"),
        ("classic", "lose"),
    ]
    game_id = rows[0]["id"]
    status, out, _ = run(url, "game", game_id[:8], "--json", capsys=capsys)
    assert status == 0 and json.loads(out)["id"] == game_id
    status, _, err = run(url, "game", "nothing", capsys=capsys)
    assert status == 2 and err.startswith("dod-records: error: no game's id begins with")


def test_exports_in_csv_and_json_hold_every_game_and_player(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(url, "export", "games", capsys=capsys)
    games = list(csv.DictReader(io.StringIO(out)))
    assert [g["world"] for g in games] == ["classic"] * 3 + ["baddies"]
    assert {"seed", "map", "dialect", "rounds", "replay", "started_at", "ended_at"} <= set(games[0])
    _, out, _ = run(url, "export", "players", "--format", "json", capsys=capsys)
    players = json.loads(out)
    assert len(players) == 8
    assert {"name", "kind", "outcome", "gold", "moves", "place", "claimed"} <= set(players[0])
    _, out, _ = run(
        url, "export", "ratings", "--world", "baddies", "--format", "json", capsys=capsys
    )
    assert [r["name"] for r in json.loads(out)] == ["c", "a"]


def test_compare_finds_the_same_games_and_names_each_difference(
    url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = f"sqlite:///{tmp_path / 'copy.db'}"
    store = Store(copy)
    store.migrate()
    for row in Store(url).games():
        players = [(p["name"], p["outcome"], p["gold"]) for p in row.players]
        store.record([finished(players, world=row.game["world"])])
    status, out, _ = run(url, "compare", copy, capsys=capsys)
    assert status == 0 and out.rstrip().endswith("identical")
    store.record([finished([("d", "win", 1), ("e", "lose", 0)], seed=9)])
    status, out, _ = run(url, "compare", copy, "--json", capsys=capsys)
    found = json.loads(out)
    # The copy's "default" games pair in order; its fifth has no partner.
    assert status == 1 and found["only_second"] == ["default#5"]
    assert found["same"] == 4 and not found["differences"]


def test_an_unreachable_store_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run("postgresql://nobody@127.0.0.1:1/none", "leaderboard", capsys=capsys)
    assert status == 2 and err.count("\n") == 1 and err.startswith("dod-records: error: ")


def test_output_cut_short_by_its_reader_ends_quietly(url: str) -> None:
    """``dod-records export games | head``: no "Broken pipe" traceback or error line."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written
    done = subprocess.run(
        [sys.executable, "-m", "records.cli", "--db", url, "export", "players"],
        stdout=write,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
    )
    os.close(write)
    assert done.stderr == ""
    assert done.returncode == 141


def test_the_arena_cut_short_by_its_reader_ends_quietly() -> None:
    """``dod-arena … | head`` with the reader gone: no "Broken pipe" error either (its
    tournament stood in for by a table too long for the pipe)."""
    table = "import arena.cli as a; a._main = lambda argv: print('x' * 1_000_000) or 0"
    read, write = os.pipe()
    os.close(read)
    done = subprocess.run(
        [sys.executable, "-c", f"{table}; raise SystemExit(a.main([]))"],
        stdout=write,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
    )
    os.close(write)
    assert done.stderr == ""
    assert done.returncode == 141
