"""The poller on its own: socket pairs and clients that record what it asks of them."""

from __future__ import annotations

import os
import socket
import struct
from collections.abc import AsyncIterator

import pytest
import trio
import trio.testing

from server.app import Server
from server.session.poller import PER_ADDRESS_A_ROUND, Poller

from ..conftest import StartServer
from ..helpers import TIMEOUT, Peer

pytestmark = pytest.mark.skipif(not Poller.available(), reason="the poller needs epoll")


class Client:
    """Echoes what it reads in upper case; ``leave`` makes it leave, ``boom`` raise."""

    def __init__(self, name: str, sock: socket.socket, calls: list[str]) -> None:
        self.name = name
        self.sock = sock
        self.calls = calls
        self.reads = 0
        self.out = b""

    def take_input(self) -> bool:
        self.calls.append(f"take {self.name}")
        data = os.read(self.sock.fileno(), 4)  # small reads: a full socket stays ready
        self.reads += 1
        if data == b"boom":
            raise ValueError(f"{self.name} failed")
        self.out += data.upper()
        return data != b"leav"

    @property
    def session(self) -> Client:
        return self

    def settle(self) -> None:
        self.calls.append(f"settle {self.name}")

    def write_out(self) -> bool:
        self.calls.append(f"write {self.name}")
        os.write(self.sock.fileno(), self.out)
        self.out = b""
        return True


@pytest.fixture
async def poller(nursery: trio.Nursery) -> AsyncIterator[Poller]:
    poller = Poller()
    await nursery.start(poller.run)
    yield poller


def pair() -> tuple[socket.socket, socket.socket]:
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    theirs.setblocking(False)
    return ours, theirs


async def received(sock: socket.socket, size: int) -> bytes:
    data = b""
    with trio.fail_after(TIMEOUT):
        while len(data) < size:
            await trio.lowlevel.wait_readable(sock)
            data += sock.recv(size - len(data))
    return data


async def test_ready_clients_are_handled_then_settled_then_written_in_one_round(
    poller: Poller, nursery: trio.Nursery
) -> None:
    calls: list[str] = []
    (ada, ada_peer), (bob, bob_peer) = pair(), pair()
    for client in (Client("ada", ada, calls), Client("bob", bob, calls)):
        nursery.start_soon(poller.hold, client, client.sock.fileno())
    await trio.testing.wait_all_tasks_blocked()
    ada_peer.send(b"look")
    bob_peer.send(b"move")
    assert await received(ada_peer, 4) == b"LOOK"
    assert await received(bob_peer, 4) == b"MOVE"
    # No reply goes out before every client of the round has settled (the replays).
    assert sorted(calls[:2]) == ["take ada", "take bob"]
    assert sorted(calls[2:4]) == ["settle ada", "settle bob"]
    assert sorted(calls[4:]) == ["write ada", "write bob"]
    assert poller.rounds == 1


async def test_one_address_gets_a_few_clients_read_a_round_and_they_take_turns(
    poller: Poller, nursery: trio.Nursery
) -> None:
    calls: list[str] = []
    flooders: list[Client] = []
    peers: list[socket.socket] = []  # kept open: the flood's input stays unread
    for number in range(5 * PER_ADDRESS_A_ROUND):
        ours, peer = pair()
        peer.send(b"look" * 50)  # fifty reads' worth: ready round after round
        flooders.append(Client(f"flood{number}", ours, calls))
        peers.append(peer)
    player, player_peer = pair()
    player_peer.send(b"look")
    for client in flooders:
        nursery.start_soon(poller.hold, client, client.sock.fileno(), "10.0.0.1")
    nursery.start_soon(poller.hold, Client("player", player, calls), player.fileno(), "10.0.0.2")
    assert await received(player_peer, 4) == b"LOOK"
    first_round = calls[: calls.index(next(call for call in calls if call.startswith("settle")))]
    # The player is read in the first round, beside only a few of the flood's clients.
    assert "take player" in first_round
    assert len(first_round) == 1 + PER_ADDRESS_A_ROUND, first_round
    # Each flooding client gets its turn in the rounds after.
    with trio.fail_after(TIMEOUT):
        while any(client.reads == 0 for client in flooders):
            await trio.sleep(0)


async def test_the_clients_of_one_address_alone_are_all_read_in_a_round(
    poller: Poller, nursery: trio.Nursery
) -> None:
    # Before: four a round whoever else was waiting, so behind a proxy (every player at
    # its address) 10,000 bots were answered 768 commands a second, p50 7 s.
    calls: list[str] = []
    peers: list[socket.socket] = []
    socks: list[socket.socket] = []
    for _ in range(3 * PER_ADDRESS_A_ROUND):
        ours, peer = pair()
        peer.send(b"look")
        peers.append(peer)
        socks.append(ours)
    for number, ours in enumerate(socks):
        client = Client(f"proxied{number}", ours, calls)
        nursery.start_soon(poller.hold, client, ours.fileno(), "10.0.0.9")
    with trio.fail_after(TIMEOUT):
        for peer in peers:
            assert await received(peer, 4) == b"LOOK"
    first_round = calls[: calls.index(next(call for call in calls if call.startswith("settle")))]
    assert len(first_round) == 3 * PER_ADDRESS_A_ROUND, first_round
    assert poller._turn == {}


async def test_an_address_whose_flood_is_gone_leaves_nothing_behind_in_the_poller(
    poller: Poller, nursery: trio.Nursery
) -> None:
    # Every address that ever flooded would otherwise keep its place in the turns for
    # as long as the server runs: memory that grows with the addresses seen.
    calls: list[str] = []
    peers: list[socket.socket] = []  # kept open: the flood's input stays unread
    player, player_peer = pair()
    nursery.start_soon(poller.hold, Client("player", player, calls), player.fileno(), "10.0.0.2")
    async with trio.open_nursery() as flood:
        for number in range(2 * PER_ADDRESS_A_ROUND):
            ours, peer = pair()
            peer.send(b"look" * 50)
            peers.append(peer)
            client = Client(f"flood{number}", ours, calls)
            flood.start_soon(poller.hold, client, ours.fileno(), "10.0.0.1")
        with trio.fail_after(TIMEOUT):
            while not any(call.startswith("take flood") for call in calls):
                await trio.sleep(0)
        flood.cancel_scope.cancel()  # the flood's clients go, their input still unread
    player_peer.send(b"look")
    assert await received(player_peer, 4) == b"LOOK"
    assert poller._turn == {}


async def test_the_poller_counts_the_addresses_it_holds_until_their_clients_leave(
    poller: Poller,
) -> None:
    # A round is shared out only while clients of two addresses are held (issue 31):
    # a client that leaves, by its own say, by an exception or by cancellation, must
    # take its address's count with it, or a lone address's rounds are shared out for
    # ever, and an address counted short would let a flood starve the others.
    calls: list[str] = []
    (ada, ada_peer), (bob, bob_peer), (cid, _cid_peer) = pair(), pair(), pair()
    left: list[str] = []

    async def hold(client: Client, address: str | None) -> None:
        try:
            await poller.hold(client, client.sock.fileno(), address)
            left.append(client.name)
        except ValueError:
            left.append(f"{client.name} raised")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(hold, Client("ada", ada, calls), "10.0.0.1")
        nursery.start_soon(hold, Client("bob", bob, calls), "10.0.0.2")
        nursery.start_soon(hold, Client("cid", cid, calls), None)
        await trio.testing.wait_all_tasks_blocked()
        assert poller._parties == {"10.0.0.1": 1, "10.0.0.2": 1, None: 1}
        ada_peer.send(b"leav")
        bob_peer.send(b"boom")
        with trio.fail_after(TIMEOUT):
            while len(left) < 2:
                await trio.sleep(0)
        assert sorted(left) == ["ada", "bob raised"]
        assert poller._parties == {None: 1}
        nursery.cancel_scope.cancel()  # cid's task is cancelled while held
    assert poller._parties == {}
    assert poller._held == {}


async def test_a_client_that_leaves_gets_its_replies_and_returns_to_its_task(
    poller: Poller,
) -> None:
    calls: list[str] = []
    ours, peer = pair()
    client = Client("ada", ours, calls)
    peer.send(b"leav")
    with trio.fail_after(TIMEOUT):
        assert await poller.hold(client, ours.fileno()) is True
    assert calls == ["take ada", "settle ada", "write ada"]
    assert await received(peer, 4) == b"LEAV"
    # It is out of the poller: what comes next is not read by it.
    peer.send(b"more")
    await trio.testing.wait_all_tasks_blocked()
    assert client.reads == 1


async def test_a_clients_exception_is_raised_in_its_own_task_and_the_others_are_served(
    poller: Poller, nursery: trio.Nursery
) -> None:
    calls: list[str] = []
    (ada, ada_peer), (bob, bob_peer) = pair(), pair()
    bob_client = Client("bob", bob, calls)
    nursery.start_soon(poller.hold, bob_client, bob.fileno())
    ada_peer.send(b"boom")
    bob_peer.send(b"look")
    with trio.fail_after(TIMEOUT), pytest.raises(ValueError, match="ada failed"):
        await poller.hold(Client("ada", ada, calls), ada.fileno())
    assert await received(bob_peer, 4) == b"LOOK"
    bob_peer.send(b"more")
    assert await received(bob_peer, 4) == b"MORE"


async def test_cancelling_a_held_clients_task_takes_it_out_of_the_poller(
    poller: Poller,
) -> None:
    calls: list[str] = []
    ours, peer = pair()
    client = Client("ada", ours, calls)
    with trio.move_on_after(0) as scope:  # cancelled at its first checkpoint: the park
        await poller.hold(client, ours.fileno())
    assert scope.cancelled_caught
    peer.send(b"look")
    await trio.testing.wait_all_tasks_blocked()
    assert calls == []
    # Its descriptor can be held again (it left the epoll set cleanly).
    another = trio.CancelScope()

    async def hold_again() -> None:
        with another:
            await poller.hold(client, ours.fileno())

    async with trio.open_nursery() as nursery:
        nursery.start_soon(hold_again)
        assert await received(peer, 4) == b"LOOK"
        another.cancel()


async def test_a_client_that_keeps_its_socket_full_is_read_once_a_round(
    poller: Poller, nursery: trio.Nursery
) -> None:
    calls: list[str] = []
    (ada, ada_peer), (bob, bob_peer) = pair(), pair()
    flooder, other = Client("ada", ada, calls), Client("bob", bob, calls)
    for client in (flooder, other):
        nursery.start_soon(poller.hold, client, client.sock.fileno())
    await trio.testing.wait_all_tasks_blocked()
    ada_peer.send(b"abcd" * 1000)  # a thousand reads' worth
    bob_peer.send(b"look")
    assert await received(bob_peer, 4) == b"LOOK"
    # Bob was answered in the first round or the second, not after the flood.
    assert flooder.reads <= 2
    assert flooder.reads == poller.rounds or flooder.reads == poller.rounds - 1


async def test_stopping_the_poller_hands_every_client_back() -> None:
    calls: list[str] = []
    ours, _peer = pair()
    poller = Poller()
    returned: list[bool] = []

    async def hold() -> None:
        returned.append(await poller.hold(Client("ada", ours, calls), ours.fileno()))

    async with trio.open_nursery() as clients, trio.open_nursery() as polling:
        await polling.start(poller.run)
        clients.start_soon(hold)
        await trio.testing.wait_all_tasks_blocked()
        polling.cancel_scope.cancel()
    assert returned == [False]
    assert not poller.running
    # A poller that does not run holds nobody: the caller serves itself.
    assert await poller.hold(Client("ada", ours, calls), ours.fileno()) is False


async def test_tcp_clients_are_served_by_the_servers_poller(start_server: StartServer) -> None:
    server = await start_server(map="tiny", seed=1)
    assert server.poller is not None and server.poller.running
    ada, bob = await Peer.connect(server.port or 0), await Peer.connect(server.port or 0)
    assert await ada.ask("LOOK") == ["LOOKREPLY", "X###X", "#####", "##G.E", "#####", "X###X"]
    assert (await bob.ask("LOOK"))[0] == "LOOKREPLY"
    assert await ada.ask("PICKUP") == ["SUCCESS, GOLD COINS: 1"]
    assert server.poller.rounds >= 3


async def test_without_a_poller_each_client_is_served_by_its_own_task(
    start_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Systems without epoll (macOS, Windows) take this path.
    monkeypatch.setattr(Poller, "available", staticmethod(lambda: False))
    server = await start_server(map="tiny", seed=1)
    assert server.poller is None
    ada = await Peer.connect(server.port or 0)
    assert await ada.ask("LOOK") == ["LOOKREPLY", "X###X", "#####", "##G.E", "#####", "X###X"]
    assert await ada.ask("PICKUP") == ["SUCCESS, GOLD COINS: 1"]
    assert await ada.ask("MOVE E") == ["SUCCESS"]
    assert isinstance(server, Server)


async def test_a_client_that_resets_while_held_is_gone_and_the_others_play_on(
    start_server: StartServer,
) -> None:
    server = await start_server(map="tiny", seed=1)
    ada, bob = await Peer.connect(server.port or 0), await Peer.connect(server.port or 0)
    assert (await ada.ask("LOOK"))[0] == "LOOKREPLY"
    assert (await bob.ask("LOOK"))[0] == "LOOKREPLY"
    assert len(server.connections) == 2
    # A reset (SO_LINGER 0), not an orderly close: the poller's read fails.
    ada.stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    ada.stream.socket.close()
    with trio.fail_after(TIMEOUT):
        while len(server.connections) > 1:
            await trio.testing.wait_all_tasks_blocked()
    assert (await bob.ask("LOOK"))[0] == "LOOKREPLY"
    assert server.lobby.default.info().players == 1
