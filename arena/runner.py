"""An arena: its servers, and a schedule's matches played on them, a few at a time.

After each match the arena waits for its record (the servers write records on their
own), moves its bots' logs beside its replay (:func:`arena.botlog.beside_replay`), says
which bots did not start or were cut off, and tells the tournament's board
(:mod:`arena.board`) the result, so that the web page shows it as it comes.
"""

from __future__ import annotations

import argparse
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import trio
from rich.markup import escape
from rich.progress import Progress

from records.contract import Contract
from records.model import GameRecord
from records.store import Store

from .board import WORKER, Board
from .botlog import beside_replay
from .match import Outcome, play_match
from .sandbox import Sandbox
from .schedule import Match
from .servers import ServerProcess, run_server, stop_servers

__all__ = ["Arena", "wait_for_record"]

RECORD_WAIT: Final = 30.0
"""Seconds to wait for a server to have written a match's record."""


async def wait_for_record(
    store: Store, game: str, limiter: trio.CapacityLimiter | None = None
) -> GameRecord | None:
    """The newest record of the game called ``game`` once a server has written it
    (within :data:`RECORD_WAIT` seconds), else ``None``."""
    with trio.move_on_after(RECORD_WAIT):
        while True:
            found = await trio.to_thread.run_sync(store.records_named, [game], limiter=limiter)
            if found:
                return found[-1]
            await trio.sleep(0.2)
    return None


class Arena:
    """Runs a schedule on its servers; owns every process it starts."""

    def __init__(
        self,
        options: argparse.Namespace,
        tournament: str,
        sandbox: Sandbox,
        contract: Contract,
        store: Store,
        board: Board | None = None,
    ) -> None:
        self.options = options
        self.sandbox = sandbox
        self.tournament = tournament
        self.contract = contract
        self.store = store
        self.board = board
        self.store_limiter = trio.CapacityLimiter(1)
        """The store is used from one thread at a time."""
        self.servers: list[ServerProcess] = []
        self.outcomes: list[Outcome] = []
        self.records: dict[str, GameRecord] = {}
        """Each match's record as it came, by game name."""
        self.interrupted = False
        self.stopped_by: str | None = None
        """``SIGINT`` (matches cut short) or ``SIGTERM`` (running matches finished, no
        more started), once a signal came."""
        self.play_scope = trio.CancelScope()
        """Around every match: cancelled, the matches stop and their bots are killed."""
        self._slots = trio.Semaphore(options.parallel)

    async def start_servers(self, nursery: trio.Nursery) -> None:
        for index in range(self.options.servers):
            self.servers.append(await nursery.start(run_server, self.options, index))

    async def stop_servers(self) -> None:
        await stop_servers(self.servers)

    def _server(self) -> ServerProcess:
        server = min(self.servers, key=lambda s: s.busy)
        server.busy += 1
        return server

    async def play_all(self, matches: Sequence[Match], progress: Progress, task: Any) -> None:
        if self.board is not None:
            await self._on_board(self.board.add, matches)
        async with trio.open_nursery() as nursery:
            for match in matches:
                if self.stopped_by is not None:
                    break
                await self._slots.acquire()
                if self.stopped_by is not None:
                    self._slots.release()
                    break
                nursery.start_soon(self._play_and_release, match, progress, task)

    async def watch_signals(self, console: Any, *, task_status: trio.TaskStatus[None]) -> None:
        """SIGTERM: start no more matches, finish those running. SIGINT (Ctrl-C), or a
        second signal: stop now (bots killed, servers stopped cleanly)."""
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            task_status.started()
            async for number in signals:
                if number == signal.SIGTERM and self.stopped_by is None:
                    self.stopped_by = "SIGTERM"
                    console.print("dod-arena: SIGTERM: finishing the games being played")
                else:
                    self.stopped_by = "SIGINT" if number == signal.SIGINT else "SIGTERM"
                    self.interrupted = True
                    self.play_scope.cancel()

    async def _play_and_release(self, match: Match, progress: Progress, task: Any) -> None:
        server = self._server()
        try:
            if self.board is not None:
                await self._on_board(self.board.playing, match)
            outcome = await play_match(
                self.options,
                self.tournament,
                match,
                server,
                self.sandbox,
                self.contract,
                Path(self.options.dir) / "logs",
            )
        finally:
            server.busy -= 1
            self._slots.release()
        record = None
        if not outcome.void:  # (a void match has no table to go in)
            record = await wait_for_record(self.store, outcome.game, self.store_limiter)
        if record is not None:
            self.records[outcome.game] = record
            if record.replay is not None:
                outcome.logs = beside_replay(outcome.logs, Path(record.replay))
        self.outcomes.append(outcome)
        if self.board is not None:
            await self._on_board(self.board.done, match, outcome.result(record, WORKER))
        progress.advance(task)
        _tell(progress, outcome)

    async def _on_board(self, work: Any, *args: Any) -> None:
        await trio.to_thread.run_sync(lambda: work(*args), limiter=self.store_limiter)


def _tell(progress: Progress, outcome: Outcome) -> None:
    """What went wrong in a match, on the console as it happens."""
    say = progress.console.print
    if outcome.error:
        say(f"[yellow]{escape(outcome.game)}: {escape(outcome.error)}")
    for failure in outcome.not_started:
        say(f"[red]dod-arena: {escape(failure.report()[0])}", highlight=False)
        for line in failure.report()[1:]:
            say(escape(line), highlight=False)
    for name, why in outcome.cut_off.items():
        say(f"[yellow]dod-arena: {escape(outcome.game)}: {escape(name)} {escape(why)}")
