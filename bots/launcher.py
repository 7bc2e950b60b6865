"""``dod-bots``: start many bot processes against one server and sum up how they did.

::

    dod-bots --host 127.0.0.1 --port 40004 explorer:3 random:2 --max-moves 5000
    dod-bots --game arena --create 'crawler map=easy seed=7' crawler-solver:2

Each ``KIND[:COUNT]`` starts COUNT processes of a bot from :data:`bots.KINDS`
(``python -m bots.<kind> ...``), named ``<kind>-<n>`` (n counts from 1 across
all kinds, so names are unique in the game). With ``--seed S`` bot n gets seed
S + n, so a whole run can be repeated.

What the launcher promises:

* ``--game G`` has every bot ``JOIN G``; with ``--create 'WORLD [map=M] [seed=N]
  [players=N] [turn=S]'`` the launcher first creates G so (``CREATE G WORLD ...``), and
  stops with status 1 and the server's reason if it cannot. It then watches G while
  its bots play, so that the game stays for them all: a world the first bots end
  restarts for those still joining (a created game nobody watches goes when it ends).
* While the bots play it shows, on standard error, one progress line a second
  (bots playing, i.e. connected and reporting, bots still starting, results so far,
  moves made) and a line for each bot that ends.
* ``Ctrl-C`` or ``SIGTERM`` stops them all: each bot is sent ``SIGINT`` (it says
  ``QUIT`` and reports ``interrupted``), given ``--grace`` seconds, and killed
  if still running; a second ``Ctrl-C`` kills at once. Bots run in their own
  process group, so a terminal's ``Ctrl-C`` reaches them only through the
  launcher, once. No bot process outlives the launcher.
* At the end it prints a summary on standard output: a table with one row per
  bot, and the totals (wins, losses, other results, moves); ``--json`` prints
  one JSON object instead.
* Exit status: 0 when every bot played its game to a result, 130 when
  interrupted, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Final, TextIO

import trio

from clients import DEFAULT_PORT, AsyncClient, ClientError, CommandError
from commandline import lifeline
from protocol.commands import Create, parse_command
from protocol.errors import RemoteProtocolError

from . import KINDS
from .result import BotResult, Progress, parse_line

__all__ = ["BotRun", "launch", "launch_in_a_new_game", "main", "parse_kinds", "summarise"]

PROGRESS_INTERVAL: Final = 1.0
DEFAULT_GRACE: Final = 5.0


@dataclass(slots=True)
class BotRun:
    """One bot process: how it is started and what it reported."""

    kind: str
    name: str
    command: list[str]
    moves: int = 0
    gold: int = 0
    result: BotResult | None = None
    started: float = field(default_factory=time.monotonic)
    reported: bool = False
    """Whether the bot has printed a progress line: it is connected and playing."""

    @property
    def outcome(self) -> str:
        if self.result:
            return self.result.outcome
        return "playing" if self.reported else "starting"


def parse_kinds(specs: Sequence[str]) -> list[tuple[str, int]]:
    """``["explorer:3", "random"]`` to ``[("explorer", 3), ("random", 1)]``; ValueError if bad."""
    plan = []
    for spec in specs:
        kind, _, count = spec.partition(":")
        if kind not in KINDS:
            raise ValueError(f"unknown bot {kind!r}; choose from {', '.join(sorted(KINDS))}")
        try:
            number = int(count) if count else 1
        except ValueError:
            raise ValueError(f"{spec!r}: the count after ':' must be a number") from None
        if number < 1:
            raise ValueError(f"{spec!r}: the count must be at least 1")
        plan.append((kind, number))
    return plan


def plan_runs(options: argparse.Namespace) -> list[BotRun]:
    runs = []
    index = 0
    for kind, count in parse_kinds(options.bots):
        for _ in range(count):
            index += 1
            name = f"{kind}-{index}"
            command = [
                sys.executable,
                "-m",
                KINDS[kind],
                "--host",
                options.host,
                "--port",
                str(options.port),
                "--name",
                name,
                "--timeout",
                str(options.timeout),
                "--progress",
            ]
            if options.game is not None:
                command += ["--game", options.game]
            if options.seed is not None:
                command += ["--seed", str(options.seed + index)]
            if options.max_moves is not None:
                command += ["--max-moves", str(options.max_moves)]
            runs.append(BotRun(kind, name, command))
    return runs


class Launcher:
    """Runs the bots of one launch; owns their processes from start to exit."""

    def __init__(self, runs: list[BotRun], *, grace: float, display: TextIO) -> None:
        self.runs = runs
        self.grace = grace
        self.display = display
        self.started = time.monotonic()
        self.stopping = trio.Event()
        self.interrupted = False
        self._grace_scopes: set[trio.CancelScope] = set()
        self._live = display.isatty()

    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._watch_signals)
            nursery.start_soon(self._show_progress)
            async with trio.open_nursery() as bots:
                for run in self.runs:
                    bots.start_soon(self._run_bot, run)
            nursery.cancel_scope.cancel()
        self._say("")

    async def _run_bot(self, run: BotRun) -> None:
        run.started = time.monotonic()
        process = await trio.lowlevel.open_process(
            run.command,
            stdout=subprocess.PIPE,
            start_new_session=True,
            **lifeline.child_options(),  # the bot ends should the launcher be killed
        )
        output = process.stdout
        assert output is not None  # opened with stdout=PIPE
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._stop_when_asked, process)
                await self._read_output(run, output)
                await process.wait()
                nursery.cancel_scope.cancel()
        finally:
            # Whatever went wrong in here, the child does not outlive us.
            with trio.CancelScope(shield=True):
                if process.returncode is None:
                    process.kill()
                await process.wait()
                await output.aclose()
        if run.result is None:
            run.result = BotResult(
                bot=run.kind,
                name=run.name,
                outcome="interrupted" if self.interrupted else "error",
                gold=run.gold,
                moves=run.moves,
                seconds=round(time.monotonic() - run.started, 3),
                detail=f"exited with status {process.returncode} without a result",
                pid=process.pid,
            )
        self._say(f"{run.name}: {_describe(run.result)}")

    async def _read_output(self, run: BotRun, stdout: trio.abc.ReceiveStream) -> None:
        buffer = b""
        async for chunk in stdout:
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                self._take(run, line.decode(errors="replace"))
        if buffer:
            self._take(run, buffer.decode(errors="replace"))

    def _take(self, run: BotRun, line: str) -> None:
        report = parse_line(line)
        if isinstance(report, Progress):
            run.moves, run.gold, run.reported = report.moves, report.gold, True
        elif isinstance(report, BotResult):
            run.result = report
            run.moves, run.gold = report.moves, report.gold

    async def _stop_when_asked(self, process: trio.Process) -> None:
        await self.stopping.wait()
        if process.returncode is not None:
            return
        process.send_signal(signal.SIGINT)
        with trio.move_on_after(self.grace) as scope:
            self._grace_scopes.add(scope)
            await process.wait()
        self._grace_scopes.discard(scope)
        if process.returncode is None:
            process.kill()

    async def _watch_signals(self) -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                if not self.stopping.is_set():
                    self.interrupted = True
                    playing = sum(run.result is None for run in self.runs)
                    self._say(f"stopping {playing} bots (again to kill them at once)")
                    self.stopping.set()
                else:
                    self._say("killing the bots still running")
                    for scope in list(self._grace_scopes):
                        scope.cancel()

    async def _show_progress(self) -> None:
        while True:
            await trio.sleep(PROGRESS_INTERVAL)
            self._status(self._progress_line())

    def _progress_line(self) -> str:
        outcomes = Counter(run.outcome for run in self.runs)
        playing = outcomes.pop("playing", 0)
        # Bots still starting (not yet connected and playing) are counted apart.
        results = " ".join(f"{outcome} {count}" for outcome, count in sorted(outcomes.items()))
        moves = sum(run.moves for run in self.runs)
        elapsed = time.monotonic() - self.started
        return f"[{elapsed:6.1f}s] playing {playing}/{len(self.runs)}  {results}  moves {moves}"

    def _status(self, text: str) -> None:
        if self._live:
            self.display.write("\r\033[K" + text)
        else:
            self.display.write(text + "\n")
        self.display.flush()

    def _say(self, text: str) -> None:
        """A line that stays (a bot's end, a warning), above the live progress line."""
        if self._live:
            self.display.write("\r\033[K")
        if text:
            self.display.write(text + "\n")
        self.display.flush()


def _describe(result: BotResult) -> str:
    return f"{result.outcome} ({result.gold} gold, {result.moves} moves) {result.detail}".strip()


async def launch(
    runs: list[BotRun], *, grace: float = DEFAULT_GRACE, display: TextIO = sys.stderr
) -> bool:
    """Run every bot to its end; True unless the launch was interrupted."""
    launcher = Launcher(runs, grace=grace, display=display)
    await launcher.run()
    return not launcher.interrupted


class CannotCreate(Exception):
    """The server refused the ``CREATE`` of ``--create`` (or could not be reached)."""


async def launch_in_a_new_game(
    runs: list[BotRun],
    creation: Create,
    *,
    host: str,
    port: int,
    timeout: float,
    grace: float = DEFAULT_GRACE,
    display: TextIO = sys.stderr,
) -> bool:
    """Create the game ``creation`` asks for, watch it while every bot plays to its end,
    then leave it; True unless the launch was interrupted. Raises :class:`CannotCreate`
    before any bot starts if the game cannot be made."""
    playing = False
    try:
        async with AsyncClient.connect(
            host, port, timeout=timeout, on_push=lambda _view: None
        ) as client:
            try:
                await client.create(
                    creation.game,
                    creation.world,
                    map=creation.map,
                    seed=creation.seed,
                    players=creation.players,
                    turn=creation.turn,
                )
                await client.watch(creation.game)
            except CommandError as error:
                raise CannotCreate(error.message) from None
            except (ClientError, OSError) as error:
                raise CannotCreate(str(error) or type(error).__name__) from None
            print(f"dod-bots: created game {creation.game}: {creation.to_line()}", file=display)
            playing = True
            return await launch(runs, grace=grace, display=display)
    except (ClientError, OSError) as error:
        if playing:
            raise
        raise CannotCreate(str(error) or type(error).__name__) from None  # no server there


def summarise(runs: Sequence[BotRun]) -> dict[str, object]:
    """The totals of a launch: bots, wins, losses, other results, moves."""
    results = [run.result for run in runs if run.result is not None]
    outcomes = Counter(result.outcome for result in results)
    return {
        "bots": len(runs),
        "wins": outcomes["win"],
        "losses": outcomes["lose"],
        "other": len(runs) - outcomes["win"] - outcomes["lose"],
        "moves": sum(result.moves for result in results),
        "outcomes": dict(sorted(outcomes.items())),
    }


def print_table(runs: Sequence[BotRun], out: TextIO) -> None:
    header = ("bot", "kind", "outcome", "gold", "moves", "seconds", "detail")
    rows = [header] + [
        (
            run.name,
            run.kind,
            run.result.outcome,
            str(run.result.gold),
            str(run.result.moves),
            f"{run.result.seconds:.2f}",
            run.result.detail,
        )
        for run in runs
        if run.result is not None
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    numeric = {3, 4, 5}
    for row in rows:
        cells = [
            cell.rjust(width) if i in numeric else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=False))
        ]
        out.write("  ".join([*cells, row[-1]]).rstrip() + "\n")
    totals = summarise(runs)
    out.write(
        f"{totals['bots']} bots: {totals['wins']} won, {totals['losses']} lost, "
        f"{totals['other']} other; {totals['moves']} moves in all\n"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dod-bots",
        description="Start bot processes against a Dungeon of Doom server, show their "
        "progress, and sum up their results. Ctrl-C stops them all.",
    )
    parser.add_argument(
        "bots",
        nargs="+",
        metavar="KIND[:COUNT]",
        help=f"bots to start, for example explorer:3 (kinds: {', '.join(sorted(KINDS))})",
    )
    parser.add_argument("--host", default="127.0.0.1", help="server address (default: %(default)s)")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help="server port (default: %(default)s)"
    )
    parser.add_argument("--game", default=None, help="the game on the server the bots JOIN")
    parser.add_argument(
        "--create",
        metavar="'WORLD [OPTION=VALUE ...]'",
        default=None,
        help="create the --game first, as CREATE GAME WORLD [map=M] [seed=N] [players=N] "
        "[turn=S] does (for example --create 'crawler map=easy seed=7')",
    )
    parser.add_argument("--seed", type=int, default=None, help="bot n plays with seed SEED + n")
    parser.add_argument(
        "--max-moves", type=int, default=None, help="each bot stops after this many moves"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        help="seconds each bot waits for an answer (default: %(default)s)",
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=DEFAULT_GRACE,
        help="seconds a stopped bot gets to quit before it is killed (default: %(default)s)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    return parser


def _creation(parser: argparse.ArgumentParser, options: argparse.Namespace) -> Create:
    """The ``CREATE`` that ``--create`` and ``--game`` ask for; a parser error if bad."""
    if options.game is None:
        parser.error("--create needs --game: the name of the game to create")
    try:
        command = parse_command(f"CREATE {options.game} {options.create}")
    except RemoteProtocolError as error:
        parser.error(f"--create: {error}")
    if not isinstance(command, Create) or command.start_full:
        parser.error("--create: WORLD [map=M] [seed=N] [players=N] [turn=S]")
    return command


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    options = parser.parse_args(argv)
    try:
        runs = plan_runs(options)
    except ValueError as error:
        parser.error(str(error))
    if not math.isfinite(options.grace) or options.grace < 0:
        parser.error("--grace must be a number of seconds, 0 or more")
    if options.create is None:
        finished = trio.run(partial(launch, runs, grace=options.grace))
    else:
        creation = _creation(parser, options)
        try:
            finished = trio.run(
                partial(
                    launch_in_a_new_game,
                    runs,
                    creation,
                    host=options.host,
                    port=options.port,
                    timeout=options.timeout,
                    grace=options.grace,
                )
            )
        except CannotCreate as error:
            print(f"dod-bots: cannot create game {creation.game}: {error}", file=sys.stderr)
            return 1
    if options.json:
        summary = summarise(runs)
        summary["results"] = [asdict(run.result) for run in runs if run.result is not None]
        print(json.dumps(summary))
    else:
        print_table(runs, sys.stdout)
    if not finished:
        return 130
    return 0 if all(run.result is not None and run.result.played for run in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
