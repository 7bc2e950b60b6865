"""Each connection's state is compact: the objects a command touches keep no ``__dict__``.

Issue 31: at 1,000 connections the cost of a command is set by the cache more than by
the work, and an instance ``__dict__`` is a second object (and more cache lines) for
each of them. A later edit that drops a class's ``__slots__`` (or adds a subclass
without its own) gives its instances a ``__dict__`` again, and fails here.
"""

from __future__ import annotations

import weakref

import pytest

from protocol.connection import ServerProtocol
from protocol.dialects import DIALECTS
from server.session.client import Connection
from worlds.classic.world import ClassicWorld

from ..conftest import StartServer
from ..helpers import Peer, bound_port


def _with_dict(objects: dict[str, object]) -> list[str]:
    return [
        f"{name} ({type(value).__qualname__})"
        for name, value in objects.items()
        if hasattr(value, "__dict__")
    ]


def _parts(connection: Connection) -> dict[str, object]:
    """The objects of ``connection`` that every command touches."""
    return {
        "connection": connection,
        "transport": connection.transport,
        "protocol": connection.protocol,
        "framer": connection.protocol._framer,
        "dialect": connection.protocol.dialect,
    }


async def test_a_player_s_connection_objects_have_no_instance_dict(
    start_server: StartServer,
) -> None:
    server = await start_server(map="tiny", seed=1)
    peer = await Peer.connect(bound_port(server))
    assert (await peer.ask("LOOK"))[0] == "LOOKREPLY"  # a player now, served by the poller
    (connection,) = server.connections
    assert isinstance(connection, Connection)
    world = server.lobby.default.world
    assert isinstance(world, ClassicWorld)
    (player,) = world._players.values()
    objects = {**_parts(connection), "player": player}
    assert _with_dict(objects) == []
    # The lobby keeps a client's chat allowance by a weak reference to its connection.
    assert weakref.ref(connection)() is connection
    await peer.aclose()


async def test_a_greeting_dialect_s_connection_objects_have_no_instance_dict(
    start_server: StartServer,
) -> None:
    server = await start_server(map="tiny", seed=1, dialect="2015")
    peer = await Peer.connect(bound_port(server))
    assert (await peer.read_line()).startswith("GOLD")  # greeted: a player from the start
    (connection,) = server.connections
    assert isinstance(connection, Connection)
    objects = {**_parts(connection), "turn reminder": connection.turn_reminder}
    assert _with_dict(objects) == []
    await peer.aclose()


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_every_dialect_s_protocol_objects_have_no_instance_dict(dialect: str) -> None:
    protocol = ServerProtocol(dialect=dialect)  # as a connection makes its own
    objects: dict[str, object] = {
        "protocol": protocol,
        "framer": protocol._framer,
        "dialect": protocol.dialect,
    }
    assert _with_dict(objects) == []
