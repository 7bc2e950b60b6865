"""``dod-arena``: a tournament of bots, played in parallel on local servers, rated in the store.

::

    dod-arena random:3 explorer:3 \\
        'mine=python mybot.py --port {port} --game {game} --name {name} --seed {seed}' \\
        --world classic --map tiny --seeds 1-20 --games 200 --players 2

See docs/arena.md for what the schedule, the limits and the table promise. Exit status
0 when every game was played and recorded, 1 otherwise, 130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Final

from bots import KINDS
from commandline import INTERRUPTED_STATUS, run_command
from records.contract import SIGHTS
from records.model import PLACE_RULES
from records.urls import safe_url

from .entrants import Entrant, parse_entrants, parse_seeds
from .spec import LOG_BYTES, contract_of, tournament_spec

# What plays and records a tournament (trio, the store, Rich) loads once one is asked
# for, not for ``--help``; see tests/server/test_startup_imports.py.
if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

    from records.ranking import Rating
    from records.store import Store

    from .runner import Arena
    from .schedule import Match

__all__ = ["build_parser", "main"]

DEFAULT_DIR: Final = "arena-runs"
INTERRUPTED: Final = INTERRUPTED_STATUS
"""Exit status after Ctrl-C: 128 + SIGINT, as shells report it."""
TERMINATED: Final = 143
"""Exit status after SIGTERM (the games being played were finished): 128 + SIGTERM."""
RECORD_WAIT: Final = 30.0
"""Seconds to wait for the servers to have written a round's records."""


def build_parser() -> argparse.ArgumentParser:
    cores = os.cpu_count() or 1
    parser = argparse.ArgumentParser(
        prog="dod-arena",
        usage="%(prog)s [options] BOT [BOT ...]\n       %(prog)s {submit,worker,status} ...",
        description="Play a tournament of bots on local Dungeon of Doom servers, record every "
        "game in the store, and print the table with ratings.",
        epilog="A tournament spread over many hosts sharing PostgreSQL: "
        "'dod-arena submit BOT ... --db postgresql://...' stores it (the options above), "
        "'dod-arena worker --db postgresql://...' on each host plays its matches, one "
        "progress line each, and 'dod-arena status --db ... --tournament T' shows its "
        "progress and table from anywhere. Each has its own --help; see docs/arena.md.",
    )
    parser.add_argument(
        "entrants",
        nargs="+",
        metavar="BOT",
        help=f"an installed bot KIND[:COUNT] ({', '.join(sorted(KINDS))}), or "
        "NAME=COMMAND with {host} {port} {game} {name} {seed} filled in",
    )
    parser.add_argument("--world", action="append", help="world(s) to play (default: classic)")
    parser.add_argument("--map", action="append", help="map(s) to play (default: the world's)")
    parser.add_argument("--seeds", default="1", help="seeds, as 1-20,33 (default: %(default)s)")
    parser.add_argument("--games", type=int, default=None, help="games in all (default: one cycle)")
    parser.add_argument("--players", type=int, default=2, help="bots per game (default: 2)")
    parser.add_argument("--format", choices=("round-robin", "swiss"), default="round-robin")
    parser.add_argument("--rounds", type=int, default=5, help="Swiss rounds (default: 5)")
    parser.add_argument(
        "--servers", type=int, default=cores, help="server processes (default: cores)"
    )
    parser.add_argument(
        "--parallel", type=int, default=None, help="games at once (default: --servers)"
    )
    parser.add_argument("--game-time", type=float, default=60.0, help="seconds a game may last")
    parser.add_argument("--join-time", type=float, default=10.0, help="seconds a bot has to join")
    parser.add_argument(
        "--move-time",
        "--turn-timeout",
        dest="turn_timeout",
        type=float,
        default=10.0,
        help="the contract's time per move: the servers' limit per round or turn, and in "
        "classic the arena's (generous: a missed turn makes a re-run differ; default: "
        "%(default)s)",
    )
    parser.add_argument(
        "--sight",
        choices=SIGHTS,
        default="map",
        help="the contract's sight: map (LOOK and MAP, the default) or look (MAP refused)",
    )
    parser.add_argument(
        "--places",
        choices=PLACE_RULES,
        default="escape",
        help="the contract's order of winners: escape (the first out first, the default) "
        "or moves (the fewest moves first)",
    )
    parser.add_argument(
        "--log-bytes",
        type=int,
        default=LOG_BYTES,
        help="bytes of each bot's output kept per game: its first and last halves "
        "(default: %(default)s)",
    )
    parser.add_argument("--max-missed-turns", type=int, default=3)
    parser.add_argument("--max-moves", type=int, default=2000, help="each bot's move limit")
    parser.add_argument("--bot-timeout", type=float, default=10.0, help="a bot's wait for a reply")
    parser.add_argument("--dir", default=DEFAULT_DIR, help="folder for logs, replays, the store")
    parser.add_argument("--db", default=None, help="the store (default: sqlite:///DIR/records.db)")
    parser.add_argument(
        "--tournament", default=None, help="name prefix of the games (default: random)"
    )
    parser.add_argument(
        "--no-rerate", action="store_true", help="leave the store's ladder as written"
    )
    parser.add_argument(
        "--isolation",
        choices=("auto", "namespaces", "none"),
        default="auto",
        help="shut each bot in its own user, network and PID namespaces (unshare): "
        "auto (the default) where Linux allows it",
    )
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    return parser


COMMANDS: Final = ("submit", "worker", "status")
"""``dod-arena submit|worker|status``: a tournament played by workers sharing PostgreSQL."""


def _command(command: str, args: list[str]) -> int:
    import psycopg
    import sqlalchemy.exc

    try:
        return _run_command(command, args)
    except (psycopg.OperationalError, sqlalchemy.exc.OperationalError) as error:
        cause = getattr(error, "orig", None) or error  # (SQLAlchemy's wraps psycopg's)
        first = str(cause).strip().splitlines()[0] if str(cause).strip() else repr(cause)
        print(f"dod-arena {command}: cannot use the database: {first}", file=sys.stderr)
        return 1


def _run_command(command: str, args: list[str]) -> int:
    from . import distributed

    if command == "submit":
        parser = build_parser()
        parser.prog = "dod-arena submit"
        parser.usage = parser.epilog = None
        parser.description = "Store a round-robin tournament in PostgreSQL for workers to play."
        return distributed.main_submit(parser, parser.parse_args(args))
    parser = argparse.ArgumentParser(prog=f"dod-arena {command}")
    parser.add_argument(
        "--db",
        required=True,
        help="postgresql://... shared by the workers (status: or a one-machine run's store)",
    )
    if command == "worker":
        parser.description = "Claim and play queued matches, one at a time, until stopped."
        parser.add_argument("--tournament", default=None, help="only this tournament's")
        parser.add_argument("--dir", default=None, help="logs, replays, the server's store")
        parser.add_argument("--isolation", choices=("auto", "namespaces", "none"), default="auto")
        distributed.add_worker_options(parser)
        return distributed.main_worker(parser, parser.parse_args(args))
    parser.description = "A distributed tournament's progress and table, from any host."
    parser.add_argument("--tournament", required=True)
    parser.add_argument("--json", action="store_true", help="as JSON")
    return distributed.main_status(parser, parser.parse_args(args))


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``dod-arena``; its exit status. Ctrl-C ends it with 130 and one line."""
    # (Ctrl-C before or after the tournament itself, which handles SIGINT on its own,
    # is one line and 130 too: commandline.run_command)
    return run_command(lambda: _main(argv), name="dod-arena")


def _main(argv: Sequence[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in COMMANDS:
        return _command(args[0], args[1:])
    parser = build_parser()
    options = parser.parse_args(args)
    try:
        entrants = parse_entrants(options.entrants)
        seeds = parse_seeds(options.seeds)
    except ValueError as error:
        parser.error(str(error))
    if options.players < 1 or options.players > len(entrants):
        parser.error(f"--players must be between 1 and the {len(entrants)} entrants")
    if options.servers < 1:
        parser.error("--servers must be at least 1")
    options.parallel = options.parallel or options.servers
    options.world = options.world or ["classic"]
    options.map = options.map or [None]
    Path(options.dir).mkdir(parents=True, exist_ok=True)
    options.db = options.db or f"sqlite:///{Path(options.dir) / 'records.db'}"
    tournament = options.tournament or secrets.token_hex(3)
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,18}", tournament):
        parser.error("--tournament: at most 18 letters, digits, _ and -")
    if options.log_bytes < 0:
        parser.error("--log-bytes must be 0 or more")
    try:
        contract = contract_of(options)
    except ValueError as error:
        parser.error(str(error))
    # The store's machinery, trio and Rich: loaded once a tournament is played.
    import trio
    from rich.console import Console

    from records.store import Store

    from .board import Board
    from .runner import Arena
    from .sandbox import Sandbox, choose_isolation

    store = Store(options.db)
    store.migrate()  # before the servers, so that they do not race to create it
    board = Board(
        store,
        tournament,
        tournament_spec(options, entrants, options.world, options.map),
        lease=options.game_time + 60,
    )
    board.open()
    console = Console(stderr=True)
    console.print(
        f"dod-arena: tournament {tournament}: {len(entrants)} bots, {options.format}, "
        f"{options.servers} servers, {options.parallel} games at once, store {safe_url(options.db)}"
    )
    if "classic" in options.world:
        console.print(
            "dod-arena: classic resolves every action as it arrives, so bots race and a "
            "re-run may differ in detail; battle (turns), baddies and crawler (rounds) re-run "
            "identically"
        )
    try:
        isolation, why_not = choose_isolation(options.isolation)
    except RuntimeError as error:
        parser.error(str(error))
    if why_not is None:
        console.print(
            "dod-arena: each bot is shut in its own namespaces: it plays only under its "
            "own name, and nothing it starts outlives its match"
        )
    else:
        console.print(
            f"dod-arena: bots are not shut in namespaces ({why_not}): each plays under its "
            "own name on the connection the arena gives it, but may reach the server "
            "directly, and what it detaches (setsid) may outlive its match; games with "
            "strangers in them are counted as not recorded"
        )
    arena = Arena(options, tournament, Sandbox(isolation), contract, store, board)
    try:
        matches = trio.run(partial(_run, arena, entrants, seeds, store, console))
    except BaseException:
        store.close()
        raise
    if arena.stopped_by is not None:
        store.close()
        played = len(arena.outcomes)
        if arena.interrupted:
            print(
                f"dod-arena: interrupted ({arena.stopped_by}) after {played} of "
                f"{len(matches)} games; servers stopped, bots killed",
                file=sys.stderr,
            )
            return INTERRUPTED
        print(
            f"dod-arena: stopped by SIGTERM after {played} of {len(matches)} games, "
            "each of them finished",
            file=sys.stderr,
        )
        return TERMINATED
    try:
        return _results(options, arena, entrants, matches, console)
    finally:
        store.close()


def _results(
    options: argparse.Namespace,
    arena: Arena,
    entrants: list[Entrant],
    matches: list[Match],
    console: Console,
) -> int:
    """Print the table (and what went wrong); the exit status."""
    from rich.console import Console

    from .results import print_table, standings, strangers, tournament_records

    store, contract, tournament = arena.store, arena.contract, arena.tournament
    void = {o.game for o in arena.outcomes if o.void}
    records = [r for r in tournament_records(store, tournament, matches) if r.game not in void]
    intruded = strangers(tournament, matches, records)
    for game, what in intruded.items():
        console.print(f"dod-arena: {game}: {what}; left out of the table", markup=False)
    records = [r for r in records if r.game not in intruded]
    if not options.no_rerate:
        if contract.places != "escape":  # the store's places, as the contract decides them
            for record in records:
                placed = contract.place(record)
                if placed != record:
                    store.set_places(record.id, {p.player: p.place for p in placed.players})
        for world in options.world:
            store.rerate(world, [r.id for r in records if r.world == world])
    failures = [failure for o in arena.outcomes for failure in o.not_started]
    absent = {f.name for f in failures}
    lines = [
        line
        for line in standings(entrants, records, contract)
        if line.games or line.name not in absent
    ]
    unplayed = sorted(absent - {line.name for line in lines})
    missing = len(matches) - len(records) - len(void) - len(intruded)
    if options.json:
        print(
            json.dumps(
                {
                    "tournament": tournament,
                    "games": len(matches),
                    "recorded": len(records),
                    "void": len(void),
                    "strangers": intruded,
                    "contract": contract.lines(),
                    "table": [line.as_json(rank) for rank, line in enumerate(lines, 1)],
                    "did_not_start": [f.as_json() for f in failures],
                    "logs": {
                        o.game: {name: str(path) for name, path in o.logs.items()}
                        for o in sorted(arena.outcomes, key=lambda o: o.game)
                    },
                }
            )
        )
    else:
        title = f"tournament {tournament}: {len(records)} of {len(matches)} games recorded"
        print_table(Console(width=140), lines, title, contract, unplayed)
        _where(Console(width=140), options, tournament)
    for failure in failures:
        for line in failure.report():
            print(f"dod-arena: {line}" if not line.startswith(" ") else line, file=sys.stderr)
    if void:
        print(
            f"dod-arena: {len(void)} games void (a bot did not start, or none joined): "
            "left out of the table",
            file=sys.stderr,
        )
    if missing:
        print(f"dod-arena: {missing} games were not recorded", file=sys.stderr)
    return 0 if not missing and not void and not intruded else 1


def _where(console: Console, options: argparse.Namespace, tournament: str) -> None:
    """Where a game's replay and its bots' output are, and how to see them on the web."""
    replays = Path(options.dir) / "replays"
    console.print(
        f"Each game's replay is {replays}/<game>-<time>.jsonl, and each bot's output "
        "(its standard output and error) lies beside it as <game>-<time>.<bot>.log. "
        f"On the web: dod-server --db {safe_url(options.db)} --replay-dir {replays}, then "
        f"http://127.0.0.1:8004/#/tournaments/{tournament}",
        highlight=False,
        soft_wrap=True,
    )


async def _run(
    arena: Arena, entrants: list[Entrant], seeds: list[int], store: Store, console: Console
) -> list[Match]:
    import trio
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from .schedule import fairness_note, round_robin

    options = arena.options
    matches: list[Match] = []
    async with trio.open_nursery() as nursery:
        await nursery.start(partial(arena.watch_signals, console))
        columns = (
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
        )
        with arena.play_scope, Progress(*columns, console=console) as progress:
            await arena.start_servers(nursery)
            if options.format == "round-robin":
                matches = round_robin(
                    entrants, options.players, options.world, options.map, seeds, options.games
                )
                console.print(f"dod-arena: {fairness_note(entrants, matches)}")
                task = progress.add_task("games", total=len(matches))
                await arena.play_all(matches, progress, task)
            else:
                matches = await _swiss(arena, entrants, seeds, store, progress)
        await arena.stop_servers()
        nursery.cancel_scope.cancel()
    return matches


async def _swiss(
    arena: Arena, entrants: list[Entrant], seeds: list[int], store: Store, progress: Progress
) -> list[Match]:
    import trio

    from .results import standings, tournament_records
    from .schedule import fairness_note, swiss_round

    options = arena.options
    per_round = len(entrants) // options.players
    task = progress.add_task("games", total=per_round * options.rounds)
    table: dict[str, Rating] = {}
    met: set[frozenset[str]] = set()
    byes: dict[str, int] = {}
    matches: list[Match] = []
    for number in range(options.rounds):
        world = options.world[number % len(options.world)]
        map_spec = options.map[number % len(options.map)]
        seed = seeds[number % len(seeds)]
        games = swiss_round(
            entrants,
            table,
            met,
            options.players,
            number,
            len(matches),
            world,
            map_spec,
            seed,
            byes,
        )
        await arena.play_all(games, progress, task)
        matches.extend(games)
        # The next round's pairs need this round's results: wait for the servers to write them.
        with trio.move_on_after(RECORD_WAIT):
            while len(
                await trio.to_thread.run_sync(tournament_records, store, arena.tournament, games)
            ) < len(games):
                await trio.sleep(0.2)
        void = {o.game for o in arena.outcomes if o.void}
        records = [
            r
            for r in await trio.to_thread.run_sync(
                tournament_records, store, arena.tournament, matches
            )
            if r.game not in void
        ]
        table = {line.name: line.rating for line in standings(entrants, records, arena.contract)}
    progress.console.print(f"dod-arena: {fairness_note(entrants, matches)}")
    return matches
