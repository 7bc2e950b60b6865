"""The web face's view of tournaments that ``dod-arena`` workers play: a real
``dod-server`` recording into a real PostgreSQL that holds a tournament in progress,
the JSON API, its bounds, and the page in a real Chromium moving as results are stored.
The worker's side is played here through :mod:`arena.queue` itself (claim, finish), so
each step is one the test controls."""

from __future__ import annotations

import contextlib
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
import trio
from psycopg.types.json import Jsonb

from dungeon_of_doom.arena import cli as arena
from dungeon_of_doom.arena import queue
from dungeon_of_doom.records.journal import to_json
from dungeon_of_doom.records.model import GameRecord, PlayerResult
from dungeon_of_doom.records.store import Store
from dungeon_of_doom.server.web import serve_web
from dungeon_of_doom.server.web.tournaments import PAGES_APPLICATION

from ..conftest import StartServer
from ..helpers import TIMEOUT
from .conftest import WebServer, start_web_server, wait_for_text
from .test_operations import _get as _get_async

NAMES = ["ada", "bob", "cy"]
PAIRS = [["ada", "bob"], ["ada", "cy"], ["bob", "cy"]]


def _spec(names: list[str]) -> dict[str, Any]:
    return {
        "format": "round-robin",
        "entrants": names,
        "names": names,
        "players": 2,
        "worlds": ["battle"],
        "maps": [None],
        "seeds": [1],
        "rounds": 5,
        "games": None,
    }


def _record(tournament: str, number: int, winner: str, loser: str) -> dict[str, Any]:
    at = datetime(2026, 11, 25, tzinfo=UTC)
    record = GameRecord(
        id=f"{tournament}-{number}-id",
        game=f"{tournament}-{number}",
        world="battle",
        map=None,
        seed=1,
        dialect="2013",
        started=at,
        ended=at,
        rounds=7,
        end="all players left",
        replay=None,
        players=(
            PlayerResult(1, winner, "bot", "win", 3, 7, 1),
            PlayerResult(2, loser, "bot", "lose", 0, 7, 2),
        ),
    )
    return {"record": to_json(record), "over": True, "joined": True, "worker": "w"}


@contextlib.contextmanager
def _server(tmp_path: Path, *args: str) -> Iterator[WebServer]:
    started = start_web_server(tmp_path, *args)
    try:
        yield next(started)
    finally:
        started.close()


def _get(url: str) -> tuple[int, dict[str, Any], int]:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            body = answer.read()
            return answer.status, json.loads(body), len(body)
    except urllib.error.HTTPError as error:
        body = error.read()
        return error.code, json.loads(body), len(body)


@pytest.fixture
def queued(postgres_url: str) -> Iterator[psycopg.Connection[Any]]:
    """The arena's tables in a records store, with tournament ``live`` of three matches
    queued; the connection a worker would use."""
    Store(postgres_url).migrate()
    connection = queue.connect(postgres_url)
    queue.ensure_schema(connection)
    queue.submit(
        connection, "live", _spec(NAMES), [{"world": "battle", "entrants": p} for p in PAIRS]
    )
    try:
        yield connection
    finally:
        connection.close()


def test_the_page_moves_as_workers_claim_and_store_results(
    tmp_path: Path,
    page: Any,
    queued: psycopg.Connection[Any],
    postgres_url: str,
) -> None:
    with _server(tmp_path, "--db", postgres_url) as server:
        page.goto(server.url + "#/tournaments")
        wait_for_text(page, "tr[data-tournament=live] .done", "0 / 3")
        page.click("a[href='#/tournaments/live']")
        wait_for_text(page, "#progress #done", "0")
        wait_for_text(page, "#progress #waiting", "3")
        wait_for_text(page, "#matches tr[data-match='0'] .state", "waiting")

        claimed = queue.claim(queued, "host-a:1", lease=600)
        assert claimed is not None
        wait_for_text(page, "#progress #playing", "1")
        wait_for_text(page, "#progress #workers", "1")
        wait_for_text(page, "#matches tr[data-match='0']", "being played by host-a:1")

        assert queue.finish(queued, claimed, "host-a:1", _record("live", 0, "ada", "bob"))
        wait_for_text(page, "#progress #done", "1")
        wait_for_text(page, "#progress #workers", "0")
        wait_for_text(page, "#standings tr[data-bot=ada] .games", "1")
        wait_for_text(page, "#standings tbody tr:first-child", "ada")
        wait_for_text(page, "#matches tr[data-match='0']", "1. ada (win, gold 3)")

        page.goto(server.url + "#/tournaments")
        wait_for_text(page, "tr[data-tournament=live] .done", "1 / 3")


def test_the_api_shows_what_dod_arena_status_shows(
    tmp_path: Path,
    queued: psycopg.Connection[Any],
    postgres_url: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for number, (winner, loser) in enumerate([("ada", "bob"), ("cy", "ada")]):
        claimed = queue.claim(queued, f"w{number}", lease=600)
        assert claimed is not None and claimed.number == number
        queue.finish(queued, claimed, f"w{number}", _record("live", number, winner, loser))
    assert queue.claim(queued, "w9", lease=600) is not None  # match 2 being played
    assert arena.main(["status", "--db", postgres_url, "--tournament", "live", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert arena.main(["status", "--db", postgres_url, "--tournament", "live"]) == 0
    assert capsys.readouterr().out.startswith(
        "tournament live: 2 of 3 games done, 1 being played, 0 waiting "
        "(3 claims, 0 failed; workers holding a lease: 1)\n"
    )
    with _server(tmp_path, "--db", postgres_url) as server:
        code, listed, _ = _get(server.url + "api/tournaments")
        assert code == 200
        [live] = listed["tournaments"]
        expected = {"done": 2, "playing": 1, "waiting": 0, "failed": 0, "workers": 1}
        assert {k: live[k] for k in expected} == expected
        assert (live["entrants"], live["games"], live["claims"], live["finished"]) == (
            3,
            3,
            3,
            None,
        )
        code, one, _ = _get(server.url + "api/tournaments/live")
        assert code == 200
        assert one["table"] == status["table"]
        assert [m["state"] for m in one["matches"]] == ["done", "done", "playing"]
        assert one["matches"][2]["worker"] == "w9"
        assert one["matches"][1]["result"]["players"][0]["name"] == "cy"
        # Who plays is shown by name; the commands they run (which may hold secrets) never.
        assert "entrants" not in one["tournament"] or one["tournament"]["entrants"] == 3
        assert status["done"] == one["tournament"]["done"] == 2
        assert _get(server.url + "api/tournaments/nobody")[:2] == (
            404,
            {"error": "no tournament called nobody"},
        )
        code, refused, _ = _get(server.url + "api/tournaments/no%20such")
        assert code == 400 and "1 to 18 letters" in refused["error"]


def test_a_store_without_the_arenas_tables_says_so_plainly(tmp_path: Path, page: Any) -> None:
    with _server(tmp_path, "--db", f"sqlite:///{tmp_path / 'records.db'}") as server:
        code, body, _ = _get(server.url + "api/tournaments")
        assert code == 404 and body["error"].startswith("no tournaments here")
        assert _get(server.url + "api/tournaments/live")[0] == 404
        page.goto(server.url + "#/tournaments")
        wait_for_text(page, "#tournaments", "holds no dod-arena tables")
    # The server gone (restarting, say): the page says so and keeps trying, raising nothing.
    wait_for_text(page, "#tournaments", "the server did not answer")
    with _server(tmp_path, "--no-db") as server:
        code, body, _ = _get(server.url + "api/tournaments")
        assert (code, body) == (404, {"error": "this server keeps no records (--db)"})


def test_a_tournament_of_ten_thousand_matches_is_served_a_page_at_a_time(
    tmp_path: Path,
    postgres_url: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    names = [f"bot{n}" for n in range(10)]
    Store(postgres_url).migrate()
    with queue.connect(postgres_url) as connection:
        queue.ensure_schema(connection)
        queue.submit(connection, "big", _spec(names), [])
        connection.execute(
            "INSERT INTO arena_matches (tournament, number, spec) SELECT 'big', n, "
            "jsonb_build_object('world', 'battle', 'entrants', "
            "jsonb_build_array('bot' || (n % 10), 'bot' || ((n + 1 + (n / 10) % 9) % 10))) "
            "FROM generate_series(0, 9999) AS n"
        )
        # 2,500 results, stored out of order: match 7 is still being played.
        done = [n for n in range(2501) if n != 7]
        with connection.cursor() as cursor:
            cursor.executemany(
                "UPDATE arena_matches SET state = 'done', attempts = 1, result = %s "
                "WHERE tournament = 'big' AND number = %s",
                [
                    (
                        Jsonb(
                            _record("big", n, f"bot{n % 10}", f"bot{(n + 1 + (n // 10) % 9) % 10}")
                        ),
                        n,
                    )
                    for n in done
                ],
            )
        connection.execute(
            "UPDATE arena_matches SET state = 'playing', worker = 'slow', attempts = 1, "
            "lease_until = now() + interval '1 hour' WHERE tournament = 'big' AND number = 7"
        )
    assert arena.main(["status", "--db", postgres_url, "--tournament", "big", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["done"] == 2500 and status["recorded"] == 2500
    with _server(tmp_path, "--db", postgres_url) as server:
        big = server.url + "api/tournaments/big"
        code, first, size = _get(big)
        assert code == 200
        assert len(first["matches"]) == 100 and first["next"] == 100
        assert first["tournament"]["games"] == 10_000
        # The table is read a batch of results a look, never all 2,500 at once.
        assert (first["table_complete"], first["table_recorded"]) == (False, 1000)
        assert size < 100_000
        looks = 1
        while not first["table_complete"]:
            first = _get(big)[1]
            looks += 1
        assert looks == 3 and first["table_recorded"] == 2500
        assert first["table"] == status["table"]
        code, widest, size = _get(big + "?from=9800&count=500")
        assert (code, len(widest["matches"]), widest["next"]) == (200, 200, None)
        code, full, size = _get(big + "?count=500")
        assert (len(full["matches"]), full["next"]) == (500, 500) and size < 500_000
        code, playing, _ = _get(big + "?state=playing")
        assert [m["number"] for m in playing["matches"]] == [7] and playing["next"] is None
        code, done_page, _ = _get(big + "?state=done&from=2400")
        assert [m["number"] for m in done_page["matches"]] == list(range(2400, 2500))
        assert _get(f"{big}?state=done&from={done_page['next']}")[1]["matches"][0]["number"] == 2500
        for query, word in (
            ("count=501", "count"),
            ("count=0", "count"),
            ("from=-1", "from"),
            ("from=x", "from"),
            ("state=lost", "state"),
        ):
            code, refused, _ = _get(f"{big}?{query}")
            assert code == 400 and refused["error"].startswith(word), (query, refused)


async def test_the_web_face_closes_its_tournament_store_when_it_stops(
    start_server: StartServer, queued: psycopg.Connection[Any], postgres_url: str
) -> None:
    # Before: the store the tournament pages opened on first use was never closed, so
    # its pooled connection to PostgreSQL outlived the web face that opened it.
    server = await start_server(map="tiny", db=postgres_url, http_port=0)
    writer = server.ladder.writer
    assert writer is not None
    with trio.fail_after(TIMEOUT):
        await writer.ready()
    watcher = await trio.to_thread.run_sync(lambda: psycopg.connect(postgres_url, autocommit=True))

    def pages() -> int:
        """The pages' own connections to the test's database."""
        row = watcher.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND application_name = %s",
            (PAGES_APPLICATION,),
        ).fetchone()
        assert row is not None
        return int(row[0])

    try:
        assert await trio.to_thread.run_sync(pages) == 0
        async with trio.open_nursery() as web_nursery:
            web = await web_nursery.start(serve_web, server)
            status, _, _ = await _get_async(web.url + "api/tournaments")
            assert status == 200
            assert await trio.to_thread.run_sync(pages) == 1  # the pages' store
            web_nursery.cancel_scope.cancel()
        # PostgreSQL ends a backend a moment after its client closes the connection.
        with trio.fail_after(TIMEOUT):
            while await trio.to_thread.run_sync(pages):
                await trio.sleep(0.05)
    finally:
        watcher.close()
