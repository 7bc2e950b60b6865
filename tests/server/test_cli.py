"""The installed ``dod-server`` console script, run as a real subprocess."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import trio

from ..helpers import TIMEOUT, Peer

SCRIPT = str(Path(sys.executable).with_name("dod-server"))


async def _started(process: trio.Process) -> tuple[int, bytes]:
    """Read standard error until the server says where it listens."""
    seen = b""
    with trio.fail_after(TIMEOUT):
        while (match := re.search(rb"listening on 127\.0\.0\.1:(\d+)\n", seen)) is None:
            chunk = await process.stderr.receive_some(4096)  # type: ignore[union-attr]
            assert chunk, f"server exited early: {seen!r}"
            seen += chunk
    return int(match.group(1)), seen


async def test_console_script_answers_hello_and_stops_on_sigterm() -> None:
    process = await trio.lowlevel.open_process(
        [SCRIPT, "--port", "0", "--map", "tiny", "--log-format", "json"],
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    try:
        port, seen = await _started(process)
        peer = await Peer.connect(port)
        assert await peer.ask("HELLO") == ["GOLD 1"]
        process.send_signal(signal.SIGTERM)
        assert await peer.read_to_end() == b"BYE the server is shutting down; goodbye\n"
        with trio.fail_after(TIMEOUT):
            assert await process.wait() == 0
            while chunk := await process.stderr.receive_some(4096):  # type: ignore[union-attr]
                seen += chunk
    finally:
        process.kill()
    records = [json.loads(line) for line in seen.decode().splitlines() if line.startswith("{")]
    events = [record["event"] for record in records]
    assert events[0] == "server listening"
    assert "client connected" in events and "server stopped" in events
    disconnect = next(r for r in records if r["event"] == "client disconnected")
    assert disconnect["reason"] == "server shutdown"


def test_python_dash_m_server_lists_worlds() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "server", "--list-worlds"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=True,
    )
    assert any(line.startswith("classic ") for line in result.stdout.splitlines())


def test_a_bad_map_stops_startup_with_its_place(tmp_path: Path) -> None:
    bad = tmp_path / "bad.map"
    bad.write_text("name Bad\nwin 1\n#E#\n#?#\n")
    result = subprocess.run(
        [SCRIPT, "--port", "0", "--map", str(bad)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == 2
    assert f"{bad}:4:2: unknown tile '?'" in result.stderr


def test_an_unknown_world_is_named() -> None:
    result = subprocess.run(
        [SCRIPT, "--world", "chess"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == 2
    assert "unknown world 'chess'" in result.stderr
