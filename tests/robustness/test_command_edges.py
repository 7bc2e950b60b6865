"""Start-up and shutdown as people meet them (issue 28 item 15): ``Ctrl-C``, a reader
that goes away (``| head``), ``--help``, a bot at the wrong world, JSON logs, a store
URL that can never work. Every test runs the real command as a subprocess."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from commandline import BROKEN_PIPE_STATUS, INTERRUPTED_STATUS

from ..conftest import StartServer
from ..limits import process_limit

BIN = Path(sys.executable).parent
JSON_SERVER = ["--http-port", "0", "--no-replays", "--no-db", "--log-format", "json"]


def _with_reader_gone(argv: list[str]) -> subprocess.CompletedProcess[bytes]:
    """Run ``argv`` with standard output a pipe whose reader has already gone, as
    ``… | head`` leaves it once ``head`` has read its lines."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            argv,
            stdout=write,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write)


def test_dod_knight_compare_into_a_closed_pipe_ends_quietly() -> None:
    done = _with_reader_gone([str(BIN / "dod-knight"), "--compare", "60x60"])
    assert done.stderr == b""
    assert done.returncode == BROKEN_PIPE_STATUS


def test_dod_replay_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    replay = tmp_path / "g.jsonl"
    replay.write_text(
        '{"replay":1,"game":"g","world":"classic","map":"tiny","seed":1}\n'
        '{"round":0,"join":1,"kind":"P"}\n'
        + '{"round":1,"actions":[[1,"MOVE E"]]}\n{"round":2,"actions":[[1,"MOVE W"]]}\n'
        * 50
    )
    done = _with_reader_gone([str(BIN / "dod-replay"), "--speed", "0", str(replay)])
    assert done.stderr == b""
    assert done.returncode == BROKEN_PIPE_STATUS


def _interrupt_once_running(argv: list[str]) -> tuple[int, bytes]:
    """Start ``argv``, send it SIGINT once it has written its first output, and
    return its status and standard error."""
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    try:
        assert isinstance(process.stdout, io.BufferedReader)
        assert process.stdout.read1(1), "the command ended before writing anything"
        process.send_signal(signal.SIGINT)
        _, errors = process.communicate(timeout=60)
        return process.returncode, errors
    finally:
        process.kill()


def test_ctrl_c_in_dod_generate_ends_it_without_a_traceback() -> None:
    status, errors = _interrupt_once_running(
        [str(BIN / "dod-generate"), "--count", "100000", "--width", "120", "--height", "60"]
    )
    assert b"Traceback" not in errors, errors.decode()
    assert errors.strip() == b"dod-generate: interrupted"
    assert status == INTERRUPTED_STATUS


async def test_ctrl_c_in_dod_conformance_ends_it_without_a_traceback() -> None:
    """The suite is interrupted while it waits for a server that never answers."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    process = await trio.lowlevel.open_process(
        [str(BIN / "dod-conformance"), f"127.0.0.1:{port}", "--timeout", "120"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    try:
        with trio.fail_after(process_limit()):
            held = await listeners[0].accept()  # the suite is running: it connected
        process.send_signal(signal.SIGINT)
        errors = b""
        with trio.fail_after(60):
            while chunk := await process.stderr.receive_some(65536):  # type: ignore[union-attr]
                errors += chunk
            status = await process.wait()
        await held.aclose()
    finally:
        process.kill()
        for listener in listeners:
            await listener.aclose()
    assert b"Traceback" not in errors, errors.decode()
    assert errors.strip() == b"dod-conformance: interrupted"
    assert status == INTERRUPTED_STATUS


def test_dod_baddies_help_describes_it_and_plays_nothing() -> None:
    done = subprocess.run(
        [str(BIN / "dod-baddies"), "--help"],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=process_limit(),
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.startswith(b"usage: dod-baddies")
    assert b"Enter the number" not in done.stdout, "the game started"


@pytest.mark.parametrize(
    ("bot", "world", "needs"),
    [
        ("dod-bot-baddie-lurer", "battle", "baddies"),
        ("dod-bot-knight", "classic", "knight"),
        ("dod-bot-crawler-solver", "knight", "crawler"),
        ("dod-bot-battle", "crawler", "battle"),
    ],
)
async def test_a_bot_at_the_wrong_world_names_the_world_it_needs(
    start_server: StartServer, bot: str, world: str, needs: str
) -> None:
    server = await start_server(world=world)
    done = await trio.run_process(
        [str(BIN / bot), "--port", str(server.port)],
        capture_stdout=True,
        capture_stderr=True,
        check=False,
    )
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["outcome"] == "error"
    assert result["detail"] == (
        f"this bot plays the {needs} world; the game 'default' on "
        f"127.0.0.1:{server.port} is of the {world} world"
    )
    assert done.returncode == 1


async def test_with_json_logs_every_line_on_standard_error_is_json() -> None:
    process = await trio.lowlevel.open_process(
        [str(BIN / "dod-server"), "--listen", "0", "--listen", "0:2015", *JSON_SERVER],
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    seen = b""
    try:
        with trio.fail_after(process_limit()):
            while b"web page at" not in seen:
                chunk = await process.stderr.receive_some(65536)  # type: ignore[union-attr]
                assert chunk, seen.decode()
                seen += chunk
        process.send_signal(signal.SIGTERM)
        with trio.fail_after(process_limit()):
            while chunk := await process.stderr.receive_some(65536):  # type: ignore[union-attr]
                seen += chunk
            assert await process.wait() == 0
    finally:
        process.kill()
    records = [json.loads(line) for line in seen.decode().splitlines()]  # each one JSON
    said = [record["event"] for record in records]
    assert sum(event.startswith("listening on 127.0.0.1:") for event in said) == 2
    assert any(event.startswith("web page at http://127.0.0.1:") for event in said)
    assert said[-1] == "server stopped"


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("bogus://x", "--db: the store is SQLite or PostgreSQL, not bogus"),
        ("postgresql+nodriver://u@h/d", "--db: postgresql+nodriver://u@h/d: Can't load plugin"),
    ],
)
def test_a_store_url_that_can_never_work_is_refused_at_start_up(url: str, said: str) -> None:
    done = subprocess.run(
        [str(BIN / "dod-server"), "--port", "0", "--no-http", "--no-replays", "--db", url],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=process_limit(),
        check=False,
    )
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"dod-server: error: {said}")
    assert done.returncode == 2
