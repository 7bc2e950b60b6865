"""A :class:`~server.game.game.Game` on its own: clients are outboxes in memory, no socket."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import pytest
import trio

from protocol.commands import Command, parse_command
from protocol.replies import (
    Bye,
    Done,
    Error,
    GameOver,
    Gold,
    LookReply,
    Lose,
    Message,
    PlayerJoined,
    PlayerLeft,
    Seen,
    View,
    Win,
)
from server.game.builds import QUICK, WorldBuilder, open_world
from server.game.game import Game
from server.session.greetings import greet
from worlds.api import Action, Event, PlayerId, World
from worlds.limits import OPERATOR_LIMITS, Limits
from worlds.registry import load_plugin

from .games import Hooks, game_of
from .outboxes import MemoryOutbox

# The tiny map from seed 1: the player starts two squares west of the exit, on the
# gold's right ("##G.E"); see tests/server/test_session.py for the bytes of a game.
WINNING_MOVES = ["MOVE W", "PICKUP", "MOVE E", "MOVE E"]


def command(line: str) -> Command:
    parsed = parse_command(line)
    assert parsed is not None, f"{line!r} is no command"
    return parsed


def tiny_game(**settings: Any) -> Game:
    return game_of("classic", "tiny", 1, **settings)


async def test_a_client_joins_with_its_first_command_and_is_answered() -> None:
    game = tiny_game()
    ada = MemoryOutbox("Ada")
    game.handle(ada, command("LOOK"))
    assert ada.lines() == ["LOOKREPLY", "X###X", "#####", "##G.E", "#####", "X###X"]
    player = game.player_of(ada)
    assert player is not None and game.players[player] is ada
    assert game.name_of(player) == "Ada"
    assert game.info().players == 1


async def test_hello_names_the_player_and_a_taken_name_is_refused_without_joining() -> None:
    game = game_of("classic", None, 3)
    ada, other = MemoryOutbox(), MemoryOutbox()
    game.handle(ada, command("HELLO Ada"))
    assert ada.replies == [Gold(game.world.goal, name="Ada", held=0)]
    game.handle(other, command("HELLO Ada"))
    assert other.lines() == ["ERROR the name 'Ada' is taken in this game; choose another"]
    assert game.player_of(other) is None
    # A client whose asked name is taken here joins unnamed, and its outbox is untouched.
    taken = MemoryOutbox("Ada")
    game.handle(taken, command("LOOK"))
    player = game.player_of(taken)
    assert player is not None and game.name_of(player) is None
    assert taken.name == "Ada"


async def test_others_who_asked_for_events_are_told_of_joins_moves_and_leaves() -> None:
    game = game_of("classic", "default", 5)
    watcher_of_all = MemoryOutbox("Eve", events=True)
    game.handle(watcher_of_all, command("LOOK"))
    deaf = MemoryOutbox("Deaf")
    game.handle(deaf, command("LOOK"))
    bob = MemoryOutbox("Bob")
    game.handle(bob, command("LOOK"))
    assert watcher_of_all.of(PlayerJoined) == [PlayerJoined("Deaf"), PlayerJoined("Bob")]
    assert deaf.of(PlayerJoined) == []
    game.leave(bob, "quit")
    assert PlayerLeft("Bob", "quit") in watcher_of_all.replies
    assert deaf.of(PlayerLeft) == []
    # A spectator sees every action, and the whole map after it.
    spectator = MemoryOutbox(events=True)
    game.watch(spectator)
    assert spectator.replies[0] == game.info() and isinstance(spectator.replies[1], View)
    spectator.lines()
    game.handle(deaf, command("PICKUP"))
    assert [seen.player for seen in spectator.of(Seen)] == ["Deaf"]


async def test_chat_reaches_those_who_asked_for_it() -> None:
    game = tiny_game()
    ada, bob, mute = MemoryOutbox("Ada"), MemoryOutbox("Bob", chat=True), MemoryOutbox()
    for client in (ada, bob, mute):
        game.handle(client, command("LOOK"))
        client.lines()
    game.handle(ada, command("SHOUT hello all"))
    assert ada.replies == [Done()]
    assert bob.replies == [Message("Ada", "hello all")]
    assert mute.replies == []


async def test_a_win_ends_the_game_for_the_player_and_a_fresh_world_replaces_it() -> None:
    game = tiny_game()
    ada = MemoryOutbox("Ada")
    spectator = MemoryOutbox()
    game.watch(spectator)
    game.handle(ada, command("LOOK"))
    first_world = game.world
    for line in WINNING_MOVES:
        game.handle(ada, command(line))
    assert isinstance(ada.final, Win) and ada.closed
    assert ada.lines()[-1].startswith("WIN You escaped the dungeon with 1 gold")
    assert GameOver("g is over after 4 rounds") in spectator.replies
    # The game restarted at once (the tiny map builds in no time): a fresh world.
    assert game.world is not first_world and game.round == 0 and not game.players
    assert game.player_of(ada) is None
    bob = MemoryOutbox("Bob")
    game.handle(bob, command("LOOK"))
    assert bob.lines()[3] == "##G.E"


async def test_a_game_that_is_not_restarted_is_closed_when_its_last_player_leaves() -> None:
    game = tiny_game(hooks=Hooks(keep=False))
    ada = MemoryOutbox()
    game.handle(ada, command("LOOK"))
    game.leave(ada, "quit")
    assert game.closed


async def test_no_command_reaches_a_game_for_a_client_that_does_not_play_there() -> None:
    game = tiny_game()
    spectator = MemoryOutbox()
    game.watch(spectator)
    spectator.lines()
    game.handle_watcher(spectator, command("MOVE E"))
    assert spectator.lines() == [
        "ERROR you are watching g; spectators cannot MOVE (send JOIN g to play)"
    ]
    assert game.player_of(spectator) is None


class _SlowBrittleClassic:
    """The classic world, each world taking a little over :data:`QUICK` to open (so a
    restart is done by the game's task, off the loop), and failing at every ``PICKUP``."""

    name = "classic"
    summary = "classic, slow to open and failing at PICKUP"

    def __init__(self) -> None:
        self._classic = load_plugin("classic")

    def maps(self) -> list[str]:
        return self._classic.maps()

    def open(self, map_spec: str | None, *, seed: int, limits: Limits = OPERATOR_LIMITS) -> World:
        time.sleep(2 * QUICK)
        world = self._classic.open(map_spec, seed=seed, limits=limits)
        resolve = world.resolve

        def brittle(actions: Sequence[tuple[PlayerId, Action]]) -> list[Event]:
            if any(action.verb == "PICKUP" for _, action in actions):
                raise RuntimeError("the world broke")
            return resolve(actions)

        world.resolve = brittle  # type: ignore[method-assign]
        return world


async def test_what_waited_for_a_fresh_world_never_enters_one_about_to_be_replaced() -> None:
    """The 2015 greeting that reached a world being replaced (issue 18: a KeyError in
    the classic world's LOOK): a held step ended the fresh world again, and the next
    held step, a greeting, was put in that world just before it was replaced."""
    plugin = _SlowBrittleClassic()
    builder = WorldBuilder(2, 30.0, 1 << 20)
    opened = open_world(plugin, "tiny", 1, 1 << 20)
    assert opened.seconds >= QUICK
    game = game_of(plugin, "tiny", 1, name="default", builder=builder, opened=opened)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(game.run)
        first = MemoryOutbox()
        game.handle(first, command("LOOK"))
        game.leave(first, "quit")  # the last player left: a fresh world is being built
        assert game.restarting
        breaker = MemoryOutbox()
        game.handle(breaker, command("PICKUP"))  # waits, then breaks the fresh world
        greeted = MemoryOutbox(dialect="2015")
        greet(greeted, game)  # waits for the fresh world, after the breaker
        assert breaker.waiting is not None and greeted.waiting is breaker.waiting
        with trio.fail_after(10):
            await breaker.waiting.wait()
        assert isinstance(breaker.final, Bye)  # the fresh world failed at its PICKUP...
        assert game.restarting  # ...and the world after it is being built
        assert greeted.replies == [] and game.player_of(greeted) is None
        with trio.fail_after(10):
            while greeted.waiting is not None and not greeted.waiting.is_set():
                await greeted.waiting.wait()
        player = game.player_of(greeted)
        assert player is not None and player in game.world
        game.handle(greeted, command("LOOK"))
        assert isinstance(greeted.replies[-1], LookReply), greeted.replies
        assert not greeted.closed
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize("line", ["ATTACK N", "ENDTURN", "APGET", "HPGET"])
async def test_turn_commands_are_refused_in_a_world_without_turns(line: str) -> None:
    game = tiny_game()
    ada = MemoryOutbox()
    game.handle(ada, command(line))
    assert ada.replies[-1] == Error(f"{line.split()[0]} is not available in the classic world")


async def test_who_sees_an_action_is_the_worlds_decision() -> None:
    """Issue 18, defect 1: the game asks the world (``World.witnesses``), which alone
    knows levels and walls; it never judges from positions itself."""
    game = tiny_game()
    ada, bob = MemoryOutbox("Ada"), MemoryOutbox("Bob", events=True)
    spectator = MemoryOutbox(events=True)
    game.handle(ada, command("LOOK"))
    game.handle(bob, command("LOOK"))
    game.watch(spectator)
    game.handle(ada, command("PICKUP"))
    assert [seen.player for seen in bob.of(Seen)] == ["Ada"]  # the tiny map: all in sight
    asked: list[tuple[int, object]] = []

    def blind(viewer: int, event: object) -> bool:
        asked.append((viewer, event))
        return False

    game.world.witnesses = blind  # type: ignore[method-assign]
    game.handle(ada, command("PICKUP"))
    assert [seen.player for seen in bob.of(Seen)] == ["Ada"], "nothing more for bob"
    assert asked and {viewer for viewer, _ in asked} == {game.player_of(bob)}
    assert len(spectator.of(Seen)) == 2, "a spectator sees everything"


async def test_when_nobody_can_win_any_more_every_player_left_is_told_lose() -> None:
    """Issue 29: the 2013 conundrum's way out. On the tiny map (seed 1) Ada stands on
    the only coin and Bob on the exit; Ada takes the coin and quits with it."""
    game = tiny_game()
    ada, bob = MemoryOutbox("Ada"), MemoryOutbox("Bob")
    spectator = MemoryOutbox()
    game.watch(spectator)
    game.handle(ada, command("LOOK"))
    game.handle(bob, command("LOOK"))
    game.handle(ada, command("PICKUP"))
    assert not bob.closed, "Ada holds the coin: a win is still possible"
    first_world = game.world
    game.leave(ada, "quit")
    assert bob.final == Lose(
        "nobody can win any more: 0 gold is left in the dungeon, no player still here "
        "holds more than 0, and 1 is needed to escape; the game is over"
    )
    assert GameOver("g is over after 1 rounds") in spectator.replies
    assert game.world is not first_world and not game.players  # a fresh world


async def test_the_games_line_is_kept_until_what_it_says_changes() -> None:
    # Game.info() keeps its last GameInfo (issue 31: built and checked once, not at
    # every GAMES), and builds a new one as soon as a player or spectator comes or goes.
    game = tiny_game(limit=3)
    empty = game.info()
    assert game.info() is empty and empty.players == 0 and empty.watchers == 0
    ada = MemoryOutbox("Ada")
    game.handle(ada, command("LOOK"))
    joined = game.info()
    assert joined is not empty and joined.players == 1 and joined.limit == 3
    assert game.info() is joined
    watcher = MemoryOutbox("Eve")
    game.watch(watcher)
    assert game.info().watchers == 1
    game.unwatch(watcher)
    game.leave(ada, "quit")
    assert game.info() == empty
