"""A carried client reads byte for byte what it would read on one server.

The same scripted session is played twice on node A's game: once by a client of A
itself, once by a client of B that B carries to A. Everything the client reads, to
the end of its connection, must be the same bytes (the game's name aside, which is
the one thing the two runs differ in).
"""

from __future__ import annotations

import pytest

from protocol.connection import ClientProtocol
from protocol.framing import NeedData
from protocol.replies import Push

from .conftest import Client, Cluster, Node, eventually

ASKED: list[tuple[str, ...]] = [
    (),  # a 2013 client that never sends EXTEND: no pushed line, ever
    ("EXTEND",),
    ("EXTEND events",),
    ("EXTEND chat",),
    ("EXTEND events chat board bot",),
    ("EXTEND chat", "EXTEND events"),
]


class Recorder:
    """A raw client that keeps every byte it reads, and reads until each command's reply."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.read = bytearray()
        self._replies = ClientProtocol()

    def ask(self, *lines: str) -> None:
        """Send ``lines`` in one write; read until each has its reply."""
        self.client.socket.sendall("".join(f"{line}\n" for line in lines).encode())
        owed = len(lines)
        while owed:
            event = self._replies.next_event()
            if isinstance(event, NeedData):
                data = self.client.socket.recv(65536)
                assert data, f"connection ended with {owed} replies owed: {bytes(self.read)!r}"
                self.read += data
                self._replies.receive_data(data)
            elif not isinstance(event, Push):
                owed -= 1

    def to_the_end(self) -> bytes:
        while data := self.client.socket.recv(65536):
            self.read += data
        return bytes(self.read)


def _session(
    a: Node, guest_node: Node, names: tuple[str, str, str], asked: tuple[str, ...]
) -> bytes:
    """Everything the guest reads in one scripted session in a game held by ``a``, with
    the names of that game, its host and its guest written ``<game>``, ``<host>`` and
    ``<guest>``. (Each session has names of its own: a name just let go on one node may
    not yet be free on another, which is not what this test is about.)"""
    game, host, guest_name = names
    ann = Recorder(a.client())
    ann.ask("EXTEND events chat", f"HELLO {host}", f"CREATE {game} classic seed=7", f"JOIN {game}")
    guest = Recorder(guest_node.client())
    eventually(lambda: game in guest.client.games(), f"{game} is listed where the guest is")
    guest.read.clear()
    for line in asked:
        guest.ask(line)
    guest.ask(f"HELLO {guest_name}")
    guest.ask(f"JOIN {game}")
    guest.ask("LOOK")
    ann.ask(f"SHOUT hello {guest_name}")  # a chat line, pushed only to those who asked for chat
    guest.ask("LOOK")
    ann.ask("MOVE N", "MOVE S")  # events, pushed only to those who asked for events
    guest.ask("WHOAMI", "FOO", "MOVE X", "LOOK", "HELLO", "PICKUP", f"SHOUT hi {host}")
    guest.ask("MOVE N", "GOLD", "MOVE W")
    guest.ask("QUIT")
    read = guest.to_the_end()
    ann.ask("QUIT")
    for name, shown in zip(names, (b"<game>", b"<host>", b"<guest>"), strict=True):
        read = read.replace(name.encode(), shown)
    return read


@pytest.mark.parametrize("asked", ASKED, ids=lambda asked: "+".join(asked) or "no-extend")
def test_a_carried_client_reads_what_it_would_read_on_one_server(
    cluster: Cluster, asked: tuple[str, ...]
) -> None:
    a, b = cluster.node(), cluster.node()
    on_one = _session(a, a, ("onehere", "Ann", "Dee"), asked)
    carried = _session(a, b, ("carried", "Kim", "Vox"), asked)
    assert carried.decode().splitlines() == on_one.decode().splitlines()  # readable first
    assert carried == on_one
