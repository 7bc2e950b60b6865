"""The :class:`~server.lobby.lobby.Lobby` on its own: clients are outboxes in memory, no socket."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import trio
import trio.testing

from protocol.commands import Command, parse_command
from protocol.replies import Error, GameInfo, GameOver, GamesReply, LookReply, View
from server.lobby.lobby import Lobby
from server.setup.config import ServerConfig

from .outboxes import MemoryOutbox


def command(line: str) -> Command:
    parsed = parse_command(line)
    assert parsed is not None, f"{line!r} is no command"
    return parsed


@pytest.fixture
async def lobby() -> AsyncIterator[Lobby]:
    config = ServerConfig(
        map="tiny",
        seed=1,
        replay_dir=None,
        max_games=3,
        max_games_per_client=1,
        max_players_per_game=5,
    )
    lobby = Lobby(config)
    async with trio.open_nursery() as nursery:
        await nursery.start(lobby.run)
        yield lobby
        nursery.cancel_scope.cancel()


async def create(lobby: Lobby, client: MemoryOutbox, line: str) -> None:
    """Send ``CREATE ...`` and wait for the lobby's answer (the world is built off the loop)."""
    lobby.handle(client, command(line))
    if client.waiting is not None:
        with trio.fail_after(10):
            await client.waiting.wait()


async def test_games_lists_the_default_game(lobby: Lobby) -> None:
    ada = MemoryOutbox()
    lobby.handle(ada, command("GAMES"))
    (reply,) = ada.replies
    assert isinstance(reply, GamesReply)
    assert [game.name for game in reply.games] == ["default"]


async def test_create_then_join_puts_the_client_in_that_game(lobby: Lobby) -> None:
    ada = MemoryOutbox("Ada")
    await create(lobby, ada, "CREATE g classic map=tiny seed=2")
    (created,) = ada.replies
    assert isinstance(created, GameInfo) and created.name == "g" and created.players == 0
    ada.replies.clear()
    lobby.handle(ada, command("JOIN g"))
    assert isinstance(ada.replies[-1], GameInfo) and ada.replies[-1].players == 1
    game = lobby.games["g"]
    assert lobby.game_for(ada) is game
    seat = lobby.seat(ada)
    assert seat is not None and seat[0] is game and game.name_of(seat[1]) == "Ada"
    lobby.command(ada, command("LOOK"))  # a game command goes to the game it plays in
    assert isinstance(ada.replies[-1], LookReply)
    assert lobby.default.players == {}
    # Joining again answers with the game, and nothing changes.
    lobby.handle(ada, command("JOIN g"))
    assert ada.replies[-1] == game.info() and len(game.players) == 1


async def test_a_client_moves_from_the_default_game_to_another_and_back(lobby: Lobby) -> None:
    ada, bob = MemoryOutbox("Ada"), MemoryOutbox("Bob", events=True)
    lobby.command(ada, command("LOOK"))
    lobby.command(bob, command("LOOK"))
    assert len(lobby.default.players) == 2
    await create(lobby, ada, "CREATE g classic map=tiny")
    lobby.handle(ada, command("JOIN g"))
    assert lobby.default.player_of(ada) is None and lobby.games["g"].player_of(ada) is not None
    assert "LEFT Ada: moved" in bob.lines()
    lobby.handle(ada, command("JOIN default"))
    assert lobby.game_for(ada) is lobby.default and lobby.default.player_of(ada) is not None


async def test_a_name_taken_in_the_game_is_refused_on_join(lobby: Lobby) -> None:
    first, second = MemoryOutbox("Ada"), MemoryOutbox("Ada")
    await create(lobby, first, "CREATE g classic map=tiny")
    lobby.handle(first, command("JOIN g"))
    lobby.handle(second, command("JOIN g"))
    assert second.lines() == ["ERROR the name 'Ada' is taken in g; choose another first"]
    assert lobby.seat(second) is None


async def test_watching_sends_the_map_and_every_change_then_the_end(lobby: Lobby) -> None:
    ada, eve = MemoryOutbox("Ada"), MemoryOutbox()
    await create(lobby, ada, "CREATE g classic map=tiny")
    lobby.handle(ada, command("JOIN g"))
    lobby.handle(eve, command("WATCH g"))
    game = lobby.games["g"]
    assert eve.replies[0] == game.info() and isinstance(eve.replies[1], View)
    assert lobby.watching(eve) is game and lobby.seat(eve) is None
    eve.replies.clear()
    lobby.command(ada, command("MOVE W"))
    assert [type(reply) for reply in eve.replies] == [View]
    lobby.command(eve, command("MOVE W"))  # a spectator cannot act
    assert (
        eve.lines()[-1] == "ERROR you are watching g; spectators cannot MOVE (send JOIN g to play)"
    )
    lobby.leave(ada, "quit")  # the last player left: the game is over for its spectators
    assert GameOver("g is over after 1 rounds") in eve.replies
    assert "g" in lobby.games  # restarted, since someone watches it


async def test_a_created_game_nobody_watches_goes_when_its_last_player_leaves(
    lobby: Lobby,
) -> None:
    ada = MemoryOutbox()
    await create(lobby, ada, "CREATE g classic map=tiny")
    lobby.handle(ada, command("JOIN g"))
    game = lobby.games["g"]
    lobby.leave(ada, "quit")
    assert "g" not in lobby.games and game.closed
    assert lobby.game_for(ada) is lobby.default


async def test_limits_are_refused_with_an_error_naming_them(lobby: Lobby) -> None:
    ada, bob, cat = MemoryOutbox(), MemoryOutbox(), MemoryOutbox()
    await create(lobby, ada, "CREATE a classic map=tiny")
    await create(lobby, ada, "CREATE a2 classic map=tiny")
    assert "(max_games_per_client)" in ada.lines()[-1]
    await create(lobby, bob, "CREATE a classic map=tiny")
    assert bob.lines() == ["ERROR there is already a game called a"]
    await create(lobby, cat, "CREATE c classic map=tiny players=6")
    assert cat.lines()[-1].startswith("ERROR players= may be at most 5 here")
    await create(lobby, bob, "CREATE b classic map=tiny")
    await create(lobby, cat, "CREATE c classic map=tiny")
    assert "(max_games)" in cat.lines()[-1]
    lobby.handle(cat, command("JOIN nosuch"))
    assert cat.lines() == ["ERROR there is no game called nosuch; send GAMES for the list"]


async def test_a_creators_unjoined_game_outlives_it_and_still_counts_against_its_address(
    lobby: Lobby,
) -> None:
    # The README's flow: `printf 'CREATE arena ...' | nc` then bots JOIN arena. Before,
    # the game went with its creator's connection: "there is no game called arena".
    ada, eve = MemoryOutbox(), MemoryOutbox()
    await create(lobby, ada, "CREATE g classic map=tiny")
    lobby.handle(eve, command("WATCH g"))
    eve.replies.clear()
    lobby.client_gone(ada)
    assert "g" in lobby.games
    assert eve.replies == []
    assert lobby.seating.held(ada.address) == {"g"}
    bob = MemoryOutbox()
    lobby.handle(bob, command("JOIN g"))
    assert bob.lines()[0].startswith("GAME g ")


async def test_a_played_game_goes_with_its_creator_once_nobody_plays_or_watches_it(
    lobby: Lobby,
) -> None:
    # Unlike a game nobody has joined yet: that one waits for its first player.
    ada, bob = MemoryOutbox(), MemoryOutbox()
    await create(lobby, ada, "CREATE g classic map=tiny")
    lobby.handle(ada, command("WATCH g"))
    lobby.handle(bob, command("JOIN g"))
    lobby.leave(bob, "quit")  # the game is over, and restarts for its spectator
    await trio.testing.wait_all_tasks_blocked()
    assert "g" in lobby.games
    lobby.leave(ada, "disconnected")
    lobby.client_gone(ada)
    assert "g" not in lobby.games


async def test_an_unknown_world_is_refused(lobby: Lobby) -> None:
    ada = MemoryOutbox()
    await create(lobby, ada, "CREATE g nosuchworld")
    (reply,) = ada.replies
    assert isinstance(reply, Error) and "nosuchworld" in reply.message


async def test_what_an_address_holds_is_counted_as_its_clients_move() -> None:
    config = ServerConfig(
        map="tiny", replay_dir=None, max_games=10, max_games_per_address=3, unjoined_game_timeout=0
    )
    lobby = Lobby(config)
    async with trio.open_nursery() as nursery:
        await nursery.start(lobby.run)
        owners = MemoryOutbox(address="192.0.2.8"), MemoryOutbox(address="192.0.2.9")
        for owner, name in zip((*owners[:1] * 3, owners[1]), "abcd", strict=True):
            await create(lobby, owner, f"CREATE {name} classic map=tiny")
        assert sorted(lobby.games) == ["a", "b", "c", "d", "default"]
        ada, bob, cy, di = (MemoryOutbox(name) for name in ("Ada", "Bob", "Cy", "Di"))
        lobby.handle(ada, command("JOIN a"))  # all four of 192.0.2.1
        lobby.handle(bob, command("WATCH b"))
        lobby.handle(bob, command("WATCH a"))  # a move: b is no longer held
        assert lobby.seating.held("192.0.2.1") == {"a"}
        lobby.handle(bob, command("JOIN b"))
        lobby.handle(cy, command("JOIN c"))
        assert lobby.seating.held("192.0.2.1") == {"a", "b", "c"}
        lobby.handle(di, command("WATCH d"))
        assert di.lines()[-1] == (
            "ERROR your address holds 3 games already (max_games_per_address); leave one first"
        )
        lobby.handle(ada, command("WATCH d"))  # ada alone held a: she may move
        assert lobby.seating.held("192.0.2.1") == {"b", "c", "d"}
        for client in (ada, bob, cy, di):
            lobby.leave(client, "quit")
        assert lobby.seating.held("192.0.2.1") == set() and lobby.seating._seated == {}
        nursery.cancel_scope.cancel()
