"""A hostile entrant: it claims another entrant's name, tries to take more seats, and
leaves a detached (``setsid``, double-forked) process behind. It plays under its own
name only, and nothing it started outlives its match."""

from __future__ import annotations

import json
import os
import secrets
import sys
from pathlib import Path

import pytest

from dungeon_of_doom.arena import cli as arena
from dungeon_of_doom.arena.relay import rewrite
from dungeon_of_doom.arena.sandbox import probe_namespaces
from dungeon_of_doom.records.store import Store

HOSTILE = """
import os, socket, sys, time
port, game, victim, marker, flag = sys.argv[1:6]
if os.fork() == 0:  # a grandchild in a session of its own, meant to outlive the match
    os.setsid()
    if os.fork() == 0:
        with open(flag, "a") as f:
            f.write("started\\n")
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", marker])
    os._exit(0)
seats = []
for _ in range(3):  # as many seats as it can get, each under the victim's name
    try:
        s = socket.create_connection(("127.0.0.1", int(port)), timeout=5)
    except OSError:
        continue
    s.sendall(f"LOGIN {victim} guess\\nJOIN {game}\\rHELLO {victim}\\n".encode())
    seats.append(s)
for s in seats:
    s.settimeout(None)
    while s.recv(4096):
        pass
"""


def _running(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_the_relay_decides_name_and_game() -> None:
    assert rewrite("hello random", "evil", "t-1") == ("HELLO evil", None)
    assert rewrite("  JOIN   other-game", "evil", "t-1") == ("JOIN t-1", None)
    assert rewrite("LOGIN random secret", "evil", "t-1") == (
        None,
        "ERROR LOGIN is not for bots in the arena",
    )
    assert rewrite("MOVE N", "evil", "t-1") == ("MOVE N", None)


def test_a_hostile_entrant_plays_only_as_itself_and_leaves_nothing_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if (reason := probe_namespaces()) is not None:
        pytest.skip(f"bots cannot be shut in namespaces here: {reason}")
    hostile = tmp_path / "hostile.py"
    hostile.write_text(HOSTILE)
    marker = f"dod-arena-hostile-{secrets.token_hex(6)}"
    flag = tmp_path / "grandchild"
    code = arena.main(
        [
            "random",
            f"evil={sys.executable} {hostile} {{port}} {{game}} random {marker} {flag}",
            "--map",
            "tiny",
            "--games",
            "2",
            "--servers",
            "1",
            "--parallel",
            "2",
            "--game-time",
            "10",
            "--join-time",
            "10",
            "--max-moves",
            "50",
            "--dir",
            str(tmp_path / "arena"),
            "--tournament",
            "h",
            "--isolation",
            "namespaces",
            "--json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    # Its grandchildren started (one a match), and not one of them is left.
    assert flag.read_text().count("started") == 2
    assert _running(marker) == []
    # Every player row is one of the match's entrants, each under its own name.
    games = Store(f"sqlite:///{tmp_path / 'arena' / 'records.db'}").games()
    assert len(games) == 2
    for row in games:
        assert sorted(p["name"] for p in row.players) == ["evil", "random"], row.players
    assert code == 0 and report["strangers"] == {} and report["recorded"] == 2
    table = {line["name"]: line for line in report["table"]}
    assert table["evil"]["games"] == table["random"]["games"] == 2
    assert os.path.exists(tmp_path / "arena" / "records.db")
