"""``python -m bench.faults``: the fault campaign (see :mod:`bench.faults`)."""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import sys
from collections import Counter
from pathlib import Path
from typing import Final

import psycopg
import trio

from .check import Violation, answers, holders, wins_expected
from .history import Fault, History, clock
from .nemesis import KINDS, Nemesis, Planned, schedule
from .observe import DirectoryLog, converge, games, held
from .report import report
from .rig import NODES, WORKERS, Rig
from .workload import ANSWER_BOUND, Client, Racer

CONVERGE_WAIT: Final = 30.0
"""Seconds the campaign waits for the nodes to converge before it gives up on it."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench.faults",
        description="The fault campaign: faults injected into real nodes while clients "
        "play; the invariants checked on the recorded history. Needs root (network "
        "namespaces) and PostgreSQL's binaries.",
    )
    parser.add_argument("--seed", type=int, help="the schedule's seed (default: a new one)")
    parser.add_argument(
        "--duration", type=float, default=60.0, help="seconds of faults (default: 60)"
    )
    parser.add_argument(
        "--heartbeat", type=float, default=1.0, help="the nodes' --heartbeat (default: 1)"
    )
    parser.add_argument("--clients", type=int, default=12, help="clients at once (default: 12)")
    parser.add_argument(
        "--workers-share",
        type=float,
        default=0.2,
        help="the share of sessions on the --workers server (default: 0.2)",
    )
    parser.add_argument(
        "--faults",
        default=",".join(KINDS),
        help=f"the kinds of fault to draw from, comma-separated (default: all: {', '.join(KINDS)})",
    )
    parser.add_argument("--schedule", action="store_true", help="print the schedule and exit")
    parser.add_argument(
        "--log-level", default="warning", help="the servers' --log-level (default: warning)"
    )
    parser.add_argument(
        "--logs", type=Path, help="a folder to keep each server's log in (NAME.log)"
    )
    parser.add_argument(
        "--history", type=Path, help="a file to write the whole history to (JSON lines)"
    )
    parser.add_argument(
        "--markdown", action="store_true", help="print the figures of each kind of fault as a table"
    )
    parser.add_argument(
        "--server-from",
        type=Path,
        metavar="DIR",
        help="run the servers of another checkout (e.g. an older commit's, to see what "
        "the campaign finds in it)",
    )
    return parser


class Campaign:
    """One run: the rig, the clients, the nemesis and what they saw."""

    def __init__(self, args: argparse.Namespace, seed: int, plan: list[Planned]) -> None:
        self.args, self.seed, self.plan = args, seed, plan
        self.history = History()
        self.violations: list[Violation] = []
        self.rig = Rig(
            heartbeat=args.heartbeat,
            log_level=args.log_level,
            logs=args.logs,
            server_from=args.server_from,
        )
        self.nemesis = Nemesis(self.rig, seed)
        self.bound = 3 * args.heartbeat
        """Seconds within which every node's GAMES must agree after a fault heals."""

    def say(self, text: str) -> None:
        print(f"[{clock():8.3f}] {text}", flush=True)

    def violation(self, kind: str, moment: float, text: str) -> None:
        self.violations.append(Violation(kind, moment, text))
        self.say(f"VIOLATION {kind}: {text}")

    async def run(self) -> None:
        history, rig = self.history, self.rig
        clients = [
            Client(number, self.seed, rig.address, history, workers_share=self.args.workers_share)
            for number in range(self.args.clients)
        ]
        racers = [Racer(number, self.seed, rig.address, history) for number in range(2)]
        async with trio.open_nursery() as nursery:
            for client in clients:
                nursery.start_soon(client.run)
            for racer in racers:
                nursery.start_soon(racer.run)
            await trio.sleep(3.0)
            await self.check_state(None)
            ends = clock() + self.args.duration
            for number, planned in enumerate(self.plan, start=1):
                if clock() >= ends:
                    break
                fault = Fault(number, planned.kind, planned.target, clock())
                history.faults.append(fault)
                self.say(f"fault {number}: {planned.describe()}")
                await self.nemesis.inject(planned, fault)
                self.say(f"healed {number}: {planned.kind} {planned.target} {fault.detail}")
                await self.check_state(fault)
                await trio.sleep(planned.quiet)
            for stop in [client.stop for client in clients] + [racer.stop for racer in racers]:
                stop.set()
            # Sessions end on their own (each command is bounded); then they are cut.
            nursery.cancel_scope.deadline = trio.current_time() + ANSWER_BOUND + 5

    async def check_state(self, fault: Fault | None) -> None:
        """After a fault heals: every node's GAMES agrees (within three heartbeats), lists
        only games a live node holds, no game has two holders, and every node and the
        workers server answer."""
        rig = self.rig
        live = [name for name in NODES if name not in self.nemesis.down]
        addresses = [rig.address[name] for name in live]
        healed = clock()
        while True:
            took, listed = await converge(addresses, CONVERGE_WAIT)
            holdings = {name: await held(rig.address[name]) for name in live}
            owned = [game for games_held in holdings.values() for game in games_held or ()]
            lists = listed.get(addresses[0]) or []
            # A node paused past its lease still lists, as it wakes, a game another node
            # has taken meanwhile, until its next heartbeat finds the claim lost and ends
            # it (acting for it meanwhile is the history's violation): agreement waits
            # for that too, within the same bound.
            once = len(owned) == len(set(owned))
            if took is None or (set(lists) - {"default"} == set(owned) and once):
                break
            if clock() - healed > CONVERGE_WAIT:
                break
            await trio.sleep(0.05)  # a dead node's game still listed: not converged yet
        took = clock() - healed if took is not None else None
        what = "start" if fault is None else f"fault {fault.number}"
        if fault is not None:
            fault.converged = took
        if took is None or took > self.bound:
            shown = "; ".join(
                f"{rig_name(rig, a)}: {sorted(set(g or []) - {'default'})}"
                for a, g in listed.items()
            )
            self.violation(
                "convergence",
                healed,
                f"after {what}, GAMES did not agree on live nodes' games within "
                f"{self.bound:g} s (three heartbeats): "
                f"{'never' if took is None else f'{took:.2f} s'}; {shown}; held: {holdings}",
            )
        else:
            self.say(f"converged after {what} in {took:.2f} s: {sorted(set(owned))}")
        counted = Counter(owned)
        twice = [game for game, count in counted.items() if count > 1]
        if twice:
            self.violation(
                "two holders",
                clock(),
                f"{clock() - healed:.2f} s after {what}: {twice} held by two nodes: {holdings}",
            )
        for name in [*live, WORKERS]:
            if await games(rig.address[name]) is None:
                self.violation(
                    "wedged", clock(), f"after {what}, node {name} does not answer GAMES"
                )


def rig_name(rig: Rig, address: str) -> str:
    return next((name for name, known in rig.address.items() if known == address), address)


def recorded(campaign: Campaign) -> None:
    """Every told win's game recorded exactly once, in its system's records database."""
    rig = campaign.rig
    told = wins_expected(campaign.history)
    query = (
        "SELECT count(*) FROM games g JOIN players p ON p.game_id = g.id "
        "WHERE g.game = {0} AND g.seed = {0} AND p.outcome = 'win' AND p.name {1}"
    )
    with psycopg.connect(rig.database) as pg:
        lite = sqlite3.connect(rig.folder / "workers-records.db")
        for (system, game, seed, name), wins in sorted(told.items(), key=str):
            count = len(wins)
            named = "IS NULL" if name is None else "= {0}"
            params: tuple[object, ...] = (game, seed) if name is None else (game, seed, name)
            if system == "cluster":
                row = pg.execute(query.format("%s", named.format("%s")), params).fetchone()
            else:
                row = lite.execute(query.format("?", named.format("?")), params).fetchone()
            found = 0 if row is None else int(row[0])
            if found != count:
                rows = (
                    "SELECT g.id, p.name, p.outcome, g.end_reason FROM games g "
                    "JOIN players p ON p.game_id = g.id WHERE g.game = {0} AND g.seed = {0}"
                )
                if system == "cluster":
                    seen = pg.execute(rows.format("%s"), (game, seed)).fetchall()
                else:
                    seen = lite.execute(rows.format("?"), (game, seed)).fetchall()
                campaign.violations.append(
                    Violation(
                        "records",
                        wins[-1].sent,
                        f"{system}: game {game} (seed {seed}) won by {name!r}: told {count}, "
                        f"recorded {found} ({seen}): " + "; ".join(win.line() for win in wins),
                        {win.client for win in wins},
                    )
                )
        lite.close()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    kinds = [kind.strip() for kind in args.faults.split(",") if kind.strip()]
    unknown = [kind for kind in kinds if kind not in KINDS]
    if unknown:
        sys.exit(f"bench.faults: no such fault: {', '.join(unknown)}")
    plan = schedule(seed, args.duration, kinds)
    print(f"seed: {seed}", flush=True)
    print("schedule: " + "; ".join(planned.describe() for planned in plan), flush=True)
    if args.schedule:
        return 0
    if os.geteuid() != 0:
        sys.exit("bench.faults: network namespaces need root")
    campaign = Campaign(args, seed, plan)
    rig = campaign.rig
    log = DirectoryLog(rig.database, campaign.history, {name: rig.address[name] for name in NODES})
    try:
        rig.start()
        log.start()
        trio.run(campaign.run)
        for pid_list in campaign.nemesis.orphans:
            campaign.violation(
                "left running",
                pid_list[0],
                f"workers {pid_list[1]} outlived their parent's kill -9",
            )
        rig.stop_servers()
        log.stop()
        end = clock()
        for found in answers(campaign.history, end) + holders(campaign.history):
            campaign.violations.append(found)
        recorded(campaign)
    finally:
        left = rig.close()
    if left:
        campaign.violation(
            "left running", clock(), f"processes {left} still ran after every server stopped"
        )
    report(campaign.history, campaign.violations, markdown=args.markdown)
    if args.history is not None:
        campaign.history.save(args.history)
    print(f"violations: {len(campaign.violations)}", flush=True)
    return 0 if not campaign.violations else 1


if __name__ == "__main__":
    sys.exit(main())
