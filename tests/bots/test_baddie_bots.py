"""The baddie lurer and the ladder baseline, in-process and as processes over real sockets."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from dungeon_of_doom import maps
from dungeon_of_doom.bots.plan.baddies import (
    HERO,
    Lurer,
    board_from_map,
    ladder_step,
    search_escape,
)
from dungeon_of_doom.worlds.baddies import Parameters, generate, parse_board, play_round
from dungeon_of_doom.worlds.baddies.rules import Escaped

from ..conftest import StartServer
from ..helpers import bound_port
from .conftest import run_module

SMALL = Parameters(rows=10, columns=20, abysses=20, monsters=3, bats=1)
"""Generated boards small enough for a quick game."""

BOXED = """name Boxed in
#####.....
#H..#.....
#####....*
"""
"""The hero cannot get out: every way leads into the abyss."""

AROUND = """name Around the wall
.....+....
.H...+...*
.....+....
..........
"""


def simulate(board_text: str | None, seed: int, kind: str) -> tuple[str, int]:
    """Play a policy on a board in-process, as the bot would over TCP: (outcome, rounds)."""
    board = generate(SMALL, seed) if board_text is None else parse_board(board_text)[1]
    board.heroes[HERO] = board.start
    lurer = Lurer()
    for played in range(200):
        step = lurer.step(board.copy()) if kind == "baddie-lurer" else ladder_step(board)
        if step is None or isinstance(step, str):
            return "quit", played
        facts = play_round(board, {HERO: step})
        if any(isinstance(fact, Escaped) for fact in facts):
            return "win", played + 1
        if HERO not in board.heroes:
            return "lose", played + 1
    return "quit", 200


def test_a_map_reply_reads_back_as_the_board() -> None:
    board = board_from_map(["..+m", "@#B*", "~..M"])
    assert board.heroes == {HERO: (1, 0), 1: (1, 2)} and board.start == (1, 0)
    assert board.statics == {(0, 2): "+", (1, 1): "#", (1, 3): "*"}
    assert board.baddies == {(0, 3): "m", (2, 0): "~", (2, 3): "M"}


def test_the_lurer_finds_an_escape_that_drops_a_monster_into_the_abyss() -> None:
    _, board = parse_board(maps.shipped("baddies", ".map")["lure"].read_text())
    board.heroes[HERO] = board.start
    found = search_escape(board)
    assert found.escapes
    fell = 0
    for step in found.steps:
        facts = play_round(board, {HERO: step})
        fell += sum(type(fact).__name__ == "BaddieFell" for fact in facts)
    assert any(isinstance(fact, Escaped) for fact in facts) and fell >= 1


def test_a_search_that_sees_everything_proves_there_is_no_escape() -> None:
    board = parse_board(BOXED)[1]
    board.heroes[HERO] = board.start
    found = search_escape(board)
    assert not found.escapes and found.complete


def test_the_ladder_step_goes_around_walls() -> None:
    assert simulate(AROUND, 0, "ladder") == ("win", 8)


async def run_bot(kind: str, port: int) -> tuple[str, int, str]:
    module = {
        "baddie-lurer": "dungeon_of_doom.bots.baddie_lurer",
        "ladder": "dungeon_of_doom.bots.ladder",
    }[kind]
    finished = await run_module(module, "--port", str(port), "--max-moves", "200")
    assert finished.returncode == 0, finished.stderr
    result = finished.result
    if result.outcome == "win":
        counted = re.fullmatch(
            r"Hero Escaped! You reached the ladder in (\d+) moves\.", result.detail
        )
        assert counted is not None and int(counted[1]) == result.moves
    return result.outcome, result.moves, result.detail


async def test_on_the_lure_board_the_lurer_wins_where_the_ladder_walker_is_caught(
    start_server: StartServer,
) -> None:
    server = await start_server(world="baddies", map="lure")
    assert (await run_bot("baddie-lurer", bound_port(server)))[0] == "win"
    server = await start_server(world="baddies", map="lure")
    outcome, _, detail = await run_bot("ladder", bound_port(server))
    assert outcome == "lose" and "caught" in detail


async def test_the_lurer_stops_when_no_escape_exists(
    start_server: StartServer, write_map: Callable[..., str]
) -> None:
    server = await start_server(world="baddies", map=write_map(BOXED))
    outcome, moves, detail = await run_bot("baddie-lurer", bound_port(server))
    assert (outcome, moves) == ("quit", 0) and detail.startswith("no escape exists")


@pytest.mark.parametrize(
    ("kind", "seed"), [("baddie-lurer", 2), ("baddie-lurer", 7), ("ladder", 4), ("ladder", 6)]
)
async def test_a_process_plays_the_same_game_as_the_in_process_figures(
    start_server: StartServer, kind: str, seed: int
) -> None:
    p = SMALL
    spec = (
        f"random:rows={p.rows},cols={p.columns},abysses={p.abysses},"
        f"monsters={p.monsters},bats={p.bats},seed={seed}"
    )
    server = await start_server(world="baddies", map=spec)
    outcome, moves, _ = await run_bot(kind, bound_port(server))
    assert (outcome, moves) == simulate(None, seed, kind)
