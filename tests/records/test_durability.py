"""What a crash or a locked database may cost the records: a real ``kill -9``, a real
lock held by another process, a bounded backlog and prompt answers while it lasts."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import structlog
import trio
import trio.testing

from records.store import Store
from records.writer import MAX_BATCH, RecordWriter
from server.app import Server
from server.setup.config import ServerConfig

from ..helpers import TIMEOUT, Peer, bound_port
from ..limits import process_limit
from ..server.test_cli import SCRIPT, _started
from .test_server_records import named

LOCKER = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
if sys.argv[2] == "readers-too":
    connection.execute("PRAGMA locking_mode=EXCLUSIVE")
connection.execute("BEGIN EXCLUSIVE")
connection.execute("CREATE TABLE IF NOT EXISTS held (x)")
sys.stdout.write("locked\\n")
sys.stdout.flush()
sys.stdin.read()
"""
"""Holds SQLite's write lock on a database (and, ``readers-too``, keeps readers out)
until its standard input closes: another program using the same file."""


@asynccontextmanager
async def locked(database: Path, mode: str = "writers") -> AsyncIterator[None]:
    """The database locked by another process for the body."""
    process = await trio.lowlevel.open_process(
        [sys.executable, "-c", LOCKER, str(database), mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        with trio.fail_after(TIMEOUT):
            assert process.stdout is not None
            said = b""
            while not said.endswith(b"\n"):
                chunk = await process.stdout.receive_some(100)
                assert chunk, "the locker exited"
                said += chunk
            assert said == b"locked\n"
        yield
    finally:
        assert process.stdin is not None
        await process.stdin.aclose()
        with trio.fail_after(TIMEOUT):
            await process.wait()


async def _one_game(port: int) -> None:
    """A game that ends: its player is told ``BYE`` and the connection closes."""
    peer = await Peer.connect(port)
    assert (await peer.ask("HELLO"))[0].startswith("GOLD")
    await peer.ask("MOVE W")
    await peer.send("QUIT\n")
    assert (await peer.read_to_end()).startswith(b"BYE")


async def _events(
    process: trio.Process, start: bytes, wanted: str, total: int
) -> list[dict[str, object]]:
    """Read a server's JSON log (``start``: what was read of it already) until the
    ``new`` counts of ``wanted`` events reach ``total``; the events seen."""
    seen: list[dict[str, object]] = []
    buffer = start
    count = 0
    with trio.fail_after(TIMEOUT * 3):
        while True:
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                if line.startswith(b"{"):
                    event = json.loads(line)
                    seen.append(event)
                    if event["event"] == wanted:
                        count += int(event.get("new", 1))
            if count >= total:
                return seen
            chunk = await process.stderr.receive_some(4096)  # type: ignore[union-attr]
            assert chunk, f"the server exited: {buffer[-2000:]!r}"
            buffer += chunk


async def test_kill_9_loses_no_game_whose_end_was_told(tmp_path: Path) -> None:
    """Games end while another program holds the database, so their records can only
    wait; the server is killed with ``kill -9`` right after its players were told; the
    next server on the same folder writes every one of them."""
    database = tmp_path / "records.db"
    url = f"sqlite:///{database}"
    Store(url).migrate()
    command = [SCRIPT, "--port", "0", "--map", "tiny", "--no-http", "--db", url]
    command += ["--replay-dir", str(tmp_path / "replays"), "--log-format", "json"]
    command += ["--store-busy-timeout", "0.05"]
    games = 30
    first = await trio.lowlevel.open_process(
        command, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    try:
        port, _ = await _started(first)
        async with locked(database):
            for _ in range(games):
                await _one_game(port)  # each told BYE: the game's end is known
            first.send_signal(signal.SIGKILL)
            with trio.fail_after(TIMEOUT):
                assert await first.wait() == -signal.SIGKILL
        assert Store(url).games() == [], "nothing could reach the store before the kill"
    finally:
        first.kill()
    second = await trio.lowlevel.open_process(
        command, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    try:
        _, start = await _started(second)
        seen = await _events(second, start, "games recorded", games)
        found = [e for e in seen if e["event"] == "unwritten games found in the journal"]
        assert found and found[0]["games"] == games
    finally:
        second.send_signal(signal.SIGTERM)
        with trio.fail_after(TIMEOUT * 2):
            await second.wait()
    rows = Store(url).games()
    assert len(rows) == games == len({row.game["id"] for row in rows})
    assert not list((tmp_path / "records-unwritten").iterdir()), "the journal is emptied"


async def test_a_full_backlog_refuses_new_games_with_a_clear_line(tmp_path: Path) -> None:
    database = tmp_path / "records.db"
    url = f"sqlite:///{database}"
    Store(url).migrate()
    config = ServerConfig(
        port=0, map="tiny", db=url, max_unwritten_games=3, store_busy_timeout=0.05
    )
    server = Server(config)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        writer = server.ladder.writer
        assert writer is not None
        with trio.fail_after(TIMEOUT):
            await writer.ready()
        with structlog.testing.capture_logs() as logs:
            async with locked(database):
                for _ in range(3):
                    await _one_game(bound_port(server))
                late = await Peer.connect(bound_port(server))
                assert await late.ask("HELLO") == [
                    "ERROR the server cannot begin a game now: 3 finished games wait to be "
                    "recorded; try again later"
                ]
                assert await late.ask("LOOK") == [
                    "ERROR the server cannot begin a game now: 3 finished games wait to be "
                    "recorded; try again later"
                ], "still refused, still connected"
            with trio.fail_after(TIMEOUT * 3):
                await writer.drained()
            assert (await late.ask("HELLO"))[0].startswith("GOLD"), "accepted once written"
        events = [e["event"] for e in logs]
        assert events.count("new games refused") == 1
        assert "new games accepted again" in events
        server.shutdown()
    assert len(Store(url).games()) == 4


class SignallingStore(Store):
    """A store that says when a write has begun."""

    writing = threading.Event()

    def record(self, records):  # type: ignore[no-untyped-def]
        SignallingStore.writing.set()
        return super().record(records)


async def test_a_read_waits_for_one_batch_not_the_whole_backlog(tmp_path: Path) -> None:
    from .test_store import finished

    url = f"sqlite:///{tmp_path / 'r.db'}"
    # The read's limit is not what is tested (the batch it waits behind is): on a busy
    # machine a batch of a hundred games takes longer than the default five seconds.
    writer = RecordWriter(
        url, max_unwritten=None, open_store=SignallingStore, read_timeout=process_limit(work=5)
    )
    async with trio.open_nursery() as nursery:
        await nursery.start(writer.run)
        await writer.ready()
        await writer.call(Store.worlds)  # the store's first reads are done
        for seed in range(MAX_BATCH * 3):
            writer.submit(finished([("a", "win", 1), ("b", "lose", 0)], seed=seed))
        with trio.fail_after(TIMEOUT):
            await trio.to_thread.run_sync(SignallingStore.writing.wait, abandon_on_cancel=True)
        await writer.call(Store.leaderboard, "classic", 10)  # queued behind the first batch
        assert writer.written == MAX_BATCH, "answered after the first batch, not the backlog"
        await writer.drained()
        assert writer.written == MAX_BATCH * 3
        writer.close()


async def test_a_locked_database_answers_promptly_and_shutdown_keeps_the_record(
    tmp_path: Path,
) -> None:
    """Another program holds SQLite's lock, readers kept out too: ``LEADERBOARD``
    answers a clear ``ERROR`` within a few busy timeouts, shutdown ends within its
    bound, and the game it could not write is logged and kept for the next start."""
    database = tmp_path / "records.db"
    url = f"sqlite:///{database}"
    Store(url).migrate()
    config = ServerConfig(port=0, map="tiny", db=url, store_busy_timeout=0.2)
    server = Server(config)
    writer = server.ladder.writer
    assert writer is not None
    writer.flush_timeout = 2.0
    with structlog.testing.capture_logs() as logs:
        async with locked(database, "readers-too"):
            async with trio.open_nursery() as nursery:
                await nursery.start(server.run)
                ada = await named(bound_port(server), "Ada")
                started = trio.current_time()
                with trio.fail_after(TIMEOUT):  # before: two 30-second waits
                    assert await ada.ask("LEADERBOARD") == [
                        "ERROR the records are busy (the database is locked); try again later"
                    ]
                assert trio.current_time() - started < TIMEOUT
                await ada.send("QUIT\n")
                await ada.read_to_end()  # the game is over: its record cannot be written
                stopping = trio.current_time()
                server.shutdown()
            # The flush's bound, then a thread stuck in the database is abandoned.
            assert trio.current_time() - stopping < 2.0 + 5 * 0.2 + TIMEOUT / 2
    [kept] = [e for e in logs if e["event"] == "records kept for the next start"]
    assert kept["games"] == 1
    assert any(e["event"] in ("store unreachable", "store write failed") for e in logs)
    (segment,) = (tmp_path / "records-unwritten").iterdir()
    (line,) = segment.read_text().splitlines()
    assert json.loads(line)["id"] == kept["ids"][0]
    assert Store(url).games() == []


async def test_the_journal_holds_one_file_while_the_store_fails_and_none_after(
    tmp_path: Path,
) -> None:
    from .test_store import finished

    database = tmp_path / "r.db"
    journal = tmp_path / "journal"
    Store(f"sqlite:///{database}").migrate()
    writer = RecordWriter(
        f"sqlite:///{database}",
        journal=journal,
        retry_min=0.01,
        retry_max=0.02,
        busy_timeout=0.01,
    )
    async with trio.open_nursery() as nursery:
        await nursery.start(writer.run)
        await writer.ready()
        async with locked(database):
            for seed in range(20):
                writer.submit(finished([("a", "win", 1), ("b", "lose", 0)], seed=seed))
                failures = writer.failures
                with trio.fail_after(TIMEOUT):
                    while writer.failures == failures:  # a failed attempt between games
                        await trio.sleep(0.01)
            # The file sealed as the first write failed, then one for the rest of the
            # outage: not a file (and a descriptor) per attempt.
            assert len(list(journal.iterdir())) == 2
        with trio.fail_after(TIMEOUT):
            await writer.drained()
        assert writer.written == 20
        assert not list(journal.iterdir())
        writer.close()


async def test_leaderboard_answers_while_another_program_holds_the_write_lock(
    tmp_path: Path,
) -> None:
    """Readers may read while another program writes: ``LEADERBOARD`` answers with the
    table between two of the writer's attempts, not after a 30-second busy wait."""
    database = tmp_path / "records.db"
    url = f"sqlite:///{database}"
    Store(url).migrate()
    server = Server(ServerConfig(port=0, map="tiny", db=url, store_busy_timeout=0.5))
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        writer = server.ladder.writer
        assert writer is not None
        with trio.fail_after(TIMEOUT):
            await writer.ready()
        async with locked(database):
            await _one_game(bound_port(server))  # its record now waits for the lock
            with trio.fail_after(TIMEOUT):
                while not writer.failures:
                    await trio.sleep(0.01)
            ada = await named(bound_port(server), "Ada")
            with trio.fail_after(TIMEOUT):  # before: behind the writer's 30 s wait
                assert await ada.ask("LEADERBOARD") == ["LEADERBOARD classic 0"]
        with trio.fail_after(TIMEOUT * 3):
            await writer.drained()
        server.shutdown()


async def test_sigterm_ends_a_real_server_within_its_bound_while_the_database_is_locked(
    tmp_path: Path,
) -> None:
    """The issue's case: another program holds the database (readers kept out too);
    ``SIGTERM`` stops ``dod-server`` after its 10-second flush, not never, and says
    where the game it could not write is kept."""
    database = tmp_path / "records.db"
    url = f"sqlite:///{database}"
    Store(url).migrate()
    command = [SCRIPT, "--port", "0", "--map", "tiny", "--no-http", "--db", url]
    command += ["--no-replays", "--log-format", "json", "--store-busy-timeout", "0.2"]
    server = await trio.lowlevel.open_process(
        command, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    try:
        port, start = await _started(server)
        async with locked(database, "readers-too"):
            await _one_game(port)
            server.send_signal(signal.SIGTERM)
            stopping = trio.current_time()
            seen = await _events(server, start, "records kept for the next start", 1)
            with trio.fail_after(TIMEOUT):
                assert await server.wait() == 0
            assert trio.current_time() - stopping < 10 + TIMEOUT
    finally:
        server.kill()
    [kept] = [e for e in seen if e["event"] == "records kept for the next start"]
    assert kept["games"] == 1
    (segment,) = (tmp_path / "records-unwritten").iterdir()
    assert json.loads(segment.read_text())["id"] == kept["ids"][0]  # type: ignore[index]
