"""``dod-arena``: a tournament of bots, played in parallel on local servers, rated in the store.

::

    dod-arena random:3 explorer:3 \\
        'mine=python mybot.py --port {port} --game {game} --name {name} --seed {seed}' \\
        --world classic --map tiny --seeds 1-20 --games 200 --players 2

Entrants are installed bot kinds (``random``, ``explorer``, ... with an optional
``:COUNT``; each copy gets its own name and seeds) or ``NAME=COMMAND`` templates,
in which ``{host}``, ``{port}``, ``{game}``, ``{name}`` and ``{seed}`` are filled in.
A command bot must ``JOIN {game}`` and ``HELLO {name}``: the records know players by name.

What the arena promises:

* **Schedule.** ``round-robin`` (the default) plays every group of ``--players``
  entrants on every world, map and seed, repeated with the next seeds until ``--games``
  games; ``swiss`` plays rounds in which entrants of similar rating meet, avoiding
  repeats. The schedule depends only on the entrants and the options, so the same
  command plays the same games: game N has the same name, world, map, seed, players,
  join order and bot seeds (``SEED * 1000 + the entrant's number``). With bots that
  decide only from what they see and their ``--seed``, in a world with turns
  (``battle``) or rounds (``baddies``, ``crawler``), the same games end the same way,
  record for record: players join one at a time in the schedule's order; each game
  waits until all its players are there before anyone acts or looks (``CREATE ...
  start=full``); in battle, a bot that knows nothing of turns sees the board as its
  turn begins. Turn limits must be generous enough that no bot misses a turn (a missed
  turn depends on the machine's load): ``--turn-timeout`` is 10 s by default. ``classic``
  resolves every action as it arrives, so its bots race and re-runs differ in detail.
* **Parallel.** ``--servers`` ``dod-server`` processes (one per core by default), each
  recording into ``--db``; ``--parallel`` games at once (as many as servers by default),
  spread over the servers. Each game is created with ``CREATE`` and watched.
* **Limits.** Each game has ``--game-time`` seconds; then its bots are killed (their
  players recorded as disconnected). Turns time out after ``--turn-timeout`` seconds
  and a bot that misses ``--max-missed-turns`` in a row is removed by the server. A bot
  that crashes, hangs or floods loses its game, never the tournament: bots run in their
  own process groups with no pipes the arena must drain.
* **Progress** on standard error (a rich progress bar), and at the end the table on
  standard output: each entrant's rating (``mu - 3 sigma``) with ``mu ± sigma``, games,
  wins, mean place; the tournament's ratings are computed from its own games in
  schedule order, so parallel play cannot reorder them. The store's ladder for the
  world is rerated in schedule order too (``--no-rerate`` leaves a shared ladder alone).
* Exit status 0 when every game was played and recorded, 1 otherwise, 130 on Ctrl-C
  (servers stopped cleanly, bots killed, nothing left running).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import re
import secrets
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Final

import trio
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from bots import KINDS
from commandline import run_command

from .model import GameRecord, PlayerResult
from .ranking import Rating, rate_game
from .store import Store, safe_url

__all__ = ["Entrant", "Match", "main", "parse_entrants", "round_robin", "swiss_round"]

DEFAULT_DIR: Final = "arena"
LISTENING: Final = re.compile(rb"listening on [^\s:]+:(\d+)")
_GONE: Final = (trio.BrokenResourceError, trio.ClosedResourceError)
RECORD_WAIT: Final = 30.0
"""Seconds to wait for the servers to have written a round's records."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """One bot of the tournament: its name (as recorded) and how to start it."""

    name: str
    kind: str | None
    """An installed bot kind, or ``None`` for a command template."""
    template: str | None = None
    index: int = 0

    def command(self, *, host: str, port: int, game: str, seed: int, options: Any) -> list[str]:
        if self.kind is not None:
            command = [
                sys.executable,
                "-m",
                KINDS[self.kind],
                "--host",
                host,
                "--port",
                str(port),
                "--game",
                game,
                "--name",
                self.name,
                "--seed",
                str(seed),
                "--timeout",
                str(options.bot_timeout),
            ]
            if options.max_moves is not None:
                command += ["--max-moves", str(options.max_moves)]
            return command
        assert self.template is not None
        text = self.template.format(host=host, port=port, game=game, name=self.name, seed=seed)
        return shlex.split(text)


@dataclass(frozen=True, slots=True)
class Match:
    """One scheduled game: its number in the schedule, where, and who plays (in order)."""

    number: int
    world: str
    map: str | None
    seed: int
    entrants: tuple[Entrant, ...]

    def game_name(self, tournament: str) -> str:
        return f"{tournament}-{self.number:05d}"


def parse_entrants(specs: Sequence[str]) -> list[Entrant]:
    """``["random:2", "mine=python x.py {port}"]`` to entrants with unique names."""
    entrants: list[Entrant] = []
    taken: set[str] = set()
    for spec in specs:
        name, equals, rest = spec.partition("=")
        if (equals and " " in rest.strip()) or (equals and rest.strip() not in KINDS):
            if not re.fullmatch(r"[A-Za-z0-9_.-]{1,24}", name):
                raise ValueError(f"{name!r}: an entrant's name is letters, digits, _ . and -")
            if name in taken:
                raise ValueError(f"two entrants are called {name!r}")
            taken.add(name)
            entrants.append(Entrant(name, None, rest.strip(), len(entrants)))
            continue
        kind, _, count_text = (rest if equals else spec).partition(":")
        if kind not in KINDS:
            raise ValueError(
                f"{spec!r} is no installed bot ({', '.join(sorted(KINDS))}) nor NAME=COMMAND"
            )
        try:
            count = int(count_text) if count_text else 1
        except ValueError:
            raise ValueError(f"{spec!r}: the count after ':' must be a number") from None
        if count < 1:
            raise ValueError(f"{spec!r}: the count must be at least 1")
        base = name if equals else kind
        for copy in range(1, count + 1):
            entrant_name = base if count == 1 and base not in taken else f"{base}-{copy}"
            while entrant_name in taken:
                entrant_name += "x"
            taken.add(entrant_name)
            entrants.append(Entrant(entrant_name, kind, None, len(entrants)))
    return entrants


def parse_seeds(text: str) -> list[int]:
    """``"1-5,9"`` to ``[1, 2, 3, 4, 5, 9]``."""
    seeds: list[int] = []
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        try:
            seeds.extend(range(int(first), int(last) + 1) if dash else [int(first)])
        except ValueError:
            raise ValueError(f"{part!r} is not a seed or a range of seeds (1-20)") from None
    if not seeds:
        raise ValueError("no seeds given")
    return seeds


def round_robin(
    entrants: Sequence[Entrant],
    players: int,
    worlds: Sequence[str],
    maps: Sequence[str | None],
    seeds: Sequence[int],
    games: int | None,
) -> list[Match]:
    """Every group of ``players`` entrants on every world, map and seed; cycled (with
    seeds moved on by the length of ``seeds``) until ``games`` matches if given.

    Who joins first (and so moves first) alternates from game to game of a group, over
    the seeds and the cycles, so that no entrant always has the first move."""
    groups = list(itertools.combinations(entrants, players))
    settings = list(itertools.product(worlds, maps, seeds))
    matches: list[Match] = []
    span = max(seeds) - min(seeds) + 1
    for cycle in itertools.count():
        for setting, (world, map_spec, seed) in enumerate(settings):
            for index, group in enumerate(groups):
                flip = (cycle * len(settings) + setting + index) % 2
                order = tuple(reversed(group)) if flip else group
                number = len(matches)
                matches.append(Match(number, world, map_spec, seed + cycle * span, order))
                if games is not None and len(matches) >= games:
                    return matches
        if games is None:
            return matches
    raise AssertionError("unreachable")


def swiss_round(
    entrants: Sequence[Entrant],
    table: dict[str, Rating],
    met: set[frozenset[str]],
    players: int,
    round_number: int,
    first_number: int,
    world: str,
    map_spec: str | None,
    seed: int,
) -> list[Match]:
    """One Swiss round: entrants by rating (best first, ties in entrant order), cut into
    groups of ``players`` neighbours, swapping with the next entrant to avoid a pair that
    met before where that is possible. An entrant left over sits the round out."""
    ranked = sorted(entrants, key=lambda e: (-table.get(e.name, Rating()).ordinal, e.index))
    matches: list[Match] = []
    pool = list(ranked)
    while len(pool) >= players:
        group = [pool.pop(0)]
        while len(group) < players:
            choice = next(
                (
                    i
                    for i, e in enumerate(pool)
                    if all(frozenset((e.name, g.name)) not in met for g in group)
                ),
                0,
            )
            group.append(pool.pop(choice))
        for a, b in itertools.combinations(group, 2):
            met.add(frozenset((a.name, b.name)))
        order = tuple(group if round_number % 2 == 0 else reversed(group))
        matches.append(Match(first_number + len(matches), world, map_spec, seed, order))
    return matches


# -- running games -------------------------------------------------------------------


@dataclass(slots=True)
class ServerProcess:
    """One ``dod-server`` the arena started, and where it listens."""

    process: trio.Process
    port: int
    log: Path
    busy: int = 0


@dataclass(slots=True)
class Outcome:
    """What the arena saw of one match (the store holds the record)."""

    match: Match
    game: str
    over: bool = False
    joined: int = 0
    """Players seen joining; a game none joined is void (it has no record)."""
    timed_out: bool = False
    error: str | None = None
    seconds: float = 0.0
    bot_status: dict[str, int | None] = field(default_factory=dict)


class Arena:
    """Runs a schedule on its servers; owns every process it starts."""

    def __init__(self, options: argparse.Namespace, tournament: str) -> None:
        self.options = options
        self.tournament = tournament
        self.servers: list[ServerProcess] = []
        self.outcomes: list[Outcome] = []
        self.interrupted = False
        self._slots = trio.Semaphore(options.parallel)
        self._server_free = trio.Condition()

    # -- servers ---------------------------------------------------------------------

    async def start_servers(self, nursery: trio.Nursery) -> None:
        for index in range(self.options.servers):
            self.servers.append(await nursery.start(self._run_server, index))

    async def _run_server(self, index: int, task_status: trio.TaskStatus[ServerProcess]) -> None:
        options = self.options
        log_path = Path(options.dir) / f"server-{index}.log"
        command = [
            sys.executable,
            "-m",
            "server",
            "--port",
            "0",
            "--db",
            options.db,
            "--replay-dir",
            str(Path(options.dir) / "replays"),
            "--turn-timeout",
            str(options.turn_timeout),
            "--max-missed-turns",
            str(options.max_missed_turns),
            "--max-games",
            "100000",
            "--no-http",
            "--idle-timeout",
            str(options.game_time + 60),
            "--log-format",
            "json",
            "--log-level",
            "warning",
        ]
        process = await trio.lowlevel.open_process(
            command, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True
        )
        try:
            with log_path.open("wb") as log:
                seen = b""
                port = None
                assert process.stderr is not None
                with trio.fail_after(30):
                    while port is None:
                        chunk = await process.stderr.receive_some(4096)
                        if not chunk:
                            raise RuntimeError(
                                f"dod-server exited before listening: {seen.decode()[-500:]}"
                            )
                        seen += chunk
                        log.write(chunk)
                        if (found := LISTENING.search(seen)) is not None:
                            port = int(found.group(1))
                server = ServerProcess(process, port, log_path)
                task_status.started(server)
                async for chunk in process.stderr:
                    log.write(chunk)
                    log.flush()
        finally:
            with trio.CancelScope(shield=True):
                await _stop(process, grace=15.0)

    async def stop_servers(self) -> None:
        """SIGTERM every server: each flushes its records and exits."""
        for server in self.servers:
            if server.process.returncode is None:
                server.process.send_signal(signal.SIGTERM)
        with trio.move_on_after(30):
            for server in self.servers:
                await server.process.wait()

    async def _server(self) -> ServerProcess:
        server = min(self.servers, key=lambda s: s.busy)
        server.busy += 1
        return server

    # -- games -----------------------------------------------------------------------

    async def play_all(self, matches: Sequence[Match], progress: Progress, task: Any) -> None:
        async with trio.open_nursery() as nursery:
            for match in matches:
                await self._slots.acquire()
                nursery.start_soon(self._play_and_release, match, progress, task)

    async def _play_and_release(self, match: Match, progress: Progress, task: Any) -> None:
        server = await self._server()
        try:
            outcome = await self.play(match, server)
            self.outcomes.append(outcome)
            progress.advance(task)
            if outcome.error:
                progress.console.print(f"[yellow]{outcome.game}: {outcome.error}")
        finally:
            server.busy -= 1
            self._slots.release()

    async def play(self, match: Match, server: ServerProcess) -> Outcome:
        """Create the game, start its bots one at a time, wait for its end (or the limit)."""
        options = self.options
        game = match.game_name(self.tournament)
        outcome = Outcome(match, game)
        started = time.monotonic()
        processes: list[tuple[Entrant, trio.Process]] = []
        try:
            control = await trio.open_tcp_stream("127.0.0.1", server.port)
        except OSError as error:
            outcome.error = f"cannot reach its server: {error}"
            return outcome
        lines = _Lines(control)
        try:
            with trio.move_on_after(options.game_time) as limit:
                create = f"CREATE {game} {match.world}"
                if match.map is not None:
                    create += f" map={match.map}"
                create += f" seed={match.seed} players={len(match.entrants)}"
                create += f" turn={options.turn_timeout:g} start=full"
                await lines.send("EXTEND events")
                await lines.expect("EXTENDED")
                await lines.send(create)
                answer = await lines.expect("GAME ", "ERROR")
                if answer.startswith("ERROR"):
                    outcome.error = answer
                    return outcome
                await lines.send(f"WATCH {game}")
                await lines.expect("GAME ")
                for position, entrant in enumerate(match.entrants):
                    seed = match.seed * 1000 + entrant.index
                    command = entrant.command(
                        host="127.0.0.1", port=server.port, game=game, seed=seed, options=options
                    )
                    try:
                        process = await trio.lowlevel.open_process(
                            command,
                            stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL,
                            start_new_session=True,
                        )
                    except OSError as error:
                        outcome.error = f"{entrant.name} cannot start: {error}"
                        break
                    processes.append((entrant, process))
                    # Players join in the schedule's order: wait for this one first.
                    if position + 1 < len(match.entrants):
                        with trio.move_on_after(options.join_time):
                            # (as #n: bots JOIN before they say HELLO with their name)
                            if (await lines.expect("JOINED ", "GAMEOVER")).startswith("JOINED"):
                                outcome.joined += 1
                while (await lines.expect("JOINED ", "GAMEOVER")).startswith("JOINED"):
                    outcome.joined += 1
                outcome.over = True
            outcome.timed_out = limit.cancelled_caught
        except (OSError, trio.BrokenResourceError, EOFError) as error:
            outcome.error = f"lost its server: {error}"
        finally:
            with trio.CancelScope(shield=True):
                for entrant, process in processes:
                    await _stop(process, grace=0 if outcome.timed_out else 2.0)
                    outcome.bot_status[entrant.name] = process.returncode
                with trio.move_on_after(2):
                    with contextlib.suppress(
                        OSError, trio.BrokenResourceError, trio.ClosedResourceError
                    ):
                        await lines.send("QUIT")
                await control.aclose()
        outcome.seconds = time.monotonic() - started
        return outcome


class _Lines:
    """Lines over a stream, for the arena's control connections."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = b""

    async def send(self, line: str) -> None:
        await self.stream.send_all(line.encode() + b"\n")

    async def expect(self, *prefixes: str) -> str:
        """Read lines until one starts with one of ``prefixes``; return it."""
        while True:
            while b"\n" not in self.buffer:
                chunk = await self.stream.receive_some(65536)
                if not chunk:
                    raise EOFError("the server closed the connection")
                self.buffer += chunk
            raw, _, self.buffer = self.buffer.partition(b"\n")
            line = raw.decode(errors="replace")
            if line.startswith(prefixes):
                return line


async def _stop(process: trio.Process, *, grace: float) -> None:
    """End ``process`` and its group: SIGTERM, ``grace`` seconds, then SIGKILL."""
    if process.returncode is None and grace > 0:
        with trio.move_on_after(grace):
            await process.wait()
    if process.returncode is None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                break
            with trio.move_on_after(1.0 if sig == signal.SIGTERM else 10.0):
                await process.wait()
            if process.returncode is not None:
                break
    await process.wait()


# -- the results -------------------------------------------------------------------


def tournament_records(store: Store, tournament: str, matches: Sequence[Match]) -> list[GameRecord]:
    """The stored records of the tournament's games, in schedule order."""
    wanted = {m.game_name(tournament): m for m in matches}
    found = {}
    for row in store.games():
        name = row.game["game"]
        if name in wanted:
            found[name] = row
    records = []
    for name in sorted(found, key=lambda n: wanted[n].number):
        row = found[name]
        g = row.game
        records.append(
            GameRecord(
                id=g["id"],
                game=g["game"],
                world=g["world"],
                map=g["map"],
                seed=g["seed"],
                dialect=g["dialect"],
                started=g["started_at"],
                ended=g["ended_at"],
                rounds=g["rounds"],
                end=g["end_reason"],
                replay=g["replay"],
                server=g["server"],
                players=tuple(
                    PlayerResult(
                        player=p["player"],
                        name=p["name"],
                        kind=p["kind"],
                        outcome=p["outcome"],
                        gold=p["gold"],
                        moves=p["moves"],
                        place=p["place"],
                        claimed=p["claimed"],
                    )
                    for p in row.players
                ),
            )
        )
    return records


@dataclass(slots=True)
class Line:
    """One entrant's line of the final table."""

    name: str
    rating: Rating = field(default_factory=Rating)
    games: int = 0
    wins: int = 0
    places: int = 0
    gold: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)


def standings(entrants: Sequence[Entrant], records: Sequence[GameRecord]) -> list[Line]:
    """The tournament's own table, rated game by game in schedule order."""
    lines = {e.name: Line(e.name) for e in entrants}
    for record in records:
        current = {name: line.rating for name, line in lines.items()}
        for name, rating in rate_game(record, current).items():
            if name in lines:
                lines[name].rating = rating
        for player in record.players:
            line = lines.get(player.name or "")
            if line is None:
                continue
            line.games += 1
            line.wins += player.outcome == "win"
            line.places += player.place
            line.gold += player.gold
            line.outcomes[player.outcome] = line.outcomes.get(player.outcome, 0) + 1
    return sorted(lines.values(), key=lambda line: (-line.rating.ordinal, line.name))


def table_of(lines: Sequence[Line], title: str) -> Table:
    table = Table(title=title)
    for column in (
        "#",
        "bot",
        "rating",
        "mu ± sigma",
        "games",
        "wins",
        "mean place",
        "gold",
        "outcomes",
    ):
        table.add_column(column, justify="left" if column in ("bot", "outcomes") else "right")
    for rank, line in enumerate(lines, 1):
        table.add_row(
            str(rank),
            line.name,
            f"{line.rating.ordinal:.2f}",
            f"{line.rating.mu:.2f} ± {line.rating.sigma:.2f}",
            str(line.games),
            str(line.wins),
            f"{line.places / line.games:.2f}" if line.games else "-",
            str(line.gold),
            " ".join(f"{k} {v}" for k, v in sorted(line.outcomes.items())),
        )
    return table


# -- the command -------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    cores = os.cpu_count() or 1
    parser = argparse.ArgumentParser(
        prog="dod-arena",
        description="Play a tournament of bots on local Dungeon of Doom servers, record every "
        "game in the store, and print the table with ratings.",
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
        "--turn-timeout",
        type=float,
        default=10.0,
        help="seconds per round or turn (generous: a missed turn makes a re-run differ)",
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
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(lambda: _main(argv))


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    options = parser.parse_args(argv)
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
    store = Store(options.db)
    store.migrate()  # before the servers, so that they do not race to create it
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
    arena = Arena(options, tournament)
    try:
        matches = trio.run(partial(_run, arena, entrants, seeds, store, console))
    except KeyboardInterrupt:
        console.print("dod-arena: interrupted; servers stopped, bots killed")
        return 130
    records = tournament_records(store, tournament, matches)
    if not options.no_rerate:
        for world in options.world:
            store.rerate(world, [r.id for r in records if r.world == world])
    lines = standings(entrants, records)
    recorded = {r.game for r in records}
    void = sum(1 for o in arena.outcomes if o.game not in recorded and not o.joined and not o.over)
    missing = len(matches) - len(records) - void
    if options.json:
        print(
            json.dumps(
                {
                    "tournament": tournament,
                    "games": len(matches),
                    "recorded": len(records),
                    "void": void,
                    "table": [
                        {
                            "rank": rank,
                            "name": line.name,
                            "rating": round(line.rating.ordinal, 4),
                            "mu": round(line.rating.mu, 4),
                            "sigma": round(line.rating.sigma, 4),
                            "games": line.games,
                            "wins": line.wins,
                            "outcomes": line.outcomes,
                        }
                        for rank, line in enumerate(lines, 1)
                    ],
                }
            )
        )
    else:
        title = f"tournament {tournament}: {len(records)} of {len(matches)} games recorded"
        Console(width=140).print(table_of(lines, title))
    store.close()
    if void:
        print(f"dod-arena: {void} games void: none of their bots joined", file=sys.stderr)
    if missing:
        print(f"dod-arena: {missing} games were not recorded", file=sys.stderr)
    return 0 if not missing and not arena.interrupted else 1


async def _run(
    arena: Arena, entrants: list[Entrant], seeds: list[int], store: Store, console: Console
) -> list[Match]:
    options = arena.options
    async with trio.open_nursery() as nursery:
        await arena.start_servers(nursery)
        columns = (
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
        )
        with Progress(*columns, console=console) as progress:
            if options.format == "round-robin":
                matches = round_robin(
                    entrants, options.players, options.world, options.map, seeds, options.games
                )
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
    options = arena.options
    per_round = len(entrants) // options.players
    task = progress.add_task("games", total=per_round * options.rounds)
    table: dict[str, Rating] = {}
    met: set[frozenset[str]] = set()
    matches: list[Match] = []
    for number in range(options.rounds):
        world = options.world[number % len(options.world)]
        map_spec = options.map[number % len(options.map)]
        seed = seeds[number % len(seeds)]
        games = swiss_round(
            entrants, table, met, options.players, number, len(matches), world, map_spec, seed
        )
        await arena.play_all(games, progress, task)
        matches.extend(games)
        # The next round's pairs need this round's results: wait for the servers to write them.
        with trio.move_on_after(RECORD_WAIT):
            while len(
                await trio.to_thread.run_sync(tournament_records, store, arena.tournament, games)
            ) < len(games):
                await trio.sleep(0.2)
        records = await trio.to_thread.run_sync(
            tournament_records, store, arena.tournament, matches
        )
        table = {line.name: line.rating for line in standings(entrants, records)}
    return matches


if __name__ == "__main__":
    sys.exit(main())
