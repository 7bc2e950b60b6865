"""Playing one match: create its game on a server, start its bots one at a time in the
schedule's order, each joining before the next starts, watch until the game is over or
its time is up, stop the bots; keep each bot's output (:mod:`arena.botlog`).

A bot that does not join (it exited first, or took longer than ``--join-time``) *did
not start*: the match is called off at once, its other bots stopped, and the outcome
names the bot with why, its exit status and the last lines it wrote. A match called off
says nothing of anyone in it: its record, if the server made one, is left out of every
table."""

from __future__ import annotations

import argparse
import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import trio

from records.contract import Contract
from records.journal import to_json
from records.model import GameRecord

from .botlog import BotLog, keep_output
from .entrants import Entrant
from .relay import Seat, relay
from .sandbox import CommandFor, Sandbox, StartedBot
from .schedule import Match
from .servers import ServerProcess, stop_process
from .spec import LOG_BYTES

__all__ = ["NotStarted", "Outcome", "exit_text", "play_match"]

DRAIN_TIME: Final = 2.0
"""Seconds a stopped bot's last output has to reach its log."""


def exit_text(status: int | None) -> str:
    """A bot's exit status in words (a jailed bot's signal N is status 128 + N)."""
    if status is None:
        return "still running"
    if status < 0:
        return f"killed by signal {-status}"
    hint = {
        126: " (the shell could not run the program)",
        127: " (the shell found no such command)",
    }
    return f"exited with status {status}{hint.get(status, '')}"


@dataclass(frozen=True, slots=True)
class NotStarted:
    """An entrant that never joined its match: why, how it ended, what it said last."""

    name: str
    game: str
    why: str
    status: int | None
    last_lines: tuple[str, ...]
    log: Path | None

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "game": self.game,
            "why": self.why,
            "status": self.status,
            "last_lines": list(self.last_lines),
            "log": None if self.log is None else str(self.log),
        }

    def report(self) -> list[str]:
        """What the arena prints of it, a line each."""
        lines = [f"{self.name} did not start in {self.game}: {self.why}"]
        if self.last_lines:
            lines.append("  its last lines:")
            lines += [f"    {line}" for line in self.last_lines]
        else:
            lines.append("  it wrote nothing")
        if self.log is not None:
            lines.append(f"  all it wrote: {self.log}")
        return lines


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
    not_started: list[NotStarted] = field(default_factory=list)
    """Its entrants that never joined: the match was called off."""
    logs: dict[str, Path] = field(default_factory=dict)
    """Each bot's output, by entrant name."""
    cut_off: dict[str, str] = field(default_factory=dict)
    """Bots the relay cut off, and why (over the time per move)."""

    @property
    def void(self) -> bool:
        """Whether the match says nothing of its entrants: one did not start, or none joined."""
        return bool(self.not_started) or (not self.joined and not self.over)

    def result(self, record: GameRecord | None, worker: str) -> dict[str, Any]:
        """The match's result as the arena's tables keep it (:mod:`records.tournaments`):
        its record (``None`` for a void match: it says nothing of its entrants), what
        went wrong, and its replay's and bots' logs' file names, where the logs lie
        beside the replay."""
        replay = None if record is None or record.replay is None else Path(record.replay)
        return {
            "record": None if record is None or self.void else to_json(record),
            "over": self.over,
            "joined": self.joined,
            "timed_out": self.timed_out,
            "error": self.error,
            "worker": worker,
            "not_started": [failure.as_json() for failure in self.not_started],
            "cut_off": dict(self.cut_off),
            "replay": None if replay is None else replay.name,
            "logs": {
                name: path.name
                for name, path in self.logs.items()
                if replay is not None and path.parent == replay.parent
            },
        }


class Lines:
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


def create_command(match: Match, game: str, options: argparse.Namespace) -> str:
    create = f"CREATE {game} {match.world}"
    if match.map is not None:
        create += f" map={match.map}"
    create += f" seed={match.seed} players={len(match.entrants)}"
    return create + f" turn={options.turn_timeout:g} start=full"


async def play_match(
    options: argparse.Namespace,
    tournament: str,
    match: Match,
    server: ServerProcess,
    sandbox: Sandbox,
    contract: Contract,
    logs: Path,
) -> Outcome:
    """Create the game, start its bots one at a time, wait for its end (or the limit).

    Each bot plays through its own relay (:mod:`arena.relay`) under its entrant's name,
    held to ``contract``, started the sandbox's way, its output kept in
    ``logs/<game>/<name>.log``; when the match ends every bot is stopped (and, shut in
    namespaces, everything it started with it)."""
    game = match.game_name(tournament)
    outcome = Outcome(match, game)
    started = time.monotonic()
    bots: list[_Bot] = []
    try:
        control = await trio.open_tcp_stream("127.0.0.1", server.port)
    except OSError as error:
        outcome.error = f"cannot reach its server: {error}"
        return outcome
    lines = Lines(control)
    cut_short = False
    failed: tuple[_Bot | None, Entrant, str] | None = None
    async with trio.open_nursery() as helpers:
        try:
            with trio.move_on_after(options.game_time) as limit:
                await lines.send("EXTEND events")
                await lines.expect("EXTENDED")
                await lines.send(create_command(match, game, options))
                answer = await lines.expect("GAME ", "ERROR")
                if answer.startswith("ERROR"):
                    outcome.error = answer
                    return outcome
                # A world that answers every action at once has no turn limit of its
                # own: the relay holds its bots to the contract's time per move.
                move_time = contract.move_time if " turn=none" in answer else None
                await lines.send(f"WATCH {game}")
                await lines.expect("GAME ")
                for entrant in match.entrants:
                    seat = Seat(entrant.name, game, contract.forbidden(), move_time)
                    path = logs / game / f"{entrant.name}.log"
                    try:
                        bot = await _start(sandbox, entrant, game, match, options, seat, path)
                    except OSError as error:
                        failed = (None, entrant, f"cannot be started: {error}")
                        break
                    bots.append(bot)
                    outcome.logs[entrant.name] = path
                    helpers.start_soon(keep_output, bot.output, bot.log, bot.drained)
                    helpers.start_soon(_relay_bot, bot.started, server.port, seat)
                    why = await _joined(lines, bot, options.join_time)
                    if why is _OVER:
                        outcome.over = True
                        break
                    if why is not None:
                        failed = (bot, entrant, why)
                        break
                    outcome.joined += 1
                else:
                    for bot in bots:  # the game is full: the time per move runs from now
                        bot.seat.arm()
                    while (await lines.expect("JOINED ", "GAMEOVER")).startswith("JOINED"):
                        pass
                    outcome.over = True
            outcome.timed_out = limit.cancelled_caught
        except (OSError, trio.BrokenResourceError, EOFError) as error:
            outcome.error = f"lost its server: {error}"
        except trio.Cancelled:
            cut_short = True
            raise
        finally:
            with trio.CancelScope(shield=True):
                quick = outcome.timed_out or cut_short or failed is not None
                for bot in bots:
                    await stop_process(bot.started.process, grace=0 if quick else 2.0)
                    outcome.bot_status[bot.entrant.name] = bot.started.process.returncode
                with trio.move_on_after(DRAIN_TIME):
                    for bot in bots:
                        await bot.drained.wait()
                with (
                    trio.move_on_after(2),
                    contextlib.suppress(
                        OSError, trio.BrokenResourceError, trio.ClosedResourceError
                    ),
                ):
                    await lines.send("QUIT")
                await control.aclose()
            helpers.cancel_scope.cancel()
    for bot in bots:
        if bot.seat.cut_off is not None:
            outcome.cut_off[bot.entrant.name] = bot.seat.cut_off
    if failed is not None:
        outcome.not_started.append(_not_started(failed, game, outcome))
    outcome.seconds = time.monotonic() - started
    return outcome


@dataclass(slots=True)
class _Bot:
    entrant: Entrant
    started: StartedBot
    seat: Seat
    log: BotLog
    drained: trio.Event = field(default_factory=trio.Event)

    @property
    def output(self) -> trio.abc.ReceiveStream:
        """The bot's output (and error), as :meth:`arena.sandbox.Sandbox.start` piped it."""
        stream = self.started.process.stdout
        assert stream is not None
        return stream


_OVER = "the game ended"


async def _start(
    sandbox: Sandbox,
    entrant: Entrant,
    game: str,
    match: Match,
    options: argparse.Namespace,
    seat: Seat,
    path: Path,
) -> _Bot:
    seed = match.seed * 1000 + entrant.index
    log = BotLog(path, getattr(options, "log_bytes", LOG_BYTES))
    seat.note = log.note
    try:
        started = await sandbox.start(_command_for(entrant, game, seed, options))
    except BaseException:
        log.close()
        raise
    return _Bot(entrant, started, seat, log)


async def _joined(lines: Lines, bot: _Bot, join_time: float) -> str | None:
    """``None`` once the bot has joined, :data:`_OVER` if the game ended meanwhile, else
    why it did not join: it exited first (having sent no ``JOIN``), or the time ran out."""
    why: str | None = f"did not join within {join_time:g} s (--join-time), and was stopped"
    process = bot.started.process
    with trio.move_on_after(join_time):
        async with trio.open_nursery() as racing:

            async def joined() -> None:
                nonlocal why
                line = await lines.expect("JOINED ", "GAMEOVER")
                why = None if line.startswith("JOINED") else _OVER
                racing.cancel_scope.cancel()

            async def exited() -> None:
                nonlocal why
                await process.wait()
                if bot.seat.sent_join.is_set():
                    return  # its JOIN went to the server: its JOINED is on the way
                why = f"{exit_text(process.returncode)} before it joined"
                racing.cancel_scope.cancel()

            racing.start_soon(joined)
            racing.start_soon(exited)
    return why


def _not_started(
    failed: tuple[_Bot | None, Entrant, str], game: str, outcome: Outcome
) -> NotStarted:
    bot, entrant, why = failed
    if bot is None:
        return NotStarted(entrant.name, game, why, None, (), None)
    return NotStarted(
        entrant.name,
        game,
        why,
        outcome.bot_status.get(entrant.name),
        tuple(bot.log.last_lines()),
        outcome.logs.get(entrant.name),
    )


def _command_for(entrant: Entrant, game: str, seed: int, options: argparse.Namespace) -> CommandFor:
    def command(port: int) -> list[str]:
        return entrant.command(host="127.0.0.1", port=port, game=game, seed=seed, options=options)

    return command


async def _relay_bot(bot: StartedBot, port: int, seat: Seat) -> None:
    """The bot's connection to the server, relayed under its name, until either ends."""
    try:
        stream = await bot.connection()
    except OSError:
        return
    try:
        server = await trio.open_tcp_stream("127.0.0.1", port)
    except OSError:
        await stream.aclose()
        return
    await relay(stream, server, seat)
