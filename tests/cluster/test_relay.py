"""JOIN and WATCH of a game another node holds: the client's node carries it there."""

from __future__ import annotations

import socket

import psycopg

from server.cluster.handshake import Passenger, handshake, read_challenge
from server.cluster.relay_port import MAX_PENDING_HANDSHAKES

from .conftest import WAIT, Client, Cluster, Node, eventually
from .sniff import Sniffer, skip_unless_root


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


def _relays(cluster: Cluster) -> dict[str, tuple[str, int]]:
    """Every live node's relay port, by node id, as the directory publishes it."""
    with psycopg.connect(cluster.url) as db:
        rows = db.execute("SELECT id, relay FROM cluster_nodes").fetchall()
    return {node: (relay.rpartition(":")[0], int(relay.rpartition(":")[2])) for node, relay in rows}


def _relay_of(cluster: Cluster, node: Node) -> tuple[str, tuple[str, int]]:
    """``node``'s id and relay port (the node's log names its id)."""
    node_id = node.wait_for(r"cluster joined .*node=([0-9a-f]+)").group(1)
    eventually(lambda: node_id in _relays(cluster), "the node is in the directory")
    return node_id, _relays(cluster)[node_id]


def _answers(address: tuple[str, int], handshake: bytes) -> list[bytes]:
    """Every line a relay port answers ``handshake`` with, until it closes the link or,
    having taken it, answers ``WHOAMI`` as it would the client's own."""
    with socket.create_connection(address, timeout=WAIT) as link:
        link.sendall(handshake)
        lines = []
        for line in link.makefile("rb"):
            lines.append(line)
            if line == b"DOD-RELAY OK\n":
                link.sendall(b"WHOAMI\n")
            elif line.startswith(b"WHOAMI "):
                break
        return lines


def test_a_forged_relay_handshake_is_refused_with_a_clear_line(cluster: Cluster) -> None:
    a = cluster.node()
    _, address = _relay_of(cluster, a)
    for forged in (b"DOD-RELAY e30= 00\n", b"HELLO Mallory\n", b"DOD-RELAY\n"):
        answer = _answers(address, forged)
        assert answer[0].startswith(b"DOD-RELAY CHALLENGE ")
        assert answer[1:] in (
            [b"DOD-RELAY REFUSED not signed with this cluster's secret\n"],
            [b"DOD-RELAY REFUSED not a relay handshake\n"],
        ), answer
    a.wait_for("relay handshake refused .*reason=.not signed with this cluster's secret")


def test_a_handshake_copied_off_the_link_is_refused_by_its_node_and_every_other(
    cluster: Cluster,
) -> None:
    skip_unless_root()
    a, b, c = cluster.node(), cluster.node(), cluster.node()
    _, at_a = _relay_of(cluster, a)
    _, at_c = _relay_of(cluster, c)
    sniffer = Sniffer("lo", at_a[1])
    try:
        ada, vic = a.client(), b.client()
        assert ada.ask("CREATE arena classic").startswith("GAME arena ")
        assert ada.ask("JOIN arena").startswith("GAME arena ")
        _listed(vic, "arena")
        assert vic.ask("HELLO Vic") == "GOLD 3"
        assert vic.ask("JOIN arena").startswith("GAME arena ")  # carried: B shook hands with A
        copied = sniffer.first(b"DOD-RELAY ", WAIT)
    finally:
        sniffer.close()
    assert b"\n" in copied
    copied = copied[: copied.index(b"\n") + 1]
    for node, address in ((a, at_a), (c, at_c)):
        answer = _answers(address, copied)
        assert b"DOD-RELAY OK\n" not in answer and not any(
            line.startswith(b"WHOAMI ") for line in answer
        ), answer
        assert answer[-1] == (
            b"DOD-RELAY REFUSED not an answer to this connection's challenge (replayed)\n"
        )
        node.wait_for("relay handshake refused .*replayed")


def test_a_handshake_made_for_one_node_is_refused_by_another(cluster: Cluster) -> None:
    # A node in the middle hands B the challenge of node C, as if it were A's: B's answer,
    # signed for A, must not let it in at C.
    a, c = cluster.node(), cluster.node()
    a_id, _ = _relay_of(cluster, a)
    _, at_c = _relay_of(cluster, c)
    with psycopg.connect(cluster.url) as db:
        row = db.execute("SELECT secret FROM cluster_secret").fetchone()
    assert row is not None
    passenger = Passenger("10.9.9.9", 4242, "2013", "Vic", None, (), False)
    with socket.create_connection(at_c, timeout=WAIT) as link:
        lines = link.makefile("rb")
        nonce = read_challenge(lines.readline())
        link.sendall(handshake(row[0], passenger, target=a_id, nonce=nonce) + b"WHOAMI\n")
        assert lines.readline() == b"DOD-RELAY REFUSED meant for another node\n"
        assert lines.readline() == b""
    c.wait_for("relay handshake refused .*meant for another node")


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
    # Its game's node is gone: so is its connection, and it is told why, not cut short.
    assert bob.line() == "BYE the node holding this game went away; connect again"
    assert bob.file.readline() == b""
    assert bea.ask("LOOK") == "LOOKREPLY"  # B's own game plays on
    carol = b.client()
    eventually(lambda: carol.games() == ["default", "lasting"], "only B's games are left")


def test_one_address_holding_relay_handshakes_keeps_no_node_from_carrying(
    cluster: Cluster,
) -> None:
    a, b = cluster.node(), cluster.node()
    _, address = _relay_of(cluster, a)
    ada, bob = a.client(), b.client()
    assert ada.ask("CREATE arena classic").startswith("GAME arena ")
    assert ada.ask("JOIN arena").startswith("GAME arena ")
    _listed(bob, "arena")
    # One address (not B's) opens relay connections and never says a word, many more
    # than there are places for handshakes ...
    silent = []
    try:
        for _ in range(4 * MAX_PENDING_HANDSHAKES):
            hog = socket.socket()
            silent.append(hog)
            hog.bind(("127.0.0.2", 0))
            hog.connect(address)
        # ... and B carries Bob all the same.
        assert bob.ask("JOIN arena").startswith("GAME arena ")
        # Each refusal of the hog is one event at most, until its allowance of log lines is
        # spent; then they are counted, and the count logged.
        a.wait_for(r"log lines suppressed .*count=\d+ .*peer=127\.0\.0\.2")
        refused = a.output.count("relay handshake refused")
        assert 0 < refused <= 60, refused
    finally:
        for hog in silent:
            hog.close()
