"""``python -m bench.instructions`` counts, under callgrind, what each command costs.

The counts themselves are never asserted (they are what the benchmark reports); these
tests check that a tiny script runs end to end against the real game and the bare
poll server and yields a positive count for every phase, and that replies are read
whole (a reply read short would leave lines for the next command and stall it).
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bench import instructions

pytestmark = pytest.mark.long_file

needs_valgrind = pytest.mark.skipif(
    shutil.which("valgrind") is None or shutil.which("callgrind_control") is None,
    reason="valgrind is not installed (Debian package valgrind)",
)


def _replies(data: bytes, commands: list[bytes]) -> list[bytes]:
    left, right = socket.socketpair()
    with left, right:
        left.sendall(data)
        left.shutdown(socket.SHUT_WR)
        pending = bytearray()
        replies = [instructions.read_reply(right, pending, command) for command in commands]
        assert pending == b""
        assert right.recv(1) == b""
    return replies


def test_a_reply_is_read_whole_however_many_lines_it_has() -> None:
    look = b"LOOKREPLY\nX...X\n.....\n.....\n.....\nX...X\n"
    games = b"GAMES 2\nGAME a\nGAME b\n"
    replies = _replies(
        look + b"SUCCESS\n" + games + b"FAIL not your turn\n",
        [b"LOOK\n", b"MOVE N\n", b"GAMES\n", b"MOVE S\n"],
    )
    assert replies == [look.rstrip(b"\n"), b"SUCCESS", games.rstrip(b"\n"), b"FAIL not your turn"]


def test_a_refused_command_stops_the_count() -> None:
    with pytest.raises(RuntimeError, match="LOOK was answered"):
        _replies(b"ERROR unknown command\n", [b"LOOK\n"])


def test_totals_are_read_from_a_callgrind_dump() -> None:
    assert instructions.totals("events: Ir\nsummary: 1234\n") == 1234
    assert instructions.totals("events: Ir\ntotals: 99\n") == 99
    with pytest.raises(RuntimeError):
        instructions.totals("events: Ir\n")


@needs_valgrind
def test_a_tiny_script_prints_a_positive_count_per_command(tmp_path: Path) -> None:
    figures = tmp_path / "figures.json"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.instructions",
            "--units",
            "2",
            "--warmup",
            "1",
            "--only",
            "game",
            "--only",
            "bare-poll",
            "--json",
            str(figures),
        ],
        capture_output=True,
        text=True,
        timeout=1800,  # a failure bound only: callgrind on a loaded machine is slow
        check=False,
    )
    assert result.returncode == 0, result.stderr
    rows = json.loads(figures.read_text())
    assert [(row["server"], row["phase"]) for row in rows] == [
        ("game", "LOOK"),
        ("game", "MOVE"),
        ("game", "mix"),
        ("game", "GAMES"),
        ("game", "blocked"),
        ("bare-poll", "LOOK"),
        ("bare-poll", "MOVE"),
        ("bare-poll", "mix"),
        ("bare-poll", "GAMES"),
        ("bare-poll", "blocked"),
    ]
    for row in rows:
        assert row["instructions"] > 0
        assert (
            row["commands"]
            == 2 * {"LOOK": 1, "MOVE": 4, "mix": 6, "GAMES": 1, "blocked": 1}[row["phase"]]
        )
    printed = re.findall(
        r"^(?:game|bare-poll) +\S+ +\S+ +\d+ +[\d,]+ +([\d,]+)$", result.stdout, re.MULTILINE
    )
    assert len(printed) == len(rows)
    assert all(int(per_command.replace(",", "")) > 0 for per_command in printed)
