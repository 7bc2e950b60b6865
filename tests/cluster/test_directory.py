"""The cluster's directory of games: one name space and one GAMES list over every node."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

from .conftest import ROOT, WAIT, Client, Cluster, database_link, eventually


def test_a_game_created_on_one_node_is_listed_on_another(cluster: Cluster) -> None:
    a, b = cluster.node(), cluster.node()
    ada, bob = a.client(), b.client()
    assert ada.ask("CREATE arena classic").startswith("GAME arena ")
    eventually(lambda: "arena" in bob.games(), "B lists the game created on A")
    assert bob.games().count("default") == 1  # each node's own default, never two
    assert bob.ask("CREATE arena classic") == "ERROR there is already a game called arena"
    assert ada.ask("JOIN arena").startswith("GAME arena ")
    assert ada.ask("QUIT").startswith("BYE")  # its one player leaves: the game is over
    eventually(lambda: "arena" not in bob.games(), "the removed game leaves B's list")
    assert bob.ask("CREATE arena classic").startswith("GAME arena ")  # the name is free again


def _race(ada: Client, bob: Client, name: str) -> dict[str, str]:
    """Both clients send ``CREATE name`` at once; each one's answer."""
    answers: dict[str, str] = {}
    go = threading.Barrier(2)

    def create(who: str, client: Client) -> None:
        go.wait()
        answers[who] = client.ask(f"CREATE {name} classic")

    threads = [threading.Thread(target=create, args=pair) for pair in (("a", ada), ("b", bob))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_two_nodes_racing_for_one_name_give_it_to_one(cluster: Cluster) -> None:
    a, b = cluster.node(), cluster.node()
    for round_ in range(5):
        ada, bob = a.client(), b.client()
        name = f"race{round_}"
        answers = _race(ada, bob, name)
        won = [who for who, answer in answers.items() if answer.startswith("GAME ")]
        lost = [answer for answer in answers.values() if answer.startswith("ERROR")]
        assert len(won) == 1 and lost == [f"ERROR there is already a game called {name}"], answers
        loser = bob if won == ["a"] else ada
        eventually(
            lambda: loser.games().count(name) == 1,  # noqa: B023 (used before the loop moves on)
            "the loser's node lists the winner's game, once",
        )


def test_a_killed_node_s_games_leave_every_list_and_free_their_names(cluster: Cluster) -> None:
    a, b = cluster.node(), cluster.node()
    ada, bob = a.client(), b.client()
    assert ada.ask("CREATE doomed classic").startswith("GAME doomed ")
    eventually(lambda: "doomed" in bob.games(), "B lists A's game")
    a.kill()
    eventually(lambda: "doomed" not in bob.games(), "A's game leaves B's list")
    assert bob.ask("CREATE doomed classic").startswith("GAME doomed ")


def test_a_lost_database_stops_no_game_and_the_node_rejoins(cluster: Cluster) -> None:
    link, through_link = database_link(cluster)
    try:
        a = cluster.node("--cluster", through_link)
        b = cluster.node()
        ada, bob = a.client(), b.client()
        assert ada.ask("CREATE kept classic").startswith("GAME kept ")
        assert ada.ask("JOIN kept").startswith("GAME kept ")
        eventually(lambda: "kept" in bob.games(), "B lists A's game")
        link.cut()
        assert ada.ask("CREATE more classic").startswith(
            "ERROR the cluster's directory cannot be reached"
        )
        assert ada.ask("LOOK") == "LOOKREPLY"  # the game already placed plays on
        eventually(lambda: "kept" not in bob.games(), "A, silent, is gone from B's list")
        link.heal()
        eventually(lambda: "kept" in bob.games(), "A rejoins and its game is listed again")
        eventually(
            lambda: ada.ask("CREATE more classic").startswith("GAME more "),
            "A creates games again",
        )
    finally:
        link.cut()


def test_a_redirect_is_answered_at_once_when_its_node_finds_the_database_gone(
    cluster: Cluster,
) -> None:
    # Before: the sync the REDIRECT waits for failed, nothing woke the wait, and the
    # answer came only when SETTLE_TIMEOUT (5 s) ran out.
    link, through_link = database_link(cluster)
    try:
        a = cluster.node()
        # A heartbeat of a minute: B finds the database gone only through the sync the
        # REDIRECT asks for, never on a beat of its own before it.
        b = cluster.node("--cluster", through_link, "--heartbeat", "60")
        ada, probe = a.client(), a.client()
        assert ada.ask("CREATE arena classic").startswith("GAME arena ")
        bob = b.client()
        eventually(lambda: "arena" in bob.games(), "B lists A's game")
        assert bob.ask("EXTEND redirect") == "EXTENDED redirect"
        assert bob.ask("HELLO Bob") == "GOLD 3"
        eventually(
            lambda: probe.ask("HELLO Bob").startswith("ERROR Bob is playing on another node"),
            "A sees Bob on B",
        )
        link.cut()
        asked = time.monotonic()
        assert bob.ask("JOIN arena") == f"REDIRECT arena 127.0.0.1:{a.port}"
        assert time.monotonic() - asked < 4.0  # SETTLE_TIMEOUT is 5 s
        b.wait_for("cluster directory unreachable")
    finally:
        link.cut()


def test_a_hello_is_answered_at_once_when_its_node_finds_the_database_gone(
    cluster: Cluster,
) -> None:
    # Before: the round trip a HELLO of a name played elsewhere waits for failed, nothing
    # woke the wait, and the answer came only when SETTLE_TIMEOUT (5 s) ran out.
    link, through_link = database_link(cluster)
    try:
        a = cluster.node()
        # A heartbeat of a minute: B finds the database gone only through the round
        # trip the HELLO asks for, never on a beat of its own before it.
        b = cluster.node("--cluster", through_link, "--heartbeat", "60")
        bob, probe = a.client(), b.client()
        assert bob.ask("HELLO Bob") == "GOLD 3"
        refusal = "ERROR Bob is playing on another node of this cluster; choose another name"
        eventually(lambda: probe.ask("HELLO Bob") == refusal, "B sees Bob on A")
        # A JOIN of a game nobody holds is answered once B's copy has caught up with the
        # directory: B's copy knows Bob is A's from then on.
        assert probe.ask("JOIN nowhere").startswith("ERROR there is no game called nowhere")
        link.cut()
        asked = time.monotonic()
        assert probe.ask("HELLO Bob") == refusal  # from the local copy
        assert time.monotonic() - asked < 4.0  # SETTLE_TIMEOUT is 5 s
        b.wait_for("cluster directory unreachable")
    finally:
        link.cut()


def test_a_node_that_stops_leaves_the_directory_at_once(cluster: Cluster) -> None:
    # A heartbeat of a minute: only the node's leaving can take its game off B's list.
    a, b = cluster.node("--heartbeat", "60"), cluster.node()
    ada, bob = a.client(), b.client()
    assert ada.ask("CREATE brief classic").startswith("GAME brief ")
    eventually(lambda: "brief" in bob.games(), "B lists A's game")
    a.stop()
    a.wait_for("cluster left")
    eventually(lambda: "brief" not in bob.games(), "A's game leaves B's list")


def _status(url: str) -> list[str]:
    status = subprocess.run(
        [sys.executable, "-m", "dungeon_of_doom.server", "--cluster", url, "--cluster-status"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=WAIT,
    )
    assert status.returncode == 0, status.stderr
    return status.stdout.splitlines()


def test_cluster_status_lists_the_nodes_and_their_games(cluster: Cluster) -> None:
    a, b = cluster.node(), cluster.node()
    creator = a.client()  # kept: a game whose creator leaves before anyone joins goes
    assert creator.ask("CREATE shown classic").startswith("GAME shown ")
    shown = "  GAME shown world=classic map=default seed=0 players=0 limit=100 watchers=0"
    lines: list[str] = []

    def described() -> bool:
        lines[:] = _status(cluster.url)
        return any(line.startswith(shown) for line in lines)

    eventually(described, "the game is described (its world built and published)")
    assert lines[0] == "2 node(s)"
    assert any(f"at 127.0.0.1:{a.port} " in line and "1 game(s)" in line for line in lines)
    assert any(f"at 127.0.0.1:{b.port} " in line and "0 game(s)" in line for line in lines)
