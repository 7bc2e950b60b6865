"""``--workers 2`` with the default SQLite records: two processes write one file, and
every finished game of both is recorded."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from .conftest import WAIT, Client, Node

SPRINT = "name Sprint\nwin 1\n####\n#GE#\n####\n"
"""Two squares: MOVE W (or a wall), PICKUP, MOVE E wins; two players fit."""
GAMES_PER_CLIENT = 15


def _sprint(node: Node) -> str:
    """Play one game to its end on a fresh connection; its final line."""
    client = Client(node.port)
    try:
        assert client.ask("HELLO").startswith("GOLD")
        for _ in range(10):  # another player may stand in the way, or win first
            for command in ("MOVE W", "PICKUP", "MOVE E"):
                answer = client.ask(command)
                if answer.startswith(("WIN", "LOSE", "BYE")):
                    return answer
        return "unfinished"
    finally:
        client.close()


def test_both_workers_record_every_finished_game_in_one_sqlite_file(tmp_path: Path) -> None:
    database = tmp_path / "records.db"
    (tmp_path / "sprint.map").write_text(SPRINT)
    node = Node(
        "--workers",
        "2",
        "--map",
        "sprint.map",
        "--replay-dir",
        str(tmp_path / "replays"),
        "--replay-rate",
        "1000",
        "--db",
        f"sqlite:///{database}",
        cwd=tmp_path,
    )
    try:
        node.wait_for(r"(?s)cluster joined.*cluster joined")
        finals: list[str] = []

        def play() -> None:
            for _ in range(GAMES_PER_CLIENT):
                finals.append(_sprint(node))

        players = [threading.Thread(target=play) for _ in range(2)]
        for player in players:
            player.start()
        for player in players:
            player.join(WAIT)
        wins = sum(final.startswith("WIN") for final in finals)
        assert wins >= GAMES_PER_CLIENT // 2, finals
    finally:
        node.stop()  # each worker writes what it holds before it exits
    with sqlite3.connect(database) as db:
        (recorded,) = db.execute("SELECT count(*) FROM games").fetchone()
    assert recorded >= wins, node.output[-3000:]
    assert "database is locked" not in node.output
