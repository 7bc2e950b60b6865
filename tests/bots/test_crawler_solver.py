"""The crawler solver: its plans against an exhaustive search, and the bot over real sockets."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from dungeon_of_doom.bots.plan.crawler import Objective, dungeon_front, level_from_map, plan_level
from dungeon_of_doom.worlds.crawler import Command, Level, Outcome, State, parse_level

from ..conftest import StartServer
from ..helpers import bound_port
from .conftest import run_module

TINY = {
    "corridor": "1 4\n0 0\n- $ - !",
    "guarded": "3 5\n1 0\n- - - - -\n- - $ + !\nM - - - -",
    "crossing": "3 3\n1 1\n$ - M\n- - -\n! - $",
    "amulet": "2 3\n0 0\n- @ $\n+ + !",
    "chase": "2 5\n0 0\n- - $ - !\n- + - + M",
}
"""Levels small enough to try every sequence of commands."""

WON = re.compile(r".* You escaped with (\d+) treasures? and in (\d+) total moves\.")


def brute_force(levels: Sequence[Level], outcome: Outcome, limit: int = 7) -> int | None:
    """Fewest commands that end the game with ``outcome``: every sequence of each length in turn."""

    def reaches(state: State, depth: int) -> bool:
        for command in Command:
            after = state.copy()
            after.step(command)
            if after.outcome is outcome:
                return True
            if after.outcome is None and depth > 1 and reaches(after, depth - 1):
                return True
        return False

    return next((d for d in range(1, limit + 1) if reaches(State(levels), d)), None)


@pytest.mark.parametrize("name", sorted(TINY))
def test_the_plan_is_as_short_as_every_sequence_allows(name: str) -> None:
    level = parse_level(TINY[name])
    plan = plan_level(level)
    assert plan is not None and plan.escapes and plan.complete
    assert plan.moves == brute_force([level], Outcome.ESCAPED)
    replay = State([level])
    for command in plan.commands:
        replay.step(command)
    assert replay.outcome is Outcome.ESCAPED and replay.treasure == plan.treasure >= 1


def test_without_an_exit_the_shortest_door_that_carries_treasure() -> None:
    level = parse_level("2 4\n0 0\n- - + ?\n- $ - -")
    plan = plan_level(level)
    assert plan is not None and not plan.escapes
    assert (plan.moves, plan.treasure) == (5, 1) == (brute_force([level], Outcome.FINISHED), 1)
    # Holding treasure already, the same door is as near: nothing to fetch.
    held = plan_level(level, treasure=1)
    assert held is not None and held.moves == 5


def test_an_exit_is_taken_over_a_nearer_door() -> None:
    plan = plan_level(parse_level("1 7\n0 1\n? - $ - - - !"))
    assert plan is not None and plan.escapes and plan.moves == 5


def test_a_level_with_no_way_out_has_no_plan() -> None:
    assert plan_level(parse_level("1 3\n0 0\n- + !")) is None
    assert plan_level(parse_level("1 3\n0 0\n- M ?")) is None


def test_most_treasure_then_fewest_moves() -> None:
    level = parse_level("1 6\n0 2\n$ - - - $ !")
    plan = plan_level(level)
    assert plan is not None and plan.moves == 3
    greedy = plan_level(level, objective=Objective.TREASURE)
    assert greedy is not None and (greedy.treasure, greedy.moves) == (2, 7)


def test_the_dungeon_front_matches_a_search_of_the_whole_dungeon() -> None:
    levels = (parse_level("2 3\n0 0\n- - -\n$ - ?"), parse_level("1 5\n0 0\n- $ - - !"))
    front = dungeon_front(levels, most=3)
    assert front.complete
    # Either way round the first level is 3 moves; the second's treasure lies on its way.
    assert front.escapes == {1: 7, 2: 7}
    assert brute_force(levels, Outcome.ESCAPED) == 7


def test_a_map_reply_reads_back_as_a_level_starting_under_the_player() -> None:
    level = level_from_map(["-$B", "o+!"])
    assert (level.rows, level.cols, level.start, level.tiles) == (2, 3, (1, 0), b"-$--+!")


async def run_solver(port: int, *options: str) -> tuple[int, int]:
    """Run the bot to a win; the treasure and moves the server reported."""
    finished = await run_module(
        "dungeon_of_doom.bots.crawler_solver", "--port", str(port), *options
    )
    assert finished.returncode == 0, finished.stderr
    result = finished.result
    assert result.outcome == "win", result
    won = WON.fullmatch(result.detail)
    assert won is not None and int(won[2]) == result.moves
    assert int(won[1]) == result.gold, "the result line counts the treasure the server did"
    return int(won[1]), result.moves


@pytest.mark.parametrize("name", ["guarded", "amulet"])
async def test_the_bot_plays_the_proved_shortest_escape(
    start_server: StartServer, write_map: Callable[..., str], name: str
) -> None:
    server = await start_server(world="crawler", map=write_map(TINY[name], suffix=".txt"))
    treasure, moves = await run_solver(bound_port(server))
    assert moves == brute_force([parse_level(TINY[name])], Outcome.ESCAPED) and treasure >= 1


async def test_the_bot_crosses_levels_and_counts_its_treasure(start_server: StartServer) -> None:
    server = await start_server(world="crawler", map="easy")
    assert await run_solver(bound_port(server)) == (1, 26)
    server = await start_server(world="crawler", map="easy")
    assert await run_solver(bound_port(server), "--objective", "treasure") == (2, 26)


async def test_the_original_tutorial_in_the_seeds_sixteen_moves(
    start_server: StartServer, compat: Path
) -> None:
    server = await start_server(world="crawler", map=f"{compat / 'crawler-levels' / 'tutorial'}:4")
    assert await run_solver(bound_port(server)) == (1, 16)


async def test_a_level_without_a_way_out_makes_the_bot_stop(
    start_server: StartServer, write_map: Callable[..., str]
) -> None:
    server = await start_server(world="crawler", map=write_map("1 3\n0 0\n- + !", suffix=".txt"))
    finished = await run_module("dungeon_of_doom.bots.crawler_solver", "--port", str(server.port))
    assert finished.returncode == 0
    assert finished.result.outcome == "quit" and "no way out" in finished.result.detail
