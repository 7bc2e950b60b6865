"""A node told to stop with --drain-timeout lets its games finish first."""

from __future__ import annotations

import signal
import urllib.error
import urllib.request
from pathlib import Path

from dungeon_of_doom.records.store import Store

from .conftest import WAIT, Cluster, Node, eventually


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=WAIT) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


def test_sigterm_drains_running_games_then_stops_with_every_record(tmp_path: Path) -> None:
    node = Node(
        "--no-replays",
        "--drain-timeout",
        "600",
        "--http-port",
        "0",
        "--db",
        f"sqlite:///{tmp_path / 'records.db'}",
        cwd=tmp_path,
    )
    web = node.wait_for(r"web page at (http://\S+)").group(1).rstrip("/")
    ada, bob = node.client(), node.client()
    assert ada.ask("EXTEND chat") == "EXTENDED chat"
    assert ada.ask("HELLO Ada") == "GOLD 3"
    assert ada.ask("CREATE last classic").startswith("GAME last ")
    assert ada.ask("JOIN last").startswith("GAME last ")
    assert _status(f"{web}/readyz") == 200
    node.process.send_signal(signal.SIGTERM)
    assert ada.line().startswith("MESSAGE this server is stopping; running games may finish")
    node.wait_for("server draining")
    assert _status(f"{web}/readyz") == 503  # at once, while games still run
    assert node.client().line() == "BYE the server is shutting down; goodbye"  # no new client
    assert bob.ask("CREATE another classic") == (
        "ERROR this server is stopping and takes no new games; create it on another"
    )
    assert ada.ask("MOVE N") in ("SUCCESS", "FAIL")  # the running game plays on
    assert ada.ask("QUIT").startswith("BYE")  # its last player leaves: it ends
    assert node.process.wait(timeout=WAIT) == 0  # and the server stops, well before 600 s
    names = [
        [player["name"] for player in game.players]
        for game in Store(f"sqlite:///{tmp_path / 'records.db'}").games()
    ]
    assert ["Ada"] in names  # the game that ended while draining is recorded


def test_a_draining_node_tells_carried_players_and_leaves_when_done(cluster: Cluster) -> None:
    a, b = cluster.node("--drain-timeout", "600"), cluster.node()
    ada, bob, bea = a.client(), b.client(), b.client()
    assert ada.ask("CREATE finale classic").startswith("GAME finale ")
    assert ada.ask("JOIN finale").startswith("GAME finale ")
    eventually(lambda: "finale" in bob.games(), "B lists A's game")
    assert bob.ask("EXTEND chat") == "EXTENDED chat"
    assert bob.ask("JOIN finale").startswith("GAME finale ")  # carried to A
    a.process.send_signal(signal.SIGTERM)
    assert bob.line().startswith("MESSAGE this server is stopping")  # through the relay
    assert bea.ask("CREATE elsewhere classic").startswith("GAME elsewhere ")  # B takes games
    assert bob.ask("LOOK") == "LOOKREPLY"  # the game on A plays on
    for _ in range(5):
        bob.line()
    assert ada.ask("QUIT").startswith("BYE")
    assert bob.ask("QUIT").startswith("BYE")  # the last player leaves: the game ends
    assert a.process.wait(timeout=WAIT) == 0
    eventually(lambda: "finale" not in bea.games(), "A's game leaves B's list")
