"""REGISTER and LOGIN against one hostile address: hashing bounded, rates per address (issue 28)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from dungeon_of_doom.records import names
from dungeon_of_doom.records.store import Store

from ..conftest import StartServer
from ..helpers import TIMEOUT, Peer, bound_port

BUSY = (
    "ERROR the server is busy checking other logins (hash_threads, max_hash_queue); "
    "retry in a moment"
)


async def other_address(port: int) -> Peer:
    """A client from 127.0.0.2: another address, as the per-address limits count."""
    return Peer(await trio.open_tcp_stream("127.0.0.1", port, local_address="127.0.0.2"))


class GatedHash:
    """``names.hash_token`` that waits for ``gate`` and counts the hashes running at once."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0
        self.hash = names.hash_token

    def __call__(self, token: str) -> str:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        self.entered.set()
        try:
            self.gate.wait(TIMEOUT)
            return self.hash(token)
        finally:
            with self.lock:
                self.running -= 1


async def test_hashes_run_in_their_own_threads_and_a_full_queue_is_refused_at_once(
    start_server: StartServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: every REGISTER hashed in trio's shared pool, 40 at once (64 MiB each).
    gated = GatedHash()
    monkeypatch.setattr(names, "hash_token", gated)
    server = await start_server(
        map="tiny",
        db=f"sqlite:///{tmp_path / 'r.db'}",
        hash_threads=1,
        max_hash_queue=2,
        login_burst=100,
        register_burst=100,  # six names at once from one address: only hashing refuses
    )
    peers = [await Peer.connect(bound_port(server)) for _ in range(6)]
    answers: dict[int, str] = {}
    three_refused = trio.Event()

    async def answer(index: int) -> None:
        line = await peers[index].read_line()
        answers[index] = line
        if sum(a == BUSY for a in answers.values()) == 3:
            three_refused.set()

    try:
        async with trio.open_nursery() as nursery:
            for index, peer in enumerate(peers):
                await peer.send(f"REGISTER n{index}\n")
                nursery.start_soon(answer, index)
            # Whatever order the server reads them in: one hashing, two waiting, and
            # the other three refused at once, while the gate holds the first hash.
            with trio.fail_after(TIMEOUT):
                await three_refused.wait()
            assert await trio.to_thread.run_sync(gated.entered.wait, TIMEOUT)
            assert gated.running == 1
            assert server.ladder.hashes.pending == 3
            gated.gate.set()
    finally:
        gated.gate.set()
    registered = sorted(index for index, line in answers.items() if line != BUSY)
    assert len(registered) == 3
    for index in registered:
        assert answers[index].startswith(f"REGISTERED n{index} ")
    assert gated.most == 1
    # A refused REGISTER claimed nothing and may be sent again.
    refused = next(index for index, line in answers.items() if line == BUSY)
    assert (await peers[refused].ask(f"REGISTER n{refused}"))[0].startswith(
        f"REGISTERED n{refused} "
    )


async def test_one_address_sends_register_and_login_only_so_fast(
    start_server: StartServer, tmp_path: Path
) -> None:
    server = await start_server(
        map="tiny", db=f"sqlite:///{tmp_path / 'r.db'}", login_burst=3, login_rate=0.001
    )
    refusal = [
        "ERROR too many REGISTER and LOGIN commands from your address: at most 3 at once "
        "and 0.001 a second (login_rate); retry in a moment"
    ]
    for index in range(3):  # spread over connections: the limit is the address's
        peer = await Peer.connect(bound_port(server))
        assert await peer.ask(f"LOGIN n{index} x") == [
            f"ERROR the name 'n{index}' is not claimed; REGISTER n{index} claims it"
        ]
    peer = await Peer.connect(bound_port(server))
    assert await peer.ask("LOGIN n9 x") == refusal
    assert await peer.ask("REGISTER n9") == refusal
    assert await peer.ask("LEADERBOARD") == ["LEADERBOARD classic 0"]
    other = await other_address(bound_port(server))
    assert (await other.ask("REGISTER n9"))[0].startswith("REGISTERED n9 ")


async def test_one_address_claims_names_only_so_fast(
    start_server: StartServer, tmp_path: Path
) -> None:
    server = await start_server(
        map="tiny", db=f"sqlite:///{tmp_path / 'r.db'}", register_burst=2, register_per_hour=1
    )
    first = await Peer.connect(bound_port(server))
    assert (await first.ask("REGISTER a"))[0].startswith("REGISTERED a ")
    assert await first.ask("REGISTER a") == ["ERROR the name 'a' is claimed already"]
    second = await Peer.connect(bound_port(server))
    assert (await second.ask("REGISTER b"))[0].startswith("REGISTERED b ")
    assert await second.ask("REGISTER c") == [
        "ERROR your address has claimed names too fast: at most 2 at once and 1 an hour "
        "(register_per_hour); retry later"
    ]
    other = await other_address(bound_port(server))
    assert (await other.ask("REGISTER c"))[0].startswith("REGISTERED c ")


async def test_a_flood_of_register_for_a_name_with_games_reaches_the_store_at_the_claims_pace(
    start_server: StartServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: each REGISTER asked the store for the name's games before the address's
    # claims were counted, so every one of the flood cost a query on the writer's thread.
    server = await start_server(
        map="tiny",
        db=f"sqlite:///{tmp_path / 'r.db'}",
        login_burst=1000,
        register_burst=2,
        register_per_hour=1,
    )
    ada = await Peer.connect(bound_port(server))
    assert (await ada.ask("HELLO Ada"))[0].startswith("GOLD ")
    await ada.ask("QUIT")
    writer = server.ladder.writer
    assert writer is not None
    with trio.fail_after(TIMEOUT):
        await writer.wait_written(1)
        await writer.drained()
    asked: list[str] = []
    history = Store.history

    def counted(store: Store, name: str, *rest: Any) -> Any:
        asked.append(name)
        return history(store, name, *rest)

    monkeypatch.setattr(Store, "history", counted)
    stranger = await Peer.connect(bound_port(server))
    games = (
        "ERROR the name 'Ada' has games on the ladder: only a player playing as 'Ada' "
        "now may REGISTER it (HELLO Ada, then REGISTER Ada)"
    )
    too_fast = (
        "ERROR your address has claimed names too fast: at most 2 at once and 1 an hour "
        "(register_per_hour); retry later"
    )
    answers = [(await stranger.ask("REGISTER Ada"))[0] for _ in range(10)]
    assert answers == [games] * 2 + [too_fast] * 8
    assert asked == ["Ada", "Ada"]


async def test_a_register_refused_as_the_hashing_is_busy_spends_none_of_the_address_s_names(
    start_server: StartServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A REGISTER spends its address's allowance before the store is asked about the
    # name's games; one then refused because every hashing thread is busy gives it back.
    gated = GatedHash()
    monkeypatch.setattr(names, "hash_token", gated)
    asked, ask_freely = threading.Event(), threading.Event()
    history = Store.history

    def held(store: Store, name: str, *rest: Any) -> Any:
        asked.set()
        ask_freely.wait(TIMEOUT)
        return history(store, name, *rest)

    monkeypatch.setattr(Store, "history", held)
    server = await start_server(
        map="tiny",
        db=f"sqlite:///{tmp_path / 'r.db'}",
        hash_threads=1,
        max_hash_queue=0,
        register_burst=2,
        register_per_hour=1,
    )
    writer = server.ladder.writer
    assert writer is not None
    with trio.fail_after(TIMEOUT):
        await writer.ready()
    first, second = [await Peer.connect(bound_port(server)) for _ in range(2)]
    try:
        await first.send("REGISTER a\n")
        assert await trio.to_thread.run_sync(asked.wait, TIMEOUT)
        # Both pass the hashing's check and spend their allowance while nothing hashes.
        await second.send("REGISTER b\n")
        await trio.testing.wait_all_tasks_blocked()
        assert writer._limiter.statistics().tasks_waiting == 1
        ask_freely.set()
        with trio.fail_after(TIMEOUT):
            assert await second.read_line() == BUSY
        gated.gate.set()
        with trio.fail_after(TIMEOUT):
            assert (await first.read_line()).startswith("REGISTERED a ")
    finally:
        ask_freely.set()
        gated.gate.set()
    assert (await second.ask("REGISTER b"))[0].startswith("REGISTERED b ")
