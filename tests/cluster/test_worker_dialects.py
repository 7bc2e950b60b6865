"""``dod-server --workers 2`` with a port in each dialect: every client reaches every game.

The parent chooses each port of ``--listen`` once (port 0 included) and every worker
listens on all of them; a client of any dialect that joins a game of the other worker
is carried there, and plays it to a win, through our client library (2015, 2016,
2016mbk) or in the bytes ch739's client sends (2016ch, which our client library does
not speak: it waits for a ``GOAL`` line that port never sends).
"""

from __future__ import annotations

import re
import socket
import subprocess
from pathlib import Path

from bench.cluster import held_sockets, tcp_sockets
from dungeon_of_doom.clients.errors import ServerClosed
from dungeon_of_doom.clients.sync import Client as LibraryClient
from dungeon_of_doom.protocol.lines import Congratulated
from dungeon_of_doom.protocol.replies import FinalReply, Win
from dungeon_of_doom.server.cluster.workers import _without_listens

from .conftest import WAIT, Client, Node

DIALECTS = ("2013", "2015", "2016", "2016ch", "2016mbk")
ATTEMPTS = 30
"""Connections of one dialect at most until one lands on the worker without the game
(the kernel's choice: each has an even chance)."""


def _shared_ports(node: Node) -> dict[str, int]:
    """The port of each dialect, from the parent's ``workers share`` line."""
    line = node.wait_for(r"workers share ([^\n]+)").group(1)
    found = re.findall(r"[^\s,]+:(\d+)(?: \(dialect (\S+)\))?", line)
    return {dialect or "2013": int(port) for port, dialect in found}


def _worker(node: Node, sock: socket.socket) -> int:
    """The worker process that serves the connection ``sock`` is the client's end of."""
    served = tcp_sockets(sock.getsockname()[1], far=True)
    workers = subprocess.run(
        ["pgrep", "-P", str(node.process.pid)], capture_output=True, text=True, check=True
    ).stdout.split()
    [worker] = [int(pid) for pid in workers if held_sockets(int(pid)) & served]
    return worker


Played = tuple[FinalReply | None, int]
"""How a client's game ended, and the worker its connection reached."""


def _play_with_the_library(node: Node, port: int, name: str) -> Played:
    """Our client library, playing ``arena`` (the tiny map) to its end."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
    with LibraryClient(sock, timeout=WAIT) as client:
        try:
            assert client.hello(name) == 1
            worker = _worker(node, sock)
            assert client.join("arena").name == "arena"
            for step in "WW":  # to the gold, from wherever it stands
                client.move(step)
            assert client.pickup().picked
            for step in "EEE":  # to the exit
                client.move(step)
        except ServerClosed as closed:
            return closed.final, worker
    return None, worker


def _play_as_ch739(node: Node, port: int, name: str) -> Played:
    """The lines ch739's client sends (each step read to the answer of a ``WHOAMI``)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
    lines = sock.makefile("rb")

    def ask(*sent: str) -> list[bytes]:
        sock.sendall("".join(f"{line}\n" for line in (*sent, "WHOAMI")).encode())
        read: list[bytes] = []
        while not read or not read[-1].startswith(b"WHOAMI "):
            read.append(lines.readline())
            assert read[-1], f"the connection ended: {read}"
            read[-1] = read[-1].rstrip(b"\n")
        return read

    with sock, lines:
        assert ask(f"HELLO {name}")[:3] == [f"HELLO {name}".encode(), b"STARTTURN", b"CHANGE "]
        worker = _worker(node, sock)
        assert ask("JOIN arena")[0].startswith(b"GAME arena ")
        assert b"TREASUREMOD 1" in ask("MOVE W", "MOVE W", "PICKUP")  # to the gold
        won = ask("MOVE E", "MOVE E")  # to the exit
        assert ask("LOOK")[0] == b"FAIL the game is over"  # its client stays after WIN
        return (Win("") if b"WIN" in won else None), worker


def test_workers_carry_a_client_of_every_dialect_to_the_other_workers_game(
    tmp_path: Path,
) -> None:
    listens = ",".join(f"0:{dialect}" for dialect in DIALECTS)
    node = Node(
        "--no-replays", "--workers", "2", "--map", "tiny", "--listen", listens, cwd=tmp_path
    )
    try:
        node.wait_for(r"(?s)cluster joined.*cluster joined")
        ports = _shared_ports(node)
        assert sorted(ports) == sorted(DIALECTS)
        for port in ports.values():  # its lines may follow the workers' "cluster joined"
            node.wait_for(re.escape(f"listening on 127.0.0.1:{port}"))
        watcher = Client(ports["2013"])
        assert watcher.ask("CREATE arena classic map=tiny").startswith("GAME arena ")
        assert watcher.ask("WATCH arena").startswith("GAME arena ")  # kept while watched
        holder = _worker(node, watcher.socket)  # arena is created where its creator is
        for number, dialect in enumerate(DIALECTS[1:]):
            play = _play_as_ch739 if dialect == "2016ch" else _play_with_the_library
            for attempt in range(ATTEMPTS):
                # A name of its own each time: one just let go on one worker may not yet
                # be free on the other.
                final, worker = play(node, ports[dialect], f"p{number}x{attempt}")
                assert isinstance(final, Win | Congratulated), (dialect, final)
                if worker != holder:  # carried to the other worker
                    break
            else:
                raise AssertionError(f"no {dialect} client was carried in {ATTEMPTS} tries")
    finally:
        node.stop()


def test_the_workers_are_given_the_parents_ports_in_place_of_every_listen_flag() -> None:
    argv = ["--listen", "0:2015", "--map", "tiny", "--listen=0:2016", "--liste", "0", "-v"]
    assert _without_listens(argv) == ["--map", "tiny", "-v"]
