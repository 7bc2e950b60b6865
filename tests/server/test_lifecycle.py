"""The game's state machine as a table (server/lifecycle.py), and games that follow it."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

import pytest
import trio

from protocol.commands import Command, parse_command
from protocol.replies import Lose
from server.game.builds import QUICK, Opened, WorldBuilder, open_world
from server.game.game import Game
from server.game.lifecycle import TRANSITIONS, Event, Lifecycle, LifecycleError, State

from ..helpers import REPO
from .games import Hooks, game_of
from .outboxes import MemoryOutbox
from .test_game_unit import WINNING_MOVES, _SlowBrittleClassic

S, E = State, Event

ROW = re.compile(r"^\| (\w+) \| .*\(`(\w+)`\) \| (\w+) \|$")


def documented() -> dict[tuple[State, Event], State]:
    """The table docs/architecture.md draws: state, event, next state."""
    rows = (
        ROW.match(line) for line in (REPO / "docs" / "architecture.md").read_text().splitlines()
    )
    return {(State(row[1]), Event[row[2]]): State(row[3]) for row in rows if row is not None}


def test_the_table_is_the_one_documented() -> None:
    assert len(documented()) == len(TRANSITIONS)
    assert documented() == dict(TRANSITIONS)


@pytest.mark.parametrize(("state", "event"), list(itertools.product(State, Event)))
def test_every_pair_moves_as_the_table_says_or_is_refused(state: State, event: Event) -> None:
    lifecycle = Lifecycle()
    lifecycle.state = state
    after = TRANSITIONS.get((state, event))
    if after is None:
        with pytest.raises(LifecycleError, match=f"{event.name} cannot happen to a game"):
            lifecycle.advance(event)
        assert lifecycle.state is state, "a refused event changes nothing"
    else:
        assert lifecycle.advance(event) is after
        assert lifecycle.state is after


def test_every_state_is_reached_from_open_and_closed_is_the_end() -> None:
    reached, frontier = {S.OPEN}, [S.OPEN]
    while frontier:
        state = frontier.pop()
        for (before, _), after in TRANSITIONS.items():
            if before is state and after not in reached:
                reached.add(after)
                frontier.append(after)
    assert reached == set(State)
    assert {after for (before, _), after in TRANSITIONS.items() if before is S.CLOSED} == {S.CLOSED}
    assert {event for _, event in TRANSITIONS} == set(Event), "no event is dead"


def command(line: str) -> Command:
    parsed = parse_command(line)
    assert parsed is not None, f"{line!r} is no command"
    return parsed


def state_of(game: Game) -> State:
    """The game's state, read afresh (each step of a test changes it)."""
    return game.steward.state


async def test_a_game_goes_open_playing_and_open_again_after_a_win() -> None:
    game = game_of("classic", "tiny", 1)
    assert state_of(game) is S.OPEN and not game.joined_any
    ada = MemoryOutbox("Ada")
    game.handle(ada, command("LOOK"))
    assert state_of(game) is S.PLAYING and game.joined_any
    for line in WINNING_MOVES:
        game.handle(ada, command(line))
    assert state_of(game) is S.OPEN, "over, then rebuilt at once (the tiny map is quick)"


async def test_a_game_nobody_can_win_is_over_for_everyone() -> None:
    game = game_of("classic", "tiny", 1, hooks=Hooks(keep=False))
    ada, bob = MemoryOutbox("Ada"), MemoryOutbox("Bob")
    game.handle(ada, command("LOOK"))
    game.handle(bob, command("LOOK"))
    game.handle(ada, command("PICKUP"))
    game.leave(ada, "quit")
    assert isinstance(bob.final, Lose)
    assert state_of(game) is S.CLOSED and game.closed, "not kept: closed"


async def test_a_game_nobody_joins_is_closed_when_its_time_runs_out() -> None:
    told = trio.Event()

    class Told(Hooks):
        def gone(self, game: Game, why: str) -> None:
            super().gone(game, why)
            told.set()

    hooks = Told()
    game = game_of("classic", "tiny", 1, unjoined_timeout=0.01, hooks=hooks)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(game.run)
        with trio.fail_after(10):
            await told.wait()
    assert hooks.gone_why == ["nobody joined within 0.01 seconds"]
    assert state_of(game) is S.CLOSED


async def test_a_slow_world_restarts_through_restarting() -> None:
    plugin = _SlowBrittleClassic()
    opened = open_world(plugin, "tiny", 1, 1 << 20)
    assert opened.seconds >= QUICK
    game = game_of(plugin, "tiny", 1, builder=WorldBuilder(2, 30.0, 1 << 20), opened=opened)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(game.run)
        ada = MemoryOutbox()
        game.handle(ada, command("LOOK"))
        game.leave(ada, "quit")
        assert state_of(game) is S.RESTARTING and game.restarting
        bob = MemoryOutbox()
        game.handle(bob, command("LOOK"))  # waits for the fresh world
        assert bob.waiting is not None and not bob.on_players, "for the server's own work"
        with trio.fail_after(10):
            await bob.waiting.wait()
        assert state_of(game) is S.PLAYING and game.player_of(bob) is not None
        game.close("the test is over")
        assert state_of(game) is S.CLOSED
        nursery.cancel_scope.cancel()


class _BuiltAsTheGameCloses(WorldBuilder):
    """Closes ``game`` the instant a world's build returns, before the building task
    resumes: the server stopping (or the lobby removing the game) in the same scheduler
    batch as the build's thread finishes."""

    game: Game | None = None

    async def run(self, job: Callable[[], Opened], what: str) -> Opened:
        opened = await super().run(job, what)
        assert self.game is not None
        self.game.close("the server is stopping")
        return opened


async def test_a_game_closed_as_its_fresh_world_is_built_ends_quietly() -> None:
    # Seen once in ten runs of the suite: the game's task installed the fresh world in a
    # game already closed, raised LifecycleError ("REBUILT cannot happen to a game
    # closed"), and the error took the lobby's nursery, and the server, down with it.
    plugin = _SlowBrittleClassic()
    opened = open_world(plugin, "tiny", 1, 1 << 20)
    builder = _BuiltAsTheGameCloses(2, 30.0, 1 << 20)
    game = game_of(plugin, "tiny", 1, builder=builder, opened=opened)
    builder.game = game
    async with trio.open_nursery() as nursery:
        nursery.start_soon(game.run)
        ada = MemoryOutbox()
        game.handle(ada, command("LOOK"))
        game.leave(ada, "quit")
        assert state_of(game) is S.RESTARTING
        bob = MemoryOutbox()
        game.handle(bob, command("LOOK"))  # waits for the fresh world
        assert bob.waiting is not None
        with trio.fail_after(10):
            await bob.waiting.wait()  # let go: no world will come
    assert state_of(game) is S.CLOSED and game.closed
    assert game.player_of(bob) is None
