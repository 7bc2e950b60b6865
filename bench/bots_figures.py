"""``python -m bench.bots_figures``: the figures of the crawler solver and the baddie lurer.

1. **Crawler.** For every shipped dungeon, and the original assignment's sample
   dungeons when ``../shared/compat`` is present: the moves and treasure of the
   ``crawler-solver`` bot (which plans one level at a time, as it sees them), with
   ``--objective moves`` and ``--objective treasure``, and the whole dungeon's
   optimum computed with every level known (:func:`bots.plan.crawler.dungeon_front`:
   the fewest moves that escape holding at least T treasure), printed next to the
   seed's claims (the tutorial in 16 moves; the hard dungeon in 65 moves with 1
   treasure, 88 with 4). The bot's figures come from its planner run on each
   level's start, which is what the bot sees over the protocol when it plays alone.
2. **Baddies.** The win rates of ``baddie-lurer`` and of the ``ladder`` baseline on
   the seed's suggested game (15×40, 50 abysses, 6 monsters, 2 bats) over
   ``--seeds`` seeds, played in-process with the same policies and the world's
   own round; then ``--tcp`` of those seeds played again by the bot processes
   against a real server, to show they get the same games.
3. **Battle.** The win rates of the ``battle`` bot against the ``explorer`` and
   ``random`` bots in the battle world, on its default map (``arena``) and on the
   classic default map, over ``--seeds`` seeded games each: the three together (join
   order rotated with the seed), and the battle bot against each alone (who joins
   first alternates). Played in-process by the bots' own code, turn by turn
   (:mod:`bench.battle_table`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import trio

from dungeon_of_doom.bots.plan.baddies import HERO, Lurer, ladder_step
from dungeon_of_doom.bots.plan.crawler import DEFAULT_BUDGET, Objective, dungeon_front, plan_level
from dungeon_of_doom.bots.result import BotResult, parse_line
from dungeon_of_doom.server.app import Server
from dungeon_of_doom.server.setup.config import ServerConfig
from dungeon_of_doom.worlds.baddies import Parameters, generate, play_round
from dungeon_of_doom.worlds.baddies.rules import Escaped
from dungeon_of_doom.worlds.crawler import Level, open_dungeon

REPO = Path(__file__).resolve().parent.parent
COMPAT = REPO.parent / "shared" / "compat" / "crawler-levels"
SHIPPED = ("tutorial", "easy", "hard")
SAMPLES = {"tutorial": 4, "easy": 2, "hard": 3}
CLAIMS = {
    "sample tutorial": "16 moves (the seed's sample game)",
    "sample hard": "65 moves with 1 treasure, 88 with 4",
}
MEDIUM = Parameters(rows=15, columns=40, abysses=50, monsters=6, bats=2)
MAX_ROUNDS = 500
KINDS = {
    "baddie-lurer": "dungeon_of_doom.bots.baddie_lurer",
    "ladder": "dungeon_of_doom.bots.ladder",
}


def bot_on(levels: Sequence[Level], objective: Objective, budget: int) -> str:
    """What the solver bot plays: each level planned from its start with the treasure carried."""
    treasure = moves = 0
    for level in levels:
        plan = plan_level(level, treasure, objective, budget)
        if plan is None:
            return f"stuck after {moves} moves"
        moves += plan.moves
        treasure = plan.treasure
        if plan.escapes:
            return f"{moves} moves, {treasure} treasure"
    return f"through the last door after {moves} moves (no escape)"


def crawler_figures(budget: int, most: int) -> None:
    dungeons = [(name, open_dungeon(name).levels) for name in SHIPPED]
    if COMPAT.is_dir():
        dungeons += [
            (f"sample {name}", open_dungeon(f"{COMPAT / name}:{count}").levels)
            for name, count in SAMPLES.items()
        ]
    print("crawler-solver (moves | treasure objective) and the whole dungeon's optimum")
    for name, levels in dungeons:
        started = time.monotonic()
        fewest = bot_on(levels, Objective.MOVES, budget)
        richest = bot_on(levels, Objective.TREASURE, budget)
        front = dungeon_front(levels, most=most, budget=budget)
        optimum = ", ".join(f"{moves} with {t}" for t, moves in front.pareto()) or "none found"
        bound = "" if front.complete else " (within the search budget)"
        print(f"  {name:<15} bot: {fewest:<22} | {richest}")
        print(f"  {'':<15} optimum: {optimum}{bound}; {time.monotonic() - started:.1f} s")
        if name in CLAIMS:
            print(f"  {'':<15} seed's claim: {CLAIMS[name]}")


def simulate(seed: int, kind: str) -> tuple[str, int]:
    """One game of ``kind`` on the medium board of ``seed``: (``win``/``lose``/``quit``, rounds)."""
    board = generate(MEDIUM, seed)
    board.heroes[HERO] = board.start
    lurer = Lurer()
    for played in range(MAX_ROUNDS):
        step = lurer.step(board.copy()) if kind == "baddie-lurer" else ladder_step(board)
        if step is None or isinstance(step, str):
            return "quit", played
        facts = play_round(board, {HERO: step})
        if any(isinstance(fact, Escaped) for fact in facts):
            return "win", played + 1
        if HERO not in board.heroes:
            return "lose", played + 1
    return "quit", MAX_ROUNDS


def spec(seed: int) -> str:
    p = MEDIUM
    return (
        f"random:rows={p.rows},cols={p.columns},abysses={p.abysses},"
        f"monsters={p.monsters},bats={p.bats},seed={seed}"
    )


async def over_tcp(seed: int, kind: str) -> BotResult:
    async with trio.open_nursery() as nursery:
        server = Server(ServerConfig(world="baddies", map=spec(seed), port=0))
        await nursery.start(server.run)
        process = await trio.run_process(
            [sys.executable, "-m", KINDS[kind], "--port", str(server.port), "--max-moves", "500"],
            capture_stdout=True,
            cwd=REPO,
        )
        server.shutdown()
    result = parse_line(process.stdout.decode().splitlines()[-1])
    assert isinstance(result, BotResult)
    return result


def baddies_figures(seeds: Sequence[int], tcp: int) -> None:
    print(
        f"\nbaddies, {len(seeds)} seeds of the medium game (15x40, 50 abysses, 6 monsters, 2 bats)"
    )
    outcomes: dict[str, dict[int, tuple[str, int]]] = {}
    for kind in KINDS:
        started = time.monotonic()
        outcomes[kind] = {seed: simulate(seed, kind) for seed in seeds}
        counts = Counter(outcome for outcome, _ in outcomes[kind].values())
        print(
            f"  {kind:<13} won {counts['win']}/{len(seeds)}"
            f" ({100 * counts['win'] / len(seeds):.1f}%)"
            f", lost {counts['lose']}, stopped {counts['quit']}; {time.monotonic() - started:.1f} s"
        )
    checked = seeds[:tcp]
    if not checked:
        return
    same = 0
    for kind in KINDS:
        for seed in checked:
            result = trio.run(over_tcp, seed, kind)
            same += (result.outcome, result.moves) == outcomes[kind][seed]
    print(
        f"  over TCP: {same} of {2 * len(checked)} games"
        f" (seeds {checked[0]}..{checked[-1]}, both bots)"
    )
    print("  ended as they did in-process, in the same number of moves")


BATTLE_SERIES = (("battle", "explorer", "random"), ("battle", "explorer"), ("battle", "random"))
BATTLE_MAPS = (None, "default")


def battle_figures(seeds: Sequence[int]) -> None:
    from .battle_table import play_game

    print(f"battle world: wins over {len(seeds)} seeded games per line (battle bot first)")
    for map_spec in BATTLE_MAPS:
        for kinds in BATTLE_SERIES:
            started = time.monotonic()
            wins: Counter[str | None] = Counter()
            for seed in seeds:
                turn = seed % len(kinds)
                wins[play_game(kinds[turn:] + kinds[:turn], map_spec, seed).winner] += 1
            shares = ", ".join(f"{kind} {wins[kind] / len(seeds):.0%}" for kind in kinds)
            print(
                f"  {map_spec or 'arena':<8} {' vs '.join(kinds):<28} {shares}, "
                f"no winner {wins[None] / len(seeds):.0%}; {time.monotonic() - started:.1f} s"
            )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bots_figures", description=__doc__)
    parser.add_argument("--seeds", type=int, default=200, help="baddies and battle seeds, from 1")
    parser.add_argument("--tcp", type=int, default=10, help="of those, played over TCP too")
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="states per search")
    parser.add_argument("--most", type=int, default=5, help="treasure counted up to")
    parser.add_argument("--only", choices=["crawler", "baddies", "battle"], default=None)
    options = parser.parse_args(argv)
    if options.only in (None, "crawler"):
        crawler_figures(options.budget, options.most)
    if options.only in (None, "baddies"):
        # glibc's srand(0) is srand(1): start at 1 so that every seed is a new board.
        baddies_figures(range(1, options.seeds + 1), options.tcp)
    if options.only in (None, "battle"):
        battle_figures(range(1, options.seeds + 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
