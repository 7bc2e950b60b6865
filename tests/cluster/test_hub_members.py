"""Who may be a member of the workers' directory (the hub of ``--workers``), and what a
member can do to the others: claim their node id, or read nothing while they change."""

from __future__ import annotations

import json
import os
import threading
import uuid
from pathlib import Path

import pytest
import trio

from dungeon_of_doom.protocol.replies import GameInfo
from dungeon_of_doom.server.cluster import hub as hubs
from dungeon_of_doom.server.cluster import workers
from dungeon_of_doom.server.cluster.embedded import EmbeddedDirectory
from dungeon_of_doom.server.cluster.hub import Hub

from ..helpers import TIMEOUT
from .conftest import Node, eventually


def _hub() -> Hub:
    hub = Hub()
    hub.admit(os.getpid())  # this test's members are its own, as a parent's workers are
    return hub


async def _member(
    nursery: trio.Nursery,
    path: str,
    *,
    names: set[str] | None = None,
    games: list[GameInfo] | None = None,
    heartbeat: float = 60.0,
    address: str = "127.0.0.1:1",
) -> EmbeddedDirectory:
    """A member of the hub at ``path`` whose games and names are those given (a set given
    is read again at each sync), once it has joined."""
    directory = EmbeddedDirectory(path, advertise=address, heartbeat=heartbeat)
    await nursery.start(directory.run, lambda: list(games or ()), lambda: set(names or ()))
    assert directory.reachable
    return directory


async def _hello(path: str, node: str) -> tuple[trio.SocketStream, dict[str, object]]:
    """A raw connection that says hello as ``node``, and the hub's first answer."""
    stream = await trio.open_unix_socket(path)
    hello = {"op": "hello", "node": node, "address": "127.0.0.1:9", "relay": "127.0.0.1:9"}
    await stream.send_all(json.dumps(hello).encode() + b"\n")
    received = b""
    with trio.fail_after(TIMEOUT):
        while b"\n" not in received:
            data = await stream.receive_some(65536)
            assert data, f"closed without an answer: {received!r}"
            received += data
    return stream, json.loads(received.partition(b"\n")[0])


def _info(name: str) -> GameInfo:
    return GameInfo(name, "classic", "default", 0, 0, 100, 0, None)


async def test_a_member_claiming_another_s_node_id_is_refused_and_the_directory_lives(
    directory: tuple[Hub, str], nursery: trio.Nursery
) -> None:
    # Before: the second hello took the first member's place; when it left, the first
    # member's games went with it, and its next change raised KeyError in the hub,
    # uncaught: the whole directory died.
    hub, path = directory
    games: list[GameInfo] = []
    a = await _member(nursery, path, games=games)
    assert await a.claim("arena") is None
    games.append(_info("arena"))
    await a.flush()
    impostor, answer = await _hello(path, a.node)
    await impostor.aclose()
    assert await a.claim("second") is None  # the member it tried to replace plays on
    games.append(_info("second"))
    await a.flush()
    b = await _member(nursery, path)
    await b.caught_up()
    assert {game.name for game in b.remote_games()} == {"arena", "second"}
    assert [node[0] for node in hub.status()["nodes"]] == [a.node, b.node]
    assert answer["op"] == "refused" and "secret" not in answer


async def test_a_member_that_reads_nothing_is_cut_and_the_others_carry_on(
    directory: tuple[Hub, str], nursery: trio.Nursery, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: each member's queue had no bound; one that never read held every change
    # of every other member in the parent's memory, for ever.
    monkeypatch.setattr(hubs, "MEMBER_BACKLOG", 256 << 10)  # past what one read brings
    hub, path = directory
    sleeper = uuid.uuid4().hex
    stuck, answer = await _hello(path, sleeper)  # then never reads again
    assert answer["op"] == "welcome"
    names = {f"player{number:05}" for number in range(20_000)}  # 1.6 MB of changes to tell
    a = await _member(nursery, path, names=names)
    a.publish()
    with trio.fail_after(TIMEOUT * 6):  # the hub has every name, and has cut the sleeper
        while len({name for _, name in hub.keys.values()}) < len(names) or sleeper in hub.members:
            await trio.sleep(0.01)
    b = await _member(nursery, path)  # the others carry on: a newcomer is told everything
    await b.caught_up()
    assert all(b.name_elsewhere(name) for name in names)
    assert [node[0] for node in hub.status()["nodes"]] == [a.node, b.node]
    await stuck.aclose()


async def test_a_cut_worker_joins_again_and_puts_its_games_back(
    directory: tuple[Hub, str], nursery: trio.Nursery
) -> None:
    hub, path = directory
    games: list[GameInfo] = []
    a = await _member(nursery, path, games=games, names={"Ada"}, heartbeat=0.05)
    assert await a.claim("arena") is None
    games.append(_info("arena"))
    await a.flush()
    hub._cut(hub.members[a.node])  # as if it had read too slowly
    assert "arena" not in hub.games
    with trio.fail_after(TIMEOUT):
        while hub.games.get("arena", ("", None))[1] is None or (a.node, "Ada") not in set(
            hub.keys.values()
        ):
            await trio.sleep(0.01)
    assert a.reachable
    assert await a.claim("third") is None  # and it creates games again


def test_a_process_that_is_not_a_worker_is_refused_the_directory(tmp_path: Path) -> None:
    # Before: any process of the parent's user that reached the socket became a member:
    # it was given the cluster's secret and could take names for games.
    node = Node("--no-replays", "--workers", "2", cwd=tmp_path)
    try:
        node.wait_for(r"(?s)cluster joined.*cluster joined")
        path = node.wait_for(r"the workers' directory is unix:(\S+)").group(1)

        async def intrude() -> dict[str, object]:
            stream, answer = await _hello(path, uuid.uuid4().hex)
            await stream.aclose()
            return answer

        answer = trio.run(intrude)
        assert answer["op"] == "refused", answer
        assert f"process {os.getpid()} is not a worker" in str(answer["why"])
        client = node.client()
        assert client.ask("CREATE after classic").startswith("GAME after ")
        other = node.client()
        eventually(lambda: "after" in other.games(), "the game is listed")
    finally:
        node.stop()


async def test_a_name_claimed_for_a_create_given_up_is_let_go(
    directory: tuple[Hub, str], nursery: trio.Nursery
) -> None:
    # A CREATE whose client left while its claim was under way: before, the parent kept
    # the name for the worker, which no longer knew it held it, for as long as it lived.
    hub, path = directory
    a = await _member(nursery, path)
    b = await _member(nursery, path)
    send = a._send
    with trio.CancelScope() as creating:

        async def send_then_leave(message: dict[str, object]) -> bool:
            sent = await send(message)
            creating.cancel()  # the client leaves once its claim is on its way
            return sent

        a._send = send_then_leave  # type: ignore[method-assign]
        await a.claim("lost")
    a._send = send  # type: ignore[method-assign]
    with trio.fail_after(TIMEOUT):
        while "lost" in hub.games or "lost" in a._claims:
            await trio.sleep(0.01)
    await b.caught_up()
    assert await b.claim("lost") is None


def test_a_directory_that_fails_is_reported_to_its_parent(tmp_path: Path) -> None:
    # Before: the directory's thread died alone, and the parent served on with nothing
    # to tell its workers (each CREATE: the directory cannot be reached) until restarted.
    # Now its failure reaches the parent, which stops its workers and exits with status 1.
    class Failing(Hub):
        async def serve(
            self, path: str, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
        ) -> None:
            task_status.started()
            raise RuntimeError("a bug in the directory")

    reported = threading.Event()
    reasons: list[str] = []

    def failed(why: str) -> None:
        reasons.append(why)
        reported.set()

    workers._host_directory(Failing(), str(tmp_path / "directory"), failed)
    assert reported.wait(TIMEOUT)
    assert "a bug in the directory" in reasons[0]
