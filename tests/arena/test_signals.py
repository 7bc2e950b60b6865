"""Ctrl-C ends a tournament at once with status 130 and one line; SIGTERM lets the games
being played finish, starts no more, and ends with 143. Real ``dod-arena`` processes."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

from dungeon_of_doom.records.store import Store

from .test_hostile import _running

# A bot that joins, says it started, and does nothing until a file tells it to quit.
IDLE = """
import os, socket, sys, time
port, game, name, flag = sys.argv[1:5]
s = socket.create_connection(("127.0.0.1", int(port)))
s.sendall(f"JOIN {game}\\nHELLO {name}\\n".encode())
with open(flag, "a") as f:
    f.write(name + "\\n")
while not os.path.exists(flag + ".quit"):
    time.sleep(0.1)
s.sendall(b"QUIT\\n")
while s.recv(4096):
    pass
"""


def _arena(tmp_path: Path, *entrants: str, games: int, marker: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dungeon_of_doom.arena",
            *entrants,
            "--map",
            "tiny",
            "--games",
            str(games),
            "--servers",
            "1",
            "--parallel",
            "1",
            "--game-time",
            "300",
            "--join-time",
            "60",
            "--max-moves",
            "40",
            "--dir",
            str(tmp_path / "arena"),
            "--tournament",
            marker,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(path: Path, lines: int, process: subprocess.Popen[str]) -> None:
    """Until ``path`` has ``lines`` lines (bounded: the arena must not have ended)."""
    deadline = time.monotonic() + 120
    while not (path.exists() and len(path.read_text().splitlines()) >= lines):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the bots never started"
        time.sleep(0.1)


def test_ctrl_c_ends_a_tournament_with_130_and_one_line(tmp_path: Path) -> None:
    idle = tmp_path / "idle.py"
    idle.write_text(IDLE)
    flag = tmp_path / "started"
    marker = f"sig{secrets.token_hex(4)}"
    bot = f"{sys.executable} {idle} {{port}} {{game}} {{name}} {flag} {marker}"
    arena = _arena(tmp_path, f"a={bot}", f"b={bot}", games=20, marker=marker)
    _wait_for(flag, 2, arena)  # both bots of the first game are in
    arena.send_signal(signal.SIGINT)
    out, err = arena.communicate(timeout=60)
    assert arena.returncode == 130, err
    assert "Traceback" not in err and "Exception" not in err, err
    said = [line for line in err.splitlines() if "interrupted" in line]
    assert said == [
        "dod-arena: interrupted (SIGINT) after 0 of 20 games; servers stopped, bots killed"
    ]
    assert out == ""
    assert _running(marker) == []  # the bots (and the servers' children) are gone


def test_sigterm_finishes_the_games_being_played_and_starts_no_more(tmp_path: Path) -> None:
    flag = tmp_path / "started"
    marker = f"term{secrets.token_hex(4)}"
    # The idle bot holds the first game open until the arena has taken the SIGTERM in;
    # then it quits, `random` plays its 40 moves and quits, and the game is over.
    idle = tmp_path / "idle.py"
    idle.write_text(IDLE)
    bot = f"{sys.executable} {idle} {{port}} {{game}} {{name}} {flag} {marker}"
    arena = _arena(tmp_path, "random", f"idle={bot}", games=6, marker=marker)
    _wait_for(flag, 1, arena)
    arena.send_signal(signal.SIGTERM)
    assert arena.stderr is not None
    seen: list[str] = []
    while not (line := arena.stderr.readline()).startswith("dod-arena: SIGTERM"):
        assert line, seen
        seen.append(line)
    Path(f"{flag}.quit").write_text("")
    _, err = arena.communicate(timeout=300)
    assert arena.returncode == 143, err
    assert "Traceback" not in err, err
    assert "dod-arena: stopped by SIGTERM after 1 of 6 games, each of them finished" in err
    games = Store(f"sqlite:///{tmp_path / 'arena' / 'records.db'}").games()
    assert [row.game["game"] for row in games] == [f"{marker}-00000"]
    assert os.path.exists(tmp_path / "arena" / "server-0.log")
