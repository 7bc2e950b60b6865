"""Playing one match: create its game on a server, start its bots one at a time in the
schedule's order, watch until the game is over or its time is up, stop the bots."""

from __future__ import annotations

import argparse
import contextlib
import time
from dataclasses import dataclass, field

import trio

from .entrants import Entrant
from .relay import relay
from .sandbox import CommandFor, Sandbox, StartedBot
from .schedule import Match
from .servers import ServerProcess, stop_process

__all__ = ["Outcome", "play_match"]


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
) -> Outcome:
    """Create the game, start its bots one at a time, wait for its end (or the limit).

    Each bot plays through its own relay (:mod:`arena.relay`) under its entrant's name,
    started the sandbox's way; when the match ends every bot is stopped (and, shut in
    namespaces, everything it started with it)."""
    game = match.game_name(tournament)
    outcome = Outcome(match, game)
    started = time.monotonic()
    processes: list[tuple[Entrant, trio.Process]] = []
    try:
        control = await trio.open_tcp_stream("127.0.0.1", server.port)
    except OSError as error:
        outcome.error = f"cannot reach its server: {error}"
        return outcome
    lines = Lines(control)
    cut_short = False
    async with trio.open_nursery() as relays:
        try:
            with trio.move_on_after(options.game_time) as limit:
                await lines.send("EXTEND events")
                await lines.expect("EXTENDED")
                await lines.send(create_command(match, game, options))
                answer = await lines.expect("GAME ", "ERROR")
                if answer.startswith("ERROR"):
                    outcome.error = answer
                    return outcome
                await lines.send(f"WATCH {game}")
                await lines.expect("GAME ")
                for position, entrant in enumerate(match.entrants):
                    try:
                        seed = match.seed * 1000 + entrant.index
                        bot = await sandbox.start(_command_for(entrant, game, seed, options))
                    except OSError as error:
                        outcome.error = f"{entrant.name} cannot start: {error}"
                        break
                    processes.append((entrant, bot.process))
                    relays.start_soon(_relay_bot, bot, server.port, entrant.name, game)
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
        except trio.Cancelled:
            cut_short = True
            raise
        finally:
            with trio.CancelScope(shield=True):
                for entrant, process in processes:
                    await stop_process(process, grace=0 if outcome.timed_out or cut_short else 2.0)
                    outcome.bot_status[entrant.name] = process.returncode
                with (
                    trio.move_on_after(2),
                    contextlib.suppress(
                        OSError, trio.BrokenResourceError, trio.ClosedResourceError
                    ),
                ):
                    await lines.send("QUIT")
                await control.aclose()
            relays.cancel_scope.cancel()
    outcome.seconds = time.monotonic() - started
    return outcome


def _command_for(entrant: Entrant, game: str, seed: int, options: argparse.Namespace) -> CommandFor:
    def command(port: int) -> list[str]:
        return entrant.command(host="127.0.0.1", port=port, game=game, seed=seed, options=options)

    return command


async def _relay_bot(bot: StartedBot, port: int, name: str, game: str) -> None:
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
    await relay(stream, server, name, game)
