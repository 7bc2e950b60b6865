"""A carried client reads byte for byte what it would read on one server, in every dialect.

The same scripted session is played twice on a game of node A: once by a client of node
B, which B carries to A, and once by a client of A itself. Everything the client reads,
from its connection to its end, must be the same bytes (the names of the game, its host
and its guest aside, the one thing the two runs differ in). Each dialect's session asks
for what that dialect is pushed: 2015's greeting, its ``CHANGE`` and its reminder of the
turn, 2016's ``SERVERCHANGE``, 2016ch's view pushed as ``CHANGE`` with its
``RENDERHINT`` lines and its ``STARTTURN``, 2016mbk's welcome and pushed views, chat,
the gold a pickup adds, and the end of the game (``WIN``, then the connection's end,
or, in a dialect that keeps the client after it, what it is told then); a second
session ends in a line too long for the client's node, behind pipelined commands whose
replies must all come first.

The guest plays in its node's ``default`` game before it joins (so that what it was
told there goes with it): each run's guest is the first to join a fresh ``default`` (the
carried run first, on B; then the one-server run, on A, whose ``default`` nobody else
joins), so both are placed alike.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass

import pytest

from protocol.dialects import DIALECTS as DIALECT_OF

from .conftest import WAIT, Cluster, Node, eventually

DIALECTS = ("2013", "2015", "2016", "2016ch", "2016mbk")
ASKED: list[tuple[str, ...]] = [
    (),  # a 2013 client that never sends EXTEND: no pushed line, ever
    ("EXTEND",),
    ("EXTEND events",),
    ("EXTEND chat",),
    ("EXTEND events chat board bot",),
    ("EXTEND chat", "EXTEND events"),
]
MARK = "WHOAMI"
"""Sent after each step's lines: its answer, in our words in every dialect, says that
every reply of the step has been read."""
REMINDER = b"STARTTURN\n"
"""2015's reminder of the turn, after 2 seconds of silence (server.session.greetings)."""


@dataclass(frozen=True)
class Listening:
    """A node, and the port where it speaks each dialect."""

    node: Node
    ports: dict[str, int]


def _node(cluster: Cluster, *args: str) -> Listening:
    """A node listening in every dialect, its ``default`` game on the tiny map."""
    listens = [f"--listen=0:{dialect}" for dialect in DIALECTS]
    node = cluster.node("--map", "tiny", *listens, *args)
    ports = {"2013": node.port}
    for dialect in DIALECTS[1:]:
        said = node.wait_for(rf"listening on [^\s]+:(\d+) \(dialect {dialect}\)")
        ports[dialect] = int(said.group(1))
    return Listening(node, ports)


class Guest:
    """A raw client of one dialect that keeps every byte it reads, step by step."""

    def __init__(self, at: Listening, dialect: str) -> None:
        self.socket = socket.create_connection((at.node.host, at.ports[dialect]), timeout=WAIT)
        self.read = bytearray()
        self.steps: list[bytes] = []
        self._marks = 0

    def step(self, *lines: str | bytes, after: bytes | None = None) -> None:
        """Send ``lines`` and the mark in one write (once ``after`` has come, if given,
        with nothing sent meanwhile); read until the mark's answer."""
        start = len(self.read)
        while after is not None and after not in self.read[start:]:
            self._receive()
        self._marks += 1 + sum(line == MARK for line in lines)
        self._send(*lines, MARK)
        while self._answered() < self._marks:
            self._receive()
        self.steps.append(bytes(self.read[start:]))

    def last(self, *lines: str | bytes) -> None:
        """Send ``lines``, the last the connection is answered; read to its end."""
        start = len(self.read)
        self._send(*lines)
        while self._receive(ending=True):
            pass
        self.steps.append(bytes(self.read[start:]))

    def _send(self, *lines: str | bytes) -> None:
        data = b"".join(
            (line if isinstance(line, bytes) else line.encode()) + b"\n" for line in lines
        )
        self.socket.sendall(data)

    def _receive(self, *, ending: bool = False) -> bool:
        data = self.socket.recv(65536)
        assert data or ending, f"the connection ended before its replies: {bytes(self.read)!r}"
        self.read += data
        return bool(data)

    def _answered(self) -> int:
        return sum(line.startswith(b"WHOAMI ") for line in self.read.split(b"\n"))


def _host(a: Listening, game: str, host: str) -> Guest:
    """The game's host on ``a``: creates ``game`` and plays in it (never in ``default``)."""
    ann = Guest(a, "2013")
    ann.step("EXTEND events chat", f"CREATE {game} classic map=tiny seed=7", f"JOIN {game}")
    ann.step(f"HELLO {host}")
    return ann


def _listed(at: Listening, game: str) -> None:
    lister = at.node.client()
    eventually(lambda: game in lister.games(), f"{game} is listed where the guest is")
    lister.close()


def _hello(dialect: str, name: str) -> str:
    return f"NAME {name}" if dialect == "2016mbk" else f"HELLO {name}"


def _game(
    a: Listening,
    guest_node: Listening,
    names: tuple[str, str, str],
    dialect: str,
    asked: tuple[str, ...],
) -> list[bytes]:
    """What the guest reads, step by step, in a session that ends in its win."""
    game, host, guest_name = names
    ann = _host(a, game, host)
    _listed(guest_node, game)
    guest = Guest(guest_node, dialect)
    guest.step()  # a greeting, a welcome, or nothing
    for line in asked:
        guest.step(line)
    guest.step(_hello(dialect, guest_name))
    guest.step("MOVE W", "MOVE W", "PICKUP")  # the default game's gold: told there
    guest.step(f"JOIN {game}", "LOOK")  # what is pipelined behind the JOIN comes after it
    ann.step(f"SHOUT hello {guest_name}")  # chat
    guest.step("LOOK")
    ann.step("MOVE E", "MOVE W", "MOVE W")  # moves in sight: events, CHANGE, views
    guest.step("FOO", "MOVE X", "LOOK", "HELLO", "PICKUP", f"SHOUT hi {host}")
    if dialect == "2015":
        guest.step(after=REMINDER)  # nothing sent for 2 seconds: the turn is told again
    ann.last("QUIT")
    guest.step("LOOK")
    win = ("MOVE W", "MOVE W", "PICKUP", "MOVE E", "MOVE E")
    if DIALECT_OF[dialect].closes_after_final:
        guest.last(*win)  # the final line ends the connection
    else:
        guest.step(*win)  # the client stays after WIN, and is told the game is over
        guest.step("LOOK", "MOVE W")
        guest.last("QUIT")
    return guest.steps


def _too_long(
    a: Listening, guest_node: Listening, names: tuple[str, str, str], dialect: str
) -> list[bytes]:
    """What the guest reads in a session that ends in a line too long for its node, sent
    behind commands whose replies are owed (it joins at once: no default game)."""
    game, host, guest_name = names
    ann = _host(a, game, host)
    _listed(guest_node, game)
    guest = Guest(guest_node, dialect)
    guest.step()
    guest.step(f"JOIN {game}")
    guest.step(_hello(dialect, guest_name))
    ann.step("MOVE E")
    # Nothing after the long line: a server that closes with bytes unread resets the
    # connection, and the client may lose what it was sent.
    guest.last("LOOK", "MOVE W", "PICKUP", "WHOAMI", b"x" * 2000)
    ann.socket.close()  # the gold gone with the guest, the game has ended for Ann too
    return guest.steps


def _shown(steps: list[bytes], names: tuple[str, str, str], dialect: str) -> list[bytes]:
    """``steps`` with the run's names written ``<game>``, ``<host>`` and ``<guest>``, and
    2015's reminders dropped from all but the greeting and the step that waits for one
    (a loaded machine may leave the guest silent for 2 seconds anywhere)."""
    shown = []
    for number, step in enumerate(steps):
        for name, placeholder in zip(names, (b"<game>", b"<host>", b"<guest>"), strict=True):
            step = step.replace(name.encode(), placeholder)
        if dialect == "2015" and number > 0 and not step.startswith(REMINDER + b"WHOAMI"):
            step = b"".join(line for line in step.splitlines(keepends=True) if line != REMINDER)
        shown.append(step)
    return shown


def _same(carried: list[bytes], on_one: list[bytes]) -> None:
    assert [step.decode() for step in carried] == [step.decode() for step in on_one]
    assert b"".join(carried) == b"".join(on_one)


@pytest.mark.parametrize("asked", ASKED, ids=lambda asked: "+".join(asked) or "no-extend")
def test_a_carried_2013_client_reads_what_it_would_read_on_one_server(
    cluster: Cluster, asked: tuple[str, ...]
) -> None:
    a, b = _node(cluster), _node(cluster)
    carried_names, one_names = ("carried", "Kim", "Vox"), ("onehere", "Ann", "Dee")
    carried = _shown(_game(a, b, carried_names, "2013", asked), carried_names, "2013")
    on_one = _shown(_game(a, a, one_names, "2013", asked), one_names, "2013")
    _same(carried, on_one)


@pytest.mark.parametrize("dialect", DIALECTS[1:])
def test_a_carried_client_of_every_dialect_reads_what_it_would_read_on_one_server(
    cluster: Cluster, dialect: str
) -> None:
    a, b = _node(cluster), _node(cluster)
    carried_names, one_names = ("carried", "Kim", "Vox"), ("onehere", "Ann", "Dee")
    carried = _shown(_game(a, b, carried_names, dialect, ()), carried_names, dialect)
    on_one = _shown(_game(a, a, one_names, dialect, ()), one_names, dialect)
    _same(carried, on_one)
    # Each dialect's own words came through the relay, not 2013's.
    assert b"WIN" in b"".join(on_one) or b"Congratulations" in b"".join(on_one)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_line_too_long_for_a_carrying_node_comes_after_every_reply_owed(
    cluster: Cluster, dialect: str
) -> None:
    # The game's node reads longer lines than the client's node: the client's node's
    # limit is the one a client meets, carried or not. (C is the one server, with B's
    # limit: its guest is the first client of its default game, as B's is.)
    a, b, c = _node(cluster, "--max-line-length", "4096"), _node(cluster), _node(cluster)
    carried_names, one_names = ("carried", "Kim", "Vox"), ("onehere", "Ann", "Dee")
    carried = _shown(_too_long(a, b, carried_names, dialect), carried_names, dialect)
    on_one = _shown(_too_long(c, c, one_names, dialect), one_names, dialect)
    _same(carried, on_one)
    assert b"line too long (the limit is 1024 bytes)" in carried[-1]
