"""``EXTEND redirect``: a client told where another node's game lives connects there itself."""

from __future__ import annotations

import pytest
import trio

from dungeon_of_doom.clients import AsyncClient
from dungeon_of_doom.clients import Client as SyncClient
from dungeon_of_doom.clients.errors import Redirected
from dungeon_of_doom.protocol.replies import Identity

from .conftest import WAIT, Client, Cluster, eventually

REFUSAL = "ERROR {} is playing on another node of this cluster; choose another name"


def _listed(client: Client, name: str) -> None:
    eventually(lambda: name in client.games(), f"{name} is listed")


def _spectator(client: Client) -> Client:
    """``client`` watching its node's default game: its ``HELLO`` takes no name in play."""
    assert client.ask("WATCH default").startswith("GAME default ")
    rows = int(client.line().split()[1])
    for _ in range(rows):
        client.line()
    return client


def test_a_client_asking_for_redirect_is_told_the_game_s_node_and_keeps_its_name_there(
    cluster: Cluster,
) -> None:
    a, b = cluster.node(), cluster.node()
    ada, probe = a.client(), _spectator(a.client())
    assert ada.ask("EXTEND events") == "EXTENDED events"
    assert ada.ask("CREATE arena classic").startswith("GAME arena ")
    assert ada.ask("JOIN arena").startswith("GAME arena ")
    bob = b.client()
    _listed(bob, "arena")
    assert bob.ask("EXTEND redirect events") == "EXTENDED events redirect"
    assert bob.ask("HELLO Bob") == "GOLD 3"
    # A knows Bob plays on B, so the name is refused there as long as he does.
    eventually(lambda: probe.ask("HELLO Bob") == REFUSAL.format("Bob"), "A sees Bob on B")
    assert bob.ask("JOIN arena") == f"REDIRECT arena 127.0.0.1:{a.port}"
    assert bob.ask("WHOAMI") == "WHOAMI Bob default"  # still connected to B, in no game there
    # On A at once, under the same name: B let it go before it answered.
    moved = a.client()
    assert moved.ask("EXTEND redirect events") == "EXTENDED events redirect"
    assert moved.ask("HELLO Bob") == "GOLD 3"
    bob.close()
    joined = moved.ask("JOIN arena")
    assert joined.startswith("GAME arena world=classic map=default seed=0 players=2 ")
    assert ada.line() == "JOINED Bob"
    # A game the client's own node holds is answered as always.
    assert moved.ask("JOIN default").startswith("GAME default ")
    assert ada.line() == "LEFT Bob: moved"


def test_a_watch_is_redirected_and_a_client_without_redirect_is_still_carried(
    cluster: Cluster,
) -> None:
    a, b = cluster.node(), cluster.node()
    ada = a.client()
    assert ada.ask("CREATE arena classic").startswith("GAME arena ")
    assert ada.ask("JOIN arena").startswith("GAME arena ")
    cy, dee = b.client(), b.client()
    _listed(cy, "arena")
    assert cy.ask("EXTEND redirect") == "EXTENDED redirect"
    assert cy.ask("WATCH arena") == f"REDIRECT arena 127.0.0.1:{a.port}"
    assert dee.ask("WATCH arena").startswith("GAME arena ")  # carried through B
    carried_view = dee.line()
    watcher = a.client()
    assert watcher.ask("WATCH arena").startswith("GAME arena ")
    assert carried_view == watcher.line()  # the same VIEW, through the relay
    assert carried_view.startswith("VIEW ")


def test_the_client_library_follows_a_redirect_under_its_name(cluster: Cluster) -> None:
    a, b = cluster.node(), cluster.node()
    ada = a.client()
    assert ada.ask("EXTEND events") == "EXTENDED events"
    assert ada.ask("CREATE arena classic").startswith("GAME arena ")
    assert ada.ask("JOIN arena").startswith("GAME arena ")
    with SyncClient.connect("127.0.0.1", b.port, timeout=WAIT) as bob:
        eventually(lambda: "arena" in {game.name for game in bob.games()}, "B lists arena")
        assert bob.extend("redirect", "events") == {"redirect", "events"}
        assert bob.hello("Bob") == 3
        joined = bob.join("arena")  # answered by A, on a connection of its own
        assert (joined.name, joined.players) == ("arena", 2)
        assert ada.line() == "JOINED Bob"
        assert bob.whoami() == Identity("Bob", "arena")
        assert ada.ask("SHOUT hi") == "SUCCESS"  # Ada did not ask for chat
        bob.follow_redirects = False
        assert bob.join("default").name == "default"  # A's own: no redirect

    async def watch() -> None:
        async with AsyncClient.connect("127.0.0.1", b.port, timeout=WAIT) as cy:
            assert await cy.extend("redirect") == {"redirect"}
            assert await cy.hello("Cy") == 3
            cy.follow_redirects = False
            with pytest.raises(Redirected) as told:
                await cy.watch("arena")
            assert (told.value.game, told.value.port) == ("arena", a.port)
            cy.follow_redirects = True
            watched = await cy.watch("arena")
            assert watched.name == "arena"
            assert await cy.whoami() == Identity("Cy", "arena")

    trio.run(watch)


def test_a_logged_in_player_redirected_logs_in_and_says_hello_on_the_game_s_node(
    cluster: Cluster,
) -> None:
    a, b = cluster.node("--db", "auto"), cluster.node("--db", "auto")
    ada = a.client()
    assert ada.ask("CREATE arena classic").startswith("GAME arena ")
    assert ada.ask("JOIN arena").startswith("GAME arena ")
    bob = b.client()
    _listed(bob, "arena")
    keyword, name, token = bob.ask("REGISTER Bob").split(" ")
    assert (keyword, name) == ("REGISTERED", "Bob")
    assert bob.ask("EXTEND redirect") == "EXTENDED redirect"
    assert bob.ask("HELLO Bob") == "GOLD 3"
    probe = _spectator(a.client())  # logged in as Bob too, so only the cluster refuses it
    assert probe.ask(f"LOGIN Bob {token}") == "LOGGEDIN Bob"
    eventually(lambda: probe.ask("HELLO Bob") == REFUSAL.format("Bob"), "A sees Bob on B")
    assert bob.ask("JOIN arena") == f"REDIRECT arena 127.0.0.1:{a.port}"
    moved = a.client()
    assert moved.ask(f"LOGIN Bob {token}") == "LOGGEDIN Bob"
    assert moved.ask("HELLO Bob") == "GOLD 3"
    assert moved.ask("JOIN arena").startswith(
        "GAME arena world=classic map=default seed=0 players=2 "
    )
    bob.close()
