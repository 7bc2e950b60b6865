"""``dod-arena submit``, ``worker`` and ``status``: a tournament played by any number of
workers, on any hosts, that share a PostgreSQL database (:mod:`arena.queue`).

* ``submit`` stores the tournament (entrants as given on the command line, the schedule's
  and the limits' options) and its matches, scheduled as one machine would.
* ``worker`` starts one ``dod-server`` of its own (recording into a SQLite store in its
  ``--dir``), then claims matches one at a time, plays each with the bots as its own
  processes (sandboxed as on one machine), renews its lease while it plays, and stores
  the game's record as the match's result, once (:func:`arena.queue.finish`); only a
  stored result then goes into the shared records store, where writing again is
  harmless (a record's id is its key), so a re-run after a lost lease is stored once.
  SIGTERM: finish the match being played, claim no more. Ctrl-C: give the match back.
* ``status`` shows progress from any host and, once every match is done, the table,
  rated in schedule order; the store's ladder is rerated in schedule order by the worker
  that finishes the last match. It reads a one-machine run's store too (:mod:`arena.board`).

A Swiss tournament is submitted one round at a time: the worker that stores the last
result of a round pairs the next from the stored results, as one machine would.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import os
import re
import signal
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import trio
from rich.console import Console

from records import tournaments
from records.contract import Contract
from records.model import GameRecord
from records.store import Store
from records.tournaments import records_of

from . import queue
from .board import match_row
from .botlog import beside_replay
from .entrants import Entrant, parse_entrants, parse_seeds
from .match import Outcome, play_match
from .results import print_table, standings
from .runner import wait_for_record
from .sandbox import Sandbox, choose_isolation
from .schedule import Match, fairness_note, round_robin, swiss_round
from .servers import run_server, stop_servers
from .spec import contract_of, limits_of, tournament_spec

__all__ = ["main_status", "main_submit", "main_worker"]


# -- submit ------------------------------------------------------------------------


def main_submit(parser: argparse.ArgumentParser, options: argparse.Namespace) -> int:
    if not options.db or not options.db.startswith("postgresql"):
        parser.error("submit needs --db postgresql://... (the database the workers share)")
    if not options.tournament:
        parser.error("submit needs --tournament NAME (the workers and status find it by name)")
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,18}", options.tournament):
        parser.error("--tournament: at most 18 letters, digits, _ and -")
    try:
        entrants = parse_entrants(options.entrants)
        seeds = parse_seeds(options.seeds)
    except ValueError as error:
        parser.error(str(error))
    if options.players < 1 or options.players > len(entrants):
        parser.error(f"--players must be between 1 and the {len(entrants)} entrants")
    worlds = options.world or ["classic"]
    maps = options.map or [None]
    if options.format == "swiss":
        matches = _swiss_round(
            entrants, options.players, worlds, maps, seeds, 0, [], [], contract_of(options)
        )
    else:
        matches = round_robin(entrants, options.players, worlds, maps, seeds, options.games)
    try:
        spec = tournament_spec(options, entrants, worlds, maps)
    except ValueError as error:
        parser.error(str(error))
    rows = [match_row(m) for m in matches]
    Store(options.db).migrate()
    with queue.connect(options.db) as connection:
        queue.ensure_schema(connection)
        added = queue.submit(connection, options.tournament, spec, rows)
    print(
        f"dod-arena: tournament {options.tournament}: {added} of {len(matches)} matches "
        f"queued; {fairness_note(entrants, matches)}",
        file=sys.stderr,
    )
    return 0


def _swiss_round(
    entrants: Sequence[Entrant],
    players: int,
    worlds: Sequence[str],
    maps: Sequence[str | None],
    seeds: Sequence[int],
    number: int,
    before: Sequence[dict[str, Any]],
    records: Sequence[GameRecord],
    contract: Contract,
) -> list[Match]:
    """Round ``number`` of a Swiss tournament, paired as one machine pairs it: from the
    ratings of the stored ``records`` (schedule order) and the rounds ``before`` (the
    stored matches: who met, who sat out)."""
    per_round = len(entrants) // players
    met: set[frozenset[str]] = set()
    byes: dict[str, int] = {}
    for start in range(0, len(before), per_round):
        playing = set()
        for row in before[start : start + per_round]:
            playing.update(row["entrants"])
            for a, b in itertools.combinations(row["entrants"], 2):
                met.add(frozenset((a, b)))
        for entrant in entrants:
            if entrant.name not in playing:
                byes[entrant.name] = byes.get(entrant.name, 0) + 1
    table = {line.name: line.rating for line in standings(entrants, records, contract)}
    return swiss_round(
        entrants,
        table,
        met,
        players,
        number,
        len(before),
        worlds[number % len(worlds)],
        maps[number % len(maps)],
        seeds[number % len(seeds)],
        byes,
    )


def _next_round(connection: Any, tournament: str) -> int:
    """Queue a Swiss tournament's next round once every match of the last is stored;
    how many matches were added. Workers racing to do it pair it the same way, from the
    same stored results, and the matches' keys keep it once."""
    spec = _tournament_spec(connection, tournament)
    if spec["format"] != "swiss" or queue.unfinished(connection, tournament):
        return 0
    before = [
        row
        for _, row in connection.execute(
            "SELECT number, spec FROM arena_matches WHERE tournament = %s ORDER BY number",
            (tournament,),
        )
    ]
    entrants = parse_entrants(spec["entrants"])
    per_round = len(entrants) // spec["players"]
    number = len(before) // per_round
    if number >= spec["rounds"]:
        return 0
    records = _stored_records(connection, tournament)
    matches = _swiss_round(
        entrants,
        spec["players"],
        spec["worlds"],
        spec["maps"],
        spec["seeds"],
        number,
        before,
        records,
        Contract.from_spec(spec),
    )
    return queue.submit(
        connection, tournament, spec, [match_row(m) for m in matches], first=len(before)
    )


def _work_left(connection: Any, tournament: str | None) -> bool:
    """Whether any match is waiting or being played, or a Swiss tournament has rounds
    still to pair (pairing the next one here if the worker that should have died first)."""
    if queue.unfinished(connection, tournament):
        return True
    tournaments = connection.execute(
        "SELECT t.name, t.spec, count(m.number) FROM arena_tournaments t "
        "JOIN arena_matches m ON m.tournament = t.name "
        "WHERE %(t)s::text IS NULL OR t.name = %(t)s::text GROUP BY t.name, t.spec",
        {"t": tournament},
    ).fetchall()
    for name, spec, queued in tournaments:
        if spec["format"] != "swiss" or spec.get("local"):
            continue
        per_round = len(parse_entrants(spec["entrants"])) // spec["players"]
        if queued < per_round * spec["rounds"]:
            _next_round(connection, name)
            return True
    return False


# -- the worker --------------------------------------------------------------------


@dataclasses.dataclass(slots=True)
class Worker:
    options: argparse.Namespace
    name: str
    sandbox: Sandbox
    stopping: str | None = None
    scope: trio.CancelScope = dataclasses.field(default_factory=trio.CancelScope)
    played: int = 0


def main_worker(parser: argparse.ArgumentParser, options: argparse.Namespace) -> int:
    if not options.db or not options.db.startswith("postgresql"):
        parser.error("worker needs --db postgresql://... (the database the tournament is in)")
    try:
        isolation, why_not = choose_isolation(options.isolation)
    except RuntimeError as error:
        parser.error(str(error))
    name = options.name or f"{socket.gethostname()}:{os.getpid()}"
    options.dir = options.dir or f"arena-runs/worker-{os.getpid()}"
    Path(options.dir).mkdir(parents=True, exist_ok=True)
    if why_not is not None:
        print(f"dod-arena worker: bots are not shut in namespaces ({why_not})", file=sys.stderr)
    Store(options.db).migrate()
    with queue.connect(options.db) as connection:
        queue.ensure_schema(connection)
    worker = Worker(options, name, Sandbox(isolation))
    trio.run(_work, worker)
    if worker.stopping == "SIGINT":
        print(f"dod-arena worker: interrupted after {worker.played} matches", file=sys.stderr)
        return 130
    if worker.stopping == "SIGTERM":
        print(
            f"dod-arena worker: stopped by SIGTERM after {worker.played} matches", file=sys.stderr
        )
        return 143
    print(f"dod-arena worker: no more matches, {worker.played} played", file=sys.stderr)
    return 0


async def _work(worker: Worker) -> None:
    options = worker.options
    local = f"sqlite:///{Path(options.dir) / 'records.db'}"
    server_options = argparse.Namespace(
        db=local,
        dir=options.dir,
        turn_timeout=options.turn_timeout,
        max_missed_turns=options.max_missed_turns,
        game_time=options.game_time,
    )
    await trio.to_thread.run_sync(lambda: Store(local).migrate())
    claims = await trio.to_thread.run_sync(queue.connect, options.db)
    wakes = await trio.to_thread.run_sync(queue.connect, options.db)
    await trio.to_thread.run_sync(queue.listen, wakes)
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(_watch_signals, worker)
            with worker.scope:
                server = await nursery.start(run_server, server_options, 0)
                while worker.stopping is None:
                    claimed = await trio.to_thread.run_sync(
                        queue.claim, claims, worker.name, options.lease, options.tournament
                    )
                    if claimed is None:
                        left = await trio.to_thread.run_sync(_work_left, claims, options.tournament)
                        if options.exit_when_idle and not left:
                            break
                        await trio.to_thread.run_sync(
                            queue.wait_for_work, wakes, options.lease, abandon_on_cancel=True
                        )
                        continue
                    await _play(worker, claims, claimed, server, local)
                await stop_servers([server])
            nursery.cancel_scope.cancel()
    finally:
        claims.close()
        wakes.close()


async def _watch_signals(worker: Worker, *, task_status: trio.TaskStatus[None]) -> None:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        task_status.started()
        async for number in signals:
            if number == signal.SIGTERM and worker.stopping is None:
                worker.stopping = "SIGTERM"
                print(
                    "dod-arena worker: SIGTERM: finishing the match being played",
                    file=sys.stderr,
                    flush=True,
                )
            else:
                worker.stopping = "SIGINT"
                worker.scope.cancel()


async def _play(
    worker: Worker, connection: Any, claimed: queue.Claimed, server: Any, local: str
) -> None:
    options = worker.options
    tournament = await trio.to_thread.run_sync(_tournament_spec, connection, claimed.tournament)
    entrants = {e.name: e for e in parse_entrants(tournament["entrants"])}
    spec = claimed.spec
    match = Match(
        claimed.number,
        spec["world"],
        spec["map"],
        spec["seed"],
        tuple(entrants[n] for n in spec["entrants"]),
    )
    limits = limits_of(tournament)
    played = False
    try:
        async with trio.open_nursery() as renewing:
            renewing.start_soon(_renew, connection, claimed, worker.name, options.lease)
            outcome = await play_match(
                limits,
                claimed.tournament,
                match,
                server,
                worker.sandbox,
                Contract.from_spec(tournament),
                Path(options.dir) / "logs",
            )
            renewing.cancel_scope.cancel()
        played = True
    finally:
        if not played:  # cut short (Ctrl-C): give the match back at once
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(queue.release, connection, claimed, worker.name)
    record = None
    if not outcome.void:
        store = Store(local)
        try:
            record = await wait_for_record(store, outcome.game)
        finally:
            store.close()
    if record is not None and record.replay is not None:
        outcome.logs = beside_replay(outcome.logs, Path(record.replay))
    result = outcome.result(record, worker.name)
    stored = await trio.to_thread.run_sync(queue.finish, connection, claimed, worker.name, result)
    worker.played += 1
    line = progress_line(worker.played, match.game_name(claimed.tournament), match, outcome, record)
    print(line, file=sys.stderr, flush=True)
    if stored:
        published = None if outcome.void else record
        await trio.to_thread.run_sync(
            _publish, options.db, connection, claimed.tournament, published
        )
        await trio.to_thread.run_sync(_next_round, connection, claimed.tournament)


def progress_line(
    played: int, game: str, match: Match, outcome: Outcome, record: GameRecord | None
) -> str:
    """What a worker says once a match is over (one line each, as ``dod-bots`` shows its
    bots): the game, where it was played, how each bot did, and how many it has played."""
    where = f"{match.world}, map {match.map or 'default'}, seed {match.seed}"
    if record is not None:
        how = ", ".join(f"{player.name or '?'} {player.outcome}" for player in record.players)
    elif outcome.error:
        how = f"not recorded: {outcome.error}"
    elif outcome.void:
        how = "void: not every bot joined" if outcome.not_started else "void: no bot joined"
    else:
        how = "not recorded"
    return f"dod-arena worker: {game} ({where}): {how}; {played} played"


async def _renew(connection: Any, claimed: queue.Claimed, name: str, lease: float) -> None:
    while True:
        await trio.sleep(lease / 3)
        await trio.to_thread.run_sync(queue.renew, connection, claimed, name, lease)


def _tournament_spec(connection: Any, tournament: str) -> dict[str, Any]:
    row = connection.execute(
        "SELECT spec FROM arena_tournaments WHERE name = %s", (tournament,)
    ).fetchone()
    assert row is not None, tournament
    spec: dict[str, Any] = row[0]
    return spec


def _stored_records(connection: Any, tournament: str) -> list[GameRecord]:
    """The tournament's stored records, in schedule order (void matches have none)."""
    return records_of(queue.results(connection, tournament).items())


def _publish(url: str, connection: Any, tournament: str, record: GameRecord | None) -> None:
    """Into the shared records store: this match's record; once every match is done,
    every stored result's record again (harmless for those written; it writes one a
    worker stored before it died) and the ladder rerated in schedule order."""
    store = Store(url)
    try:
        if record is not None:
            store.record([record])
        if queue.unfinished(connection, tournament):
            return
        records = _stored_records(connection, tournament)
        store.record(records)
        for world in sorted({r.world for r in records}):
            store.rerate(world, [r.id for r in records if r.world == world])
    finally:
        store.close()


# -- status ------------------------------------------------------------------------


def main_status(parser: argparse.ArgumentParser, options: argparse.Namespace) -> int:
    # (any store: a one-machine run keeps its tournament in its own, arena.board)
    store = Store(options.db)
    try:
        # The same reads, and the same table, as the server's web page of it.
        with store.engine.connect() as connection:
            found = (
                tournaments.tournament(connection, options.tournament)
                if tournaments.holds_tournaments(connection)
                else None
            )
            if found is None or not found.games:
                print(f"dod-arena: no tournament {options.tournament}", file=sys.stderr)
                return 1
            table = tournaments.TournamentTable(
                found.name, tournaments.entrant_names(connection, found), found.contract
            )
            while not table.refresh(connection):
                pass
    finally:
        store.close()
    lines = table.lines()
    if options.json:
        summary = found.as_json()
        summary["tournament"] = summary.pop("name")
        summary["table"] = [line.as_json(rank) for rank, line in enumerate(lines, 1)]
        print(json.dumps(summary))
        return 0
    print(
        f"tournament {found.name}: {found.done} of {found.games} games done, "
        f"{found.playing} being played, {found.waiting} waiting "
        f"({found.claims} claims, {found.failed} failed; workers holding a lease: {found.workers})"
    )
    print_table(Console(width=140), lines, f"tournament {found.name} so far", found.contract)
    return 0


def add_worker_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", default=None, help="the worker's name (default: host:pid)")
    parser.add_argument("--lease", type=float, default=60.0, help="seconds a claim lasts")
    parser.add_argument(
        "--exit-when-idle",
        action="store_true",
        help="stop once every match is done (not only claimed)",
    )
    parser.add_argument("--turn-timeout", type=float, default=10.0)
    parser.add_argument("--max-missed-turns", type=int, default=3)
    parser.add_argument("--game-time", type=float, default=60.0)
