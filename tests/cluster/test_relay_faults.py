"""A carried client whose game's node is cut off from its own node: told, within a bound.

Nodes on hosts of their own (network namespaces), PostgreSQL reached over the switch;
the test's own client talks to node B, which carries it to node A. Cutting A's link
makes every packet to it vanish: nothing comes back, not even an error.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from .conftest import Client, Cluster, Node, eventually, on_hosts
from .hosts import Hosts

RELAY_TIMEOUT = 2.0
"""The nodes' --relay-timeout: the bound the tests hold the relay to."""
SLACK = 10.0
"""What a loaded machine may add to it (a bound, never a pace)."""
GIVEN_UP = "BYE the node holding this game stopped answering for 2 seconds; connect again"


@pytest.fixture
def carried(cluster: Cluster, hosts: Hosts) -> Iterator[tuple[Node, Client]]:
    """Node A, on a host of its own, and Bob: a client of node B (on another) carried
    to a game of A's, his LOOK just answered."""
    (a, b), database = on_hosts(cluster, hosts, 2, "--relay-timeout", f"{RELAY_TIMEOUT:g}")
    try:
        ada, bob = a.client(), b.client()
        assert ada.ask("CREATE island classic").startswith("GAME island ")
        assert ada.ask("JOIN island").startswith("GAME island ")
        eventually(lambda: "island" in bob.games(), "B lists the game on A")
        assert bob.ask("HELLO Bob") == "GOLD 3"
        assert bob.ask("JOIN island").startswith("GAME island ")
        assert bob.ask("LOOK") == "LOOKREPLY"
        assert len([bob.line() for _ in range(5)]) == 5
        yield a, bob
    finally:
        database.cut()


def _bye_within(bob: Client, bound: float) -> tuple[str, float]:
    """The line Bob reads next and how long it took, waiting ``bound`` seconds at most
    (then the test fails: the silence the relay must not leave)."""
    began = time.monotonic()
    bob.socket.settimeout(bound)
    try:
        line = bob.line()
    except TimeoutError:
        pytest.fail(f"no line for {bound:g} seconds: the carried client was left in silence")
    return line, time.monotonic() - began


def test_a_command_sent_into_a_cut_is_answered_bye_within_the_relay_s_timeout(
    carried: tuple[Node, Client], hosts: Hosts
) -> None:
    a, bob = carried
    hosts.cut(a.host)
    bob.send("LOOK")
    line, took = _bye_within(bob, RELAY_TIMEOUT + SLACK)
    assert line == GIVEN_UP
    assert took >= RELAY_TIMEOUT * 0.9  # it waited for the link, not less
    assert bob.file.readline() == b""


def test_a_carried_client_waiting_through_a_cut_is_told_bye_unasked(
    carried: tuple[Node, Client], hosts: Hosts
) -> None:
    a, bob = carried
    hosts.cut(a.host)
    # Bob sends nothing: the link's keepalive probes go unanswered.
    line, _ = _bye_within(bob, 2 * RELAY_TIMEOUT + SLACK)
    assert line == GIVEN_UP
    assert bob.file.readline() == b""
