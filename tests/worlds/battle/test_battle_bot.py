"""The battle bot: its judgement, its games against the other bots, and a game over TCP."""

from __future__ import annotations

import argparse
import random
from typing import cast

import pytest
import trio

from bench.battle_table import play_game
from dungeon_of_doom.bots.battle import BattleBrain, play
from dungeon_of_doom.bots.cli import Bot
from dungeon_of_doom.clients import Client, Direction, Grid
from dungeon_of_doom.protocol.replies import TurnBegins

from ...bots.conftest import Finished, run_module
from ...conftest import StartServer
from ...helpers import Peer, bound_port


def brain() -> BattleBrain:
    return BattleBrain(random.Random(1))


def test_it_attacks_a_neighbour_when_the_odds_are_with_it_and_runs_when_not() -> None:
    beside = Grid(("X...X", ".....", "...P.", ".....", "X...X"))
    assert brain().choose(beside, hp=2, gold=0, goal=1) == brain().choose(beside, 3, 0, 1)
    attack = brain().choose(beside, hp=2, gold=0, goal=1)
    assert (attack.verb, attack.direction) == ("ATTACK", Direction.E)
    run = brain().choose(beside, hp=1, gold=0, goal=1)
    assert run.verb == "MOVE" and run.direction == Direction.W  # the farthest square from it


def test_armour_makes_it_bold_at_1_hp() -> None:
    beside = Grid(("X...X", ".....", "...P.", ".....", "X...X"))
    armoured = brain()
    armoured.items.add("A")
    assert armoured.choose(beside, hp=1, gold=0, goal=1).verb == "ATTACK"


def test_it_hunts_a_player_it_sees_and_goes_for_the_lantern_first() -> None:
    far = Grid(("XX...XX", "X.....X", ".......", ".......", "....P..", "X.....X", "XX...XX"))
    step = brain().choose(far, hp=3, gold=0, goal=1)
    assert step.verb == "MOVE" and step.direction in (Direction.S, Direction.E)
    lantern = Grid(("X...X", ".....", "...L.", ".....", "X...X"))
    assert brain().choose(lantern, hp=3, gold=0, goal=1).direction == Direction.E


def test_with_the_gold_it_walks_out_and_drinks_when_hurt() -> None:
    exit_near = Grid(("X...X", ".....", "..GE.", ".....", "X...X"))
    assert brain().choose(exit_near, hp=3, gold=1, goal=1).direction == Direction.E
    potion = Grid(("X...X", ".....", "..H..", ".....", "X...X"))
    assert brain().choose(potion, hp=1, gold=0, goal=1).verb == "PICKUP"


def test_the_series_is_repeatable_and_the_battle_bot_wins_most_games() -> None:
    first = [play_game(("battle", "explorer"), None, seed) for seed in range(1, 11)]
    again = [play_game(("battle", "explorer"), None, seed) for seed in range(1, 11)]
    assert first == again
    wins = sum(outcome.winner == "battle" for outcome in first)
    assert wins >= 7, first
    against_random = [play_game(("random", "battle"), None, seed) for seed in range(1, 6)]
    assert all(outcome.winner == "battle" for outcome in against_random)


async def test_the_bot_plays_a_battle_over_tcp_to_the_end(start_server: StartServer) -> None:
    server = await start_server(world="battle", seed=7, turn_timeout=10)
    port = str(server.port)
    # A first player holds the turn until both bots are in, so that they meet.
    host = await Peer.connect(bound_port(server))
    assert await host.ask("EXTEND events") == ["EXTENDED events"]
    assert await host.ask("HELLO host") == ["STARTTURN 6"]
    assert await host.read_line() == "GOLD 3"
    results = {}

    async def run(kind: str) -> None:
        results[kind] = (await run_module(f"bots.{kind}", "--port", port, "--seed", "1")).result

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run, "battle")
        nursery.start_soon(run, "explorer")
        joined = [await host.read_line(), await host.read_line()]
        assert all(line.startswith("JOINED ") for line in joined)
        await host.aclose()  # leaving is death: the bots play it out
    outcomes = {kind: result.outcome for kind, result in results.items()}
    assert sorted(outcomes.values()) == ["lose", "win"], [r.to_line() for r in results.values()]


class TurnLater:
    """A client of the battle bot's for whom it is another's turn until it reads a push."""

    def __init__(self) -> None:
        self.said: list[str] = []
        self.our_turn = False
        self.moves = 0

    def extend(self, *capabilities: str) -> frozenset[str]:
        self.said.append("EXTEND")
        return frozenset(capabilities)

    def action_points(self) -> int:
        self.said.append("APGET")
        return 6 if self.our_turn else 0

    def next_event(self) -> TurnBegins:
        self.our_turn = True
        self.said.append("(STARTTURN 6)")
        return TurnBegins(6)


def test_at_its_move_limit_it_waits_for_its_turn_to_leave() -> None:
    client = TurnLater()
    options = argparse.Namespace(max_moves=0, progress=False, seed=1, name="x")
    bot = Bot("battle", cast(Client, client), options)
    assert play(bot) == "move limit reached"
    assert client.our_turn, client.said
    assert client.said == ["EXTEND", "APGET", "APGET", "(STARTTURN 6)", "APGET"]


def test_it_stops_striking_an_armoured_rival_without_a_sword() -> None:
    beside = Grid(("X...X", ".....", "...P.", ".S...", "X...X"))
    fighter = brain()
    fighter.landed = 3  # three blows landed, and the rival still stands
    step = fighter.choose(beside, hp=3, gold=0, goal=1)
    assert step.verb == "MOVE" and step.direction in (Direction.S, Direction.W)  # to the sword
    fighter.landed = 0  # the rival walked away and came back: still armoured
    assert fighter.choose(beside, hp=3, gold=0, goal=1).verb == "MOVE"
    fighter.items.add("S")
    assert fighter.choose(beside, hp=3, gold=0, goal=1).verb == "ATTACK"


@pytest.mark.parametrize("kind", ["battle", "random"])
async def test_a_bot_at_its_move_limit_leaves_on_its_own_turn(
    start_server: StartServer, kind: str
) -> None:
    """Not on another's: when it vanishes from their view must not depend on timing, or
    the same tournament would not give the same games. The battle bot hears STARTTURN;
    the random bot, a 2013 client, leaves after a LOOK, answered on its turn."""
    server = await start_server(world="battle", seed=7, turn_timeout=10)
    host = await Peer.connect(bound_port(server))
    assert await host.ask("EXTEND events") == ["EXTENDED events"]
    assert await host.ask("HELLO host") == ["STARTTURN 6"]
    assert await host.read_line() == "GOLD 3"
    args = ("--port", str(server.port), "--game", "default", "--name", "leaver")
    async with trio.open_nursery() as nursery:
        finished: list[Finished] = []

        async def run() -> None:
            finished.append(await run_module(f"bots.{kind}", *args, "--max-moves", "0"))

        nursery.start_soon(run)
        joined = await host.read_line()
        assert joined.startswith("JOINED ")
        label = joined.removeprefix("JOINED ")
        assert await host.read_line() == f"NOTICE {label} is now called leaver"  # its HELLO
        await host.send("ENDTURN\n")
        seen = [await host.read_line()]
        while not seen[-1].startswith("STARTTURN"):
            seen.append(await host.read_line())
    assert seen == ["SUCCESS", "ENDTURN", "TURN leaver", "LEFT leaver: quit", "STARTTURN 6"]
    assert finished[0].result.outcome == "quit", finished[0].stderr
