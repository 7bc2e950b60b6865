"""An arena: its servers, and a schedule's matches played on them, a few at a time."""

from __future__ import annotations

import argparse
import signal
from collections.abc import Sequence
from typing import Any

import trio
from rich.markup import escape
from rich.progress import Progress

from .match import Outcome, play_match
from .sandbox import Sandbox
from .schedule import Match
from .servers import ServerProcess, run_server, stop_servers

__all__ = ["Arena"]


class Arena:
    """Runs a schedule on its servers; owns every process it starts."""

    def __init__(self, options: argparse.Namespace, tournament: str, sandbox: Sandbox) -> None:
        self.options = options
        self.sandbox = sandbox
        self.tournament = tournament
        self.servers: list[ServerProcess] = []
        self.outcomes: list[Outcome] = []
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
            outcome = await play_match(self.options, self.tournament, match, server, self.sandbox)
            self.outcomes.append(outcome)
            progress.advance(task)
            if outcome.error:
                shown = escape(f"{outcome.game}: {outcome.error}")
                progress.console.print(f"[yellow]{shown}")
        finally:
            server.busy -= 1
            self._slots.release()
