"""The cluster across a real network: nodes on hosts of their own (network namespaces)."""

from __future__ import annotations

import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from .conftest import Client, Cluster, eventually, on_hosts
from .hosts import Hosts


def test_created_on_one_host_joined_from_a_second_and_watched_from_a_third(
    cluster: Cluster, hosts: Hosts
) -> None:
    (a, b, c), database = on_hosts(cluster, hosts, 3)
    try:
        ada, bob, cy = a.client(), b.client(), c.client()
        assert ada.ask("EXTEND events chat") == "EXTENDED events chat"
        assert ada.ask("CREATE arena classic").startswith("GAME arena ")
        assert ada.ask("JOIN arena").startswith("GAME arena ")
        eventually(lambda: "arena" in bob.games(), "host B lists the game on host A")
        eventually(lambda: "arena" in cy.games(), "host C lists the game on host A")
        assert bob.ask("EXTEND chat") == "EXTENDED chat"
        assert bob.ask("HELLO Bob") == "GOLD 3"
        assert bob.ask("JOIN arena").startswith("GAME arena ")
        assert ada.line() == "JOINED Bob"
        assert cy.ask("WATCH arena").startswith("GAME arena ")
        assert bob.ask("SHOUT over the wire") == "MESSAGE Bob: over the wire"
        assert bob.line() == "SUCCESS"
        assert ada.line() == "MESSAGE Bob: over the wire"
        # Host A saw Bob at his own address (the test's, on the switch), not host B's.
        a.wait_for(rf"player joined +conn=\d+ game=arena peer={hosts.own}:")
    finally:
        database.cut()


def test_a_host_cut_off_and_healed_plays_on_and_rejoins(cluster: Cluster, hosts: Hosts) -> None:
    (a, b), database = on_hosts(cluster, hosts, 2)
    try:
        ada, bob = a.client(), b.client()
        assert ada.ask("CREATE island classic").startswith("GAME island ")
        assert ada.ask("JOIN island").startswith("GAME island ")
        eventually(lambda: "island" in bob.games(), "B lists the game on A")
        hosts.cut(a.host)
        eventually(lambda: "island" not in bob.games(), "A, cut off, leaves B's list")
        assert bob.ask("CREATE elsewhere classic").startswith("GAME elsewhere ")  # B plays on
        hosts.heal(a.host)
        assert ada.ask("LOOK") == "LOOKREPLY"  # A's game went on through the cut
        eventually(lambda: "island" in bob.games(), "A rejoins: B lists its game again")
        alice = a.client()
        eventually(lambda: "elsewhere" in alice.games(), "A lists B's game again")
    finally:
        database.cut()


def test_a_redirected_client_moves_to_the_game_s_host_under_its_name(
    cluster: Cluster, hosts: Hosts
) -> None:
    (a, b), database = on_hosts(cluster, hosts, 2)
    try:
        ada, bob = a.client(), b.client()
        assert ada.ask("CREATE arena classic").startswith("GAME arena ")
        assert ada.ask("JOIN arena").startswith("GAME arena ")
        eventually(lambda: "arena" in bob.games(), "host B lists the game on host A")
        assert bob.ask("EXTEND redirect") == "EXTENDED redirect"
        assert bob.ask("HELLO Bob") == "GOLD 3"
        assert bob.ask("JOIN arena") == f"REDIRECT arena {a.host}:{a.port}"
        moved = Client(a.port, a.host)  # to host A itself, across the switch
        assert moved.ask("HELLO Bob") == "GOLD 3"  # the name followed Bob at once
        assert moved.ask("JOIN arena").startswith("GAME arena world=classic map=default ")
        assert " players=2 " in ada.ask("JOIN arena")
    finally:
        database.cut()


HAPROXY = """
global
    maxconn 1000
defaults
    mode tcp
    timeout connect 5s
    timeout client 1h
    timeout server 1h
frontend dod
    bind fd@{fd}
    default_backend nodes
backend nodes
    balance roundrobin
{servers}
"""


def test_three_hosts_serve_one_address_behind_haproxy(
    cluster: Cluster, hosts: Hosts, tmp_path: Path
) -> None:
    haproxy = shutil.which("haproxy")
    if haproxy is None:
        pytest.skip("haproxy is missing: apt-get install haproxy")
    nodes, database = on_hosts(cluster, hosts, 3)
    # The test binds the proxy's address and hands haproxy the listening socket, so no
    # other test can take the port between choosing it and haproxy's start.
    listener = socket.socket()
    listener.bind((hosts.own, 0))
    listener.listen()
    port = int(listener.getsockname()[1])
    servers = "\n".join(f"    server n{i} {n.host}:{n.port}" for i, n in enumerate(nodes))
    config = tmp_path / "haproxy.cfg"
    config.write_text(HAPROXY.format(fd=listener.fileno(), servers=servers))
    proxy = subprocess.Popen(
        [haproxy, "-db", "-f", str(config)],
        stdout=subprocess.DEVNULL,
        pass_fds=(listener.fileno(),),
    )
    try:
        first = Client(port, hosts.own)
        assert first.ask("CREATE meeting classic").startswith("GAME meeting ")
        assert first.ask("JOIN meeting").startswith("GAME meeting ")
        players = [Client(port, hosts.own) for _ in range(5)]
        for number, player in enumerate(players):
            assert player.ask(f"HELLO P{number}") == "GOLD 3"
            eventually(lambda: "meeting" in player.games(), "the game is listed")  # noqa: B023
            assert player.ask("JOIN meeting").startswith("GAME meeting ")
        for node in nodes:  # the proxy sent clients to every host, and every one reached it
            node.wait_for("client connected")
        assert first.ask("GAMES").startswith("GAMES")
        [line] = [first.line() for _ in range(2)][1:]  # default, then meeting
        assert " players=6 " in line
    finally:
        proxy.terminate()
        proxy.wait()
        listener.close()
        database.cut()
