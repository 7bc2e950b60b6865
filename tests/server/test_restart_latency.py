"""A game's restart builds its fresh world off the event loop (issue 18, defect 3).

The other tests of slow builds talk to the server from the test's own trio loop,
which is the server's loop too: a restart that blocked it would block the test as
well, and the test would only see a pause between two of its steps. Here the
other player is a plain blocking socket driven from a thread of its own, which
times its ``LOOK`` while the restart is still inside the plugin's ``open``.
"""

from __future__ import annotations

import socket
import threading
import time

import trio

from ..helpers import Peer, bound_port
from .conftest import StartGameServer
from .test_lobby_limits import GatedPlugin, wait_opening

ANSWER_WITHIN = 4.0
"""Seconds: a failure bound for a loop shared with other test processes, still below the
gated build's 5 s, which a restart on the event loop would make the LOOK wait out."""


def first_line(sock: socket.socket, line: bytes) -> str:
    """Send ``line`` and read the first line of the answer (a blocking socket)."""
    sock.sendall(line)
    data = b""
    while b"\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise EOFError(data)
        data += chunk
    return data.partition(b"\n")[0].decode()


async def test_another_players_look_is_answered_while_a_game_restarts(
    start_game_server: StartGameServer,
) -> None:
    gated = GatedPlugin()
    server = await start_game_server(worlds=(gated,), map="tiny", seed=1)
    owner, watcher = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    await owner.send("CREATE slow gated map=tiny\n")
    await wait_opening(gated)
    gated.gate.set()
    assert (await owner.read_line()).startswith("GAME slow")
    assert (await watcher.ask("WATCH slow"))[0].startswith("GAME slow")
    assert (await owner.ask("JOIN slow"))[0].startswith("GAME slow")
    gated.gate.clear()  # the restart's open will wait for the LOOK below

    other = socket.create_connection(("127.0.0.1", server.port))
    other.settimeout(10)
    assert await trio.to_thread.run_sync(first_line, other, b"HELLO\n") == "GOLD 1"

    result: list[tuple[str | None, float]] = []

    def look_while_the_world_is_built() -> None:
        try:
            if not gated.opening.acquire(timeout=10):
                return  # the game never began to restart: the assertions below say so
            other.settimeout(ANSWER_WITHIN)
            began = time.perf_counter()
            try:
                answer: str | None = first_line(other, b"LOOK\n")
            except TimeoutError:
                answer = None
            result.append((answer, time.perf_counter() - began))
        finally:
            gated.gate.set()

    # A thread of its own, started before the restart: one started through trio would
    # wait for the very loop a blocking restart holds.
    looker = threading.Thread(target=look_while_the_world_is_built)
    looker.start()
    try:
        await owner.send("QUIT\n")  # the game ends; its watcher keeps it: it restarts
        await owner.read_to_end()
    finally:
        await trio.to_thread.run_sync(looker.join)
        other.close()
    ((answer, took),) = result
    assert answer == "LOOKREPLY", f"no answer to LOOK within {ANSWER_WITHIN} s of the restart"
    assert took < ANSWER_WITHIN
