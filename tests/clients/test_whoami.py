"""WHOAMI, the example of a read-only verb: declared once, answered from what the session
knows, offered by both clients (the files it took: see docs/protocol.md)."""

from __future__ import annotations

import trio

from dungeon_of_doom.clients import AsyncClient, Client
from dungeon_of_doom.protocol.replies import Identity

from ..conftest import StartServer
from ..helpers import Peer, bound_port


async def test_whoami_over_the_wire(start_server: StartServer) -> None:
    server = await start_server()
    peer = await Peer.connect(bound_port(server))
    assert await peer.ask("WHOAMI") == ["WHOAMI # default"]  # not in a game yet, no name
    assert await peer.ask("whoami") == ["WHOAMI # default"]
    assert (await peer.ask("WHOAMI me"))[0].startswith("ERROR WHOAMI takes no arguments")
    assert await peer.ask("HELLO Ada Lovelace") == ["GOLD 3"]
    assert await peer.ask("WHOAMI") == ["WHOAMI Ada Lovelace default"]
    other = await Peer.connect(bound_port(server))
    await other.ask("LOOK")  # joins without a name: player 2, shown as #2
    assert await other.ask("WHOAMI") == ["WHOAMI #2 default"]
    assert (await other.ask("CREATE side classic"))[0].startswith("GAME side ")
    assert (await other.ask("WATCH side"))[0].startswith("GAME side ")
    view = await other.read_line()  # VIEW <rows> <cols>, then the rows of the map
    await other.read_lines(int(view.split()[1]))
    assert await other.ask("WHOAMI") == ["WHOAMI # side"]


async def test_whoami_from_both_clients(start_server: StartServer) -> None:
    server = await start_server()
    async with AsyncClient.connect(port=bound_port(server)) as client:
        assert await client.whoami() == Identity("#", "default")
        await client.hello("Ada")
        assert await client.whoami() == Identity("Ada", "default")

    def blocking() -> Identity:
        with Client.connect(port=bound_port(server)) as client:
            client.hello("Bob")
            return client.whoami()

    assert await trio.to_thread.run_sync(blocking) == Identity("Bob", "default")
