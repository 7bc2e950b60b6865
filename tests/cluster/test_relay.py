"""JOIN and WATCH of a game another node holds: the client's node carries it there."""

from __future__ import annotations

import socket

import psycopg

from .conftest import WAIT, Client, Cluster, eventually


def _listed(client: Client, name: str) -> None:
    eventually(lambda: name in client.games(), f"{name} is listed")


def test_a_raw_client_joins_a_game_held_by_another_node_and_chats_across(
    cluster: Cluster,
) -> None:
    a, b = cluster.node(), cluster.node()
    ada, bob = a.client(), b.client()
    assert ada.ask("EXTEND events chat") == "EXTENDED events chat"
    assert ada.ask("HELLO Ada") == "GOLD 3"
    assert ada.ask("CREATE arena classic").startswith("GAME arena ")
    assert ada.ask("JOIN arena").startswith("GAME arena ")
    _listed(bob, "arena")
    assert bob.ask("EXTEND chat") == "EXTENDED chat"
    assert bob.ask("HELLO Bob") == "GOLD 3"
    assert bob.ask("JOIN arena").startswith("GAME arena world=classic map=default seed=0 players=2")
    assert ada.line() == "JOINED Bob"  # Bob joined under his name, as on one node
    assert ada.ask("SHOUT hello from A") == "MESSAGE Ada: hello from A"
    assert ada.line() == "SUCCESS"
    assert bob.line() == "MESSAGE Ada: hello from A"  # pushed through the relay
    assert bob.ask("SHOUT hi from B") == "MESSAGE Bob: hi from B"
    assert bob.line() == "SUCCESS"
    assert ada.line() == "MESSAGE Bob: hi from B"
    assert bob.ask("LOOK") == "LOOKREPLY"
    assert len([bob.line() for _ in range(5)][-1]) == 5  # the 5x5 view, whole
    # The game's node saw Bob's own address, not B's.
    host, port = bob.socket.getsockname()[:2]
    a.wait_for(rf"player joined +conn=\d+ game=arena peer={host}:{port} ")
    assert bob.ask("QUIT") == "BYE Thanks for playing."
    assert bob.file.readline() == b""  # closed after the last line, as on one node
    assert ada.line() == "LEFT Bob: quit"


def test_a_watcher_on_a_third_node_watches_the_game(cluster: Cluster) -> None:
    a, b, c = cluster.node(), cluster.node(), cluster.node()
    ada, bob, cy = a.client(), b.client(), c.client()
    assert ada.ask("CREATE arena classic").startswith("GAME arena ")
    assert ada.ask("JOIN arena").startswith("GAME arena ")
    _listed(bob, "arena")
    _listed(cy, "arena")
    assert bob.ask("JOIN arena").startswith("GAME arena ")
    assert cy.ask("WATCH arena").startswith("GAME arena ")
    eventually(
        lambda: any(" players=2 " in line and " watchers=1 " in line for line in _game_lines(ada)),
        "A counts the carried player and watcher",
    )


def test_a_client_that_leaves_its_node_leaves_the_game_on_the_other(cluster: Cluster) -> None:
    a, b = cluster.node(), cluster.node()
    ada, bob = a.client(), b.client()
    assert ada.ask("EXTEND events") == "EXTENDED events"
    assert ada.ask("CREATE arena classic").startswith("GAME arena ")
    assert ada.ask("JOIN arena").startswith("GAME arena ")
    _listed(bob, "arena")
    assert bob.ask("HELLO Bob") == "GOLD 3"
    assert bob.ask("JOIN arena").startswith("GAME arena ")
    assert ada.line() == "JOINED Bob"
    bob.close()
    assert ada.line() == "LEFT Bob: disconnected"


def _game_lines(client: Client) -> list[str]:
    head = client.ask("GAMES")
    return [client.line() for _ in range(int(head.split()[1]))]


def test_a_forged_relay_handshake_is_dropped_unanswered(cluster: Cluster) -> None:
    a = cluster.node()
    with psycopg.connect(cluster.url) as db:
        row = db.execute("SELECT relay FROM cluster_nodes").fetchone()
    assert row is not None
    host, _, port = row[0].rpartition(":")
    for forged in (b"DOD-RELAY e30= 00\n", b"HELLO Mallory\n", b"DOD-RELAY\n"):
        with socket.create_connection((host, int(port)), timeout=WAIT) as intruder:
            intruder.sendall(forged + b"JOIN default\n")
            assert intruder.recv(100) == b""  # nothing said, connection closed
    a.wait_for("relay handshake refused")


def test_a_killed_node_loses_only_its_own_games(cluster: Cluster) -> None:
    a, b = cluster.node(), cluster.node()
    ada, bob, bea = a.client(), b.client(), b.client()
    assert ada.ask("CREATE doomed classic").startswith("GAME doomed ")
    assert ada.ask("JOIN doomed").startswith("GAME doomed ")
    assert bea.ask("CREATE lasting classic").startswith("GAME lasting ")
    assert bea.ask("JOIN lasting").startswith("GAME lasting ")
    _listed(bob, "doomed")
    assert bob.ask("JOIN doomed").startswith("GAME doomed ")  # carried to A
    a.kill()
    assert bob.file.readline() == b""  # its game's node is gone: so is its connection
    assert bea.ask("LOOK") == "LOOKREPLY"  # B's own game plays on
    carol = b.client()
    eventually(lambda: carol.games() == ["default", "lasting"], "only B's games are left")


def test_relay_handshakes_at_once_are_bounded(cluster: Cluster) -> None:
    a = cluster.node()
    with psycopg.connect(cluster.url) as db:
        row = db.execute("SELECT relay FROM cluster_nodes").fetchone()
    assert row is not None
    host, _, port = row[0].rpartition(":")
    # 64 connections that never finish their handshake hold every place ...
    silent = [socket.create_connection((host, int(port)), timeout=WAIT) for _ in range(64)]
    try:
        eventually(lambda: _refused_at_once(host, int(port)), "the 65th is closed at once")
        a.wait_for("too many at once")
    finally:
        for sock in silent:
            sock.close()


def _refused_at_once(host: str, port: int) -> bool:
    with socket.create_connection((host, port), timeout=WAIT) as late:
        late.settimeout(1)  # closed at once, well within the 5 s a handshake may take
        try:
            return late.recv(1) == b""
        except TimeoutError:
            return False
