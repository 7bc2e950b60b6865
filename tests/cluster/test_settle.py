"""What makes a redirected client's name free on the game's node at once: the old node's
``flush`` and the new node's ``caught_up``, on the embedded directory of ``--workers``
(the PostgreSQL one is covered end to end by ``test_redirect.py``)."""

from __future__ import annotations

import json
import select
from pathlib import Path

import pytest
import trio

from dungeon_of_doom.server.cluster import hub as hubs
from dungeon_of_doom.server.cluster.hub import Hub

from ..helpers import TIMEOUT
from .test_hub_members import _hub, _member


async def test_a_name_let_go_and_flushed_is_free_on_another_node_once_caught_up(
    directory: tuple[Hub, str], nursery: trio.Nursery
) -> None:
    _, path = directory
    b_names = {"Ada"}
    a = await _member(nursery, path, names=set(), address="127.0.0.1:1")
    b = await _member(nursery, path, names=b_names, address="127.0.0.1:2")
    # A long heartbeat: without flush, B would tell nobody for a minute.
    await b.flush()
    await a.caught_up()
    assert a.name_elsewhere("Ada")
    b_names.clear()  # Ada was redirected away from B
    await b.flush()
    await a.caught_up()
    assert not a.name_elsewhere("Ada")


async def test_callers_of_caught_up_at_once_share_round_trips(
    directory: tuple[Hub, str], nursery: trio.Nursery
) -> None:
    _, path = directory
    a = await _member(nursery, path, names=set(), address="127.0.0.1:1")
    sent: list[str] = []
    barrier = a._barrier

    async def counted(token: str) -> None:
        sent.append(token)
        await barrier(token)

    a._barrier = counted  # type: ignore[method-assign]
    async with trio.open_nursery() as callers:
        for _ in range(50):
            callers.start_soon(a.caught_up)
    # The first caller's round trip, and one more shared by all who came during it.
    assert 1 <= len(sent) <= 2


async def test_a_first_line_that_is_not_an_object_ends_only_its_own_connection(
    directory: tuple[Hub, str], nursery: trio.Nursery
) -> None:
    # The hub is the workers' parent's: whatever one connection says, the others (and
    # ``--cluster-status``) are served on.
    hub, path = directory
    for line in (b"[]\n", b"1\n", b'"status"\n', b"null\n"):
        stray = await trio.open_unix_socket(path)
        await stray.send_all(line)
        with trio.fail_after(10):
            assert await stray.receive_some(100) == b""  # closed, unanswered
        await stray.aclose()
    a = await _member(nursery, path, names={"Ada"}, address="127.0.0.1:1")
    await a.flush()
    assert [node[0] for node in hub.status()["nodes"]] == [a.node]


async def _read_to_end(stream: trio.SocketStream) -> bytes:
    received = bytearray()
    with trio.fail_after(TIMEOUT):
        while data := await stream.receive_some(65536):
            received += data
    return bytes(received)


async def test_a_status_client_that_never_reads_is_ended_while_others_are_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: the answer's send_all had no bound, so a status client that never read
    # held one of the parent's hub tasks (and the answer) for as long as it stayed.
    monkeypatch.setattr(hubs, "STATUS_ANSWER_TIMEOUT", 2.0)
    path = str(tmp_path / "directory")
    hub = _hub()
    for index in range(20_000):  # an answer of about 1 MiB, past the sockets' buffers
        hub.games[f"game-{index:05}"] = ("node", "x" * 40)
    answer = json.dumps(hub.status()).encode() + b"\n"
    async with trio.open_nursery() as nursery:
        await nursery.start(hub.serve, path)
        stuck = await trio.open_unix_socket(path)
        await stuck.send_all(b'{"op": "status"}\n')
        other = await trio.open_unix_socket(path)
        await other.send_all(b'{"op": "status"}\n')
        assert await _read_to_end(other) == answer
        # The hub ends the stuck connection by itself: its socket is hung up on while
        # the client still has not read a byte.
        poller = select.poll()
        poller.register(stuck.socket.fileno(), select.POLLRDHUP)
        events = await trio.to_thread.run_sync(poller.poll, TIMEOUT * 1000)
        assert events, "the hub still holds the connection of a client that never reads"
        assert len(await _read_to_end(stuck)) < len(answer)
        await stuck.aclose()
        await other.aclose()
        nursery.cancel_scope.cancel()


async def test_a_member_whose_parent_goes_returns_from_caught_up_at_once(
    tmp_path: Path,
) -> None:
    # Before: a round trip under way when the hub's connection ended was never woken,
    # so caught_up (a HELLO waiting on it) took the whole SETTLE_TIMEOUT (5 s).
    path = str(tmp_path / "directory")
    hub, hub_scope = _hub(), trio.CancelScope()

    async def serve_hub(*, task_status: trio.TaskStatus[None]) -> None:
        with hub_scope:
            await hub.serve(path, task_status=task_status)

    async with trio.open_nursery() as nursery:
        await nursery.start(serve_hub)
        a = await _member(nursery, path, names={"Ada"}, address="127.0.0.1:1")
        await a.flush()
        assert a.reachable
        hub_scope.cancel()  # the parent goes, with every connection to it
        asked = trio.current_time()
        with trio.fail_after(TIMEOUT):
            await a.caught_up()  # entered while the member still thinks it reachable
        assert trio.current_time() - asked < 4.0  # SETTLE_TIMEOUT is 5 s
        assert not a.reachable
        nursery.cancel_scope.cancel()


async def test_workers_claiming_one_name_or_its_lookalikes_at_once_give_it_to_one(
    directory: tuple[Hub, str], nursery: trio.Nursery
) -> None:
    # Before: a name was told to the parent at a worker's next sync, never claimed: each
    # worker took it from its own copy, and every one of them answered GOLD.
    _, path = directory
    members = [await _member(nursery, path, address=f"127.0.0.1:{n}") for n in range(3)]
    for names in (["Zed0"] * 3, ["ada0", "Ada0", "\u0410da0"]):
        answers: list[str | None] = [None] * 3

        async def claim(number: int, name: str, answers: list[str | None]) -> None:
            answers[number] = await members[number].claim_name(name)

        async with trio.open_nursery() as claims:
            for number, name in enumerate(names):
                claims.start_soon(claim, number, name, answers)
        assert answers.count(None) == 1, answers
        winner = answers.index(None)
        assert members[winner].holds_name(names[winner])
        assert all(
            answer == f"{name} is playing on another node of this cluster; choose another name"
            for answer, name in zip(answers, names, strict=True)
            if answer is not None
        )


async def test_a_name_claimed_while_its_release_is_under_way_is_claimed_anew(
    directory: tuple[Hub, str], nursery: trio.Nursery, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: a sync letting a name go counted it as held until the parent had the
    # release, so a HELLO meanwhile was answered from that count; the release then
    # freed the name in the parent, and the player played under a name nobody held
    # (found by python -m bench.faults: a node lost such names at its next sync).
    hub, path = directory
    names = {"Ada"}
    a = await _member(nursery, path, names=names, address="127.0.0.1:1")
    await a.flush()  # the name in play is claimed by the sync
    assert (a.node, "Ada") in set(hub.keys.values())
    releasing, release = trio.Event(), trio.Event()
    send = a._send

    async def held_back(message: dict[str, object]) -> bool:
        sent = await send(message)
        if message["op"] == "unname":  # queued for the parent; the sync waits here
            releasing.set()
            await release.wait()
        return sent

    monkeypatch.setattr(a, "_send", held_back)
    names.clear()  # Ada left...
    a.publish()
    with trio.fail_after(TIMEOUT):
        await releasing.wait()
        assert await a.claim_name("Ada") is None  # ...and a HELLO Ada comes meanwhile
        await a.caught_up()  # the parent has the release, and whatever came after it
    assert (a.node, "Ada") in set(hub.keys.values())
    release.set()
