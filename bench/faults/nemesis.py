"""The faults: a schedule drawn from the seed alone, and how each is injected and healed.

:func:`schedule` gives the same list of faults for the same seed, duration and kinds, so
a seed replays its faults (when each begins depends on how long the ones before took to
heal and converge on this machine, never which they are). One fault at a time: it is
injected, held, healed, and the campaign checks the nodes have converged before the next.

| kind | what it does |
|---|---|
| ``kill-node`` | ``kill -9`` of a node, started again (same host, port and records journal) |
| ``kill-worker`` | ``kill -9`` of one worker of the workers server (its parent starts another) |
| ``kill-parent`` | ``kill -9`` of the workers server's parent: its workers must end with it |
| ``pause-node``, ``pause-worker`` | ``SIGSTOP`` for 2-15 s, then ``SIGCONT`` |
| ``pg-restart-fast``, ``pg-restart-immediate`` | ``pg_ctl restart -m fast`` / ``-m immediate`` |
| ``pg-stop`` | PostgreSQL stopped for 20 s, then started |
| ``cut-db`` | a node's link to PostgreSQL black-holed; the nodes still see each other |
| ``cut-peers`` | a node and the other nodes black-holed from each other; both reach PostgreSQL |
| ``slow-db`` | 50-300 ms more each way on a node's link to PostgreSQL |
| ``lossy-db`` | 5-30 % of the chunks on a node's link to PostgreSQL held for a retransmission |
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
from dataclasses import dataclass
from typing import Final

import trio

from .history import Fault, clock
from .rig import NODES, WORKERS, Rig, running

KINDS: Final = {
    "kill-node": 3,
    "kill-worker": 2,
    "kill-parent": 1,
    "pause-node": 3,
    "pause-worker": 1,
    "pg-restart-fast": 1,
    "pg-restart-immediate": 1,
    "pg-stop": 1,
    "cut-db": 3,
    "cut-peers": 2,
    "slow-db": 2,
    "lossy-db": 1,
}
"""Every kind of fault, with its weight in a schedule."""
ORPHAN_BOUND: Final = 5.0
"""Seconds a killed parent's workers may outlive it."""


@dataclass(frozen=True, slots=True)
class Planned:
    """A fault of the schedule: what, on which target, held how long, and the quiet
    seconds after it converged before the next."""

    kind: str
    target: str
    hold: float
    quiet: float
    amount: float = 0.0
    """The delay (seconds) of ``slow-db``, the share of ``lossy-db``."""

    def describe(self) -> str:
        amount = ""
        if self.kind == "slow-db":
            amount = f" +{self.amount * 1000:.0f} ms"
        elif self.kind == "lossy-db":
            amount = f" {self.amount:.0%} lost"
        return f"{self.kind} {self.target}{amount} for {self.hold:.1f} s"


def schedule(seed: int, duration: float, kinds: list[str]) -> list[Planned]:
    """The faults of a run of about ``duration`` seconds (each fault's hold and quiet
    time counted, and a few seconds to heal), drawn from ``seed`` alone. A run long
    enough for them begins with one fault of each kind, in an order of its own."""
    rng = random.Random(seed)
    planned: list[Planned] = []
    spent = 0.0
    first = rng.sample(kinds, len(kinds))
    while spent < duration:
        kind = first.pop() if first else rng.choices(kinds, [KINDS[k] for k in kinds])[0]
        fault = _draw(rng, kind)
        planned.append(fault)
        spent += fault.hold + fault.quiet + 4.0
    return planned


def _draw(rng: random.Random, kind: str) -> Planned:
    target = WORKERS if kind.endswith(("worker", "parent")) else rng.choice(NODES)
    quiet = rng.uniform(1.0, 3.0)
    if kind.startswith("pg-"):
        target = "PG"
    if kind == "pg-stop":
        return Planned(kind, target, 20.0, quiet)
    if kind.startswith("pg-restart") or kind in ("kill-worker", "kill-parent"):
        return Planned(kind, target, 0.0, quiet)
    if kind.startswith("pause"):
        return Planned(kind, target, rng.uniform(2.0, 15.0), quiet)
    if kind == "kill-node":
        return Planned(kind, target, rng.uniform(1.0, 6.0), quiet)
    if kind == "slow-db":
        return Planned(kind, target, rng.uniform(5.0, 15.0), quiet, rng.uniform(0.05, 0.3))
    if kind == "lossy-db":
        return Planned(kind, target, rng.uniform(5.0, 15.0), quiet, rng.uniform(0.05, 0.3))
    return Planned(kind, target, rng.uniform(5.0, 15.0), quiet)  # the cuts


class Nemesis:
    """Injects and heals the planned faults on a :class:`Rig`."""

    def __init__(self, rig: Rig, seed: int) -> None:
        self.rig = rig
        self.rng = random.Random(f"{seed}:nemesis")
        self.orphans: list[tuple[float, list[int]]] = []
        """Workers found running :data:`ORPHAN_BOUND` seconds after their parent's
        ``kill -9`` (when, and which): processes a kill left running."""
        self.down: set[str] = set()
        """Nodes not serving now (killed and not yet started again, or paused)."""

    async def inject(self, planned: Planned, fault: Fault) -> None:
        """Inject ``planned``, hold it, heal it; ``fault`` is stamped as it goes."""
        rig, kind, target = self.rig, planned.kind, planned.target
        fault.began = clock()
        if kind == "kill-node":
            self.down.add(target)
            await trio.to_thread.run_sync(rig.nodes[target].kill)
            await trio.sleep(planned.hold)
            await trio.to_thread.run_sync(rig.start_node, target)
            self.down.discard(target)
        elif kind == "kill-worker":
            pids = rig.worker_pids()
            if pids:
                victim = self.rng.choice(sorted(pids))
                fault.detail = f"(pid {victim})"
                _signal(victim, signal.SIGKILL)
                await self._workers_back(exclude=victim)
        elif kind == "kill-parent":
            await self._kill_parent(fault)
        elif kind == "pause-node":
            self.down.add(target)
            rig.nodes[target].signal(signal.SIGSTOP)
            await trio.sleep(planned.hold)
            rig.nodes[target].signal(signal.SIGCONT)
            self.down.discard(target)
        elif kind == "pause-worker":
            pids = rig.worker_pids()
            if pids:
                victim = self.rng.choice(sorted(pids))
                fault.detail = f"(pid {victim})"
                _signal(victim, signal.SIGSTOP)
                await trio.sleep(planned.hold)
                _signal(victim, signal.SIGCONT)
        elif kind in ("pg-restart-fast", "pg-restart-immediate"):
            mode = kind.rpartition("-")[2]
            await trio.to_thread.run_sync(rig.postgres.restart, mode)
        elif kind == "pg-stop":
            await trio.to_thread.run_sync(rig.postgres.stop)
            await trio.sleep(planned.hold)
            await trio.to_thread.run_sync(rig.postgres.start)
        elif kind == "cut-db":
            rig.cut_database(target)
            await trio.sleep(planned.hold)
            rig.heal_database(target)
        elif kind == "cut-peers":
            rig.cut_peers(target)
            await trio.sleep(planned.hold)
            rig.heal_peers(target)
        elif kind in ("slow-db", "lossy-db"):
            link = rig.links[target]
            if kind == "slow-db":
                link.delay = planned.amount
            else:
                link.loss = planned.amount
            await trio.sleep(planned.hold)
            link.delay, link.loss = 0.0, 0.0
        else:
            raise ValueError(f"no such fault: {kind}")
        fault.healed = clock()

    async def _workers_back(self, *, exclude: int | None = None) -> None:
        """Wait until the workers server has two workers again (at most a minute)."""
        with trio.move_on_after(60):
            while len([pid for pid in self.rig.worker_pids() if pid != exclude]) < 2:
                await trio.sleep(0.1)
            self.rig.note_children()
            await trio.sleep(1.0)  # the new worker joins the directory and listens

    async def _kill_parent(self, fault: Fault) -> None:
        rig = self.rig
        assert rig.workers is not None
        workers = rig.worker_pids()
        rig.note_children()
        await trio.to_thread.run_sync(rig.workers.kill)
        with trio.move_on_after(ORPHAN_BOUND):
            while any(running(pid) for pid in workers):
                await trio.sleep(0.05)
        left = [pid for pid in workers if running(pid)]
        if left:
            self.orphans.append((clock(), left))
            fault.detail = f"(workers {left} outlived it; killed)"
            for pid in left:
                _signal(pid, signal.SIGKILL)
        await trio.to_thread.run_sync(rig.start_workers)


def _signal(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signum)
