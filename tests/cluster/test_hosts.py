"""The cluster across a real network: nodes on hosts of their own (network namespaces)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .conftest import Cluster, Node, eventually
from .hosts import Hosts, skip_unless_possible
from .proxy import Link


@pytest.fixture
def hosts() -> Iterator[Hosts]:
    skip_unless_possible()
    made = Hosts()
    try:
        yield made
    finally:
        made.close()


def _on_hosts(cluster: Cluster, hosts: Hosts, count: int) -> tuple[list[Node], Link]:
    """``count`` nodes, each on a host of its own, reaching PostgreSQL over the switch."""
    host, port = cluster.url.split("@", 1)[1].split("/", 1)[0].rsplit(":", 1)
    database = Link((host, int(port)), host=hosts.own)
    url = cluster.url.replace(f"{host}:{port}", f"{hosts.own}:{database.port}")
    nodes = []
    for number in range(1, count + 1):
        on, address = hosts.host(number)
        nodes.append(cluster.node("--cluster", url, on=on, host=address))
    return nodes, database


def test_created_on_one_host_joined_from_a_second_and_watched_from_a_third(
    cluster: Cluster, hosts: Hosts
) -> None:
    (a, b, c), database = _on_hosts(cluster, hosts, 3)
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
    (a, b), database = _on_hosts(cluster, hosts, 2)
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
