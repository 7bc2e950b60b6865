"""A bot's one connection to its server, through the arena, under the entrant's name.

The bot never picks its name nor its game: the relay reads the bot's bytes with the
server's own line framing (:class:`protocol.framing.LineFramer`, so that no line can hide
from it in a bare ``CR`` or a telnet sequence) and sends the server whole lines, each
ending in ``LF``, with

* ``HELLO <anything>`` sent as ``HELLO <the entrant's name>``,
* ``JOIN <anything>`` sent as ``JOIN <the match's game>``,
* ``CREATE``, ``WATCH``, ``REGISTER`` and ``LOGIN`` answered ``ERROR`` by the relay and
  not sent (a bot plays the game it was given, as the name it was given), and so is any
  verb the tournament's contract forbids (``MAP`` when bots may only ``LOOK``);

everything else is sent as it came. A game command before any ``JOIN`` (a 2013 bot's
``HELLO``, say) is sent after a ``JOIN <the match's game>`` of the relay's own, whose
``GAME`` answer the bot never sees: it plays its match, never the server's default
game. A refusal reaches the bot in its place among the
server's answers (replies stay in order): the relay sends the server a verb no server
knows, ``DOD-ARENA-REFUSED-<n>``, and puts the refusal in place of the ``ERROR`` that
answers it. Before the bot's first line the relay sends ``EXTEND bot`` (the arena knows
its entrants are bots: they are recorded as such) and keeps the server's answer from the
bot. The server's other bytes reach the bot as they come.

With a time per move (:attr:`Seat.move_time`, for worlds that resolve every action the
moment it arrives; worlds with turns or rounds have the server's own limit), a bot that
sends no line within that time of the server's last bytes to it, once its match is full
(:attr:`Seat.armed`), is cut off.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final

import trio

from dungeon_of_doom.protocol.commands import DECLARED_VERBS, Route
from dungeon_of_doom.protocol.errors import RemoteProtocolError
from dungeon_of_doom.protocol.framing import EndOfInput, LineFramer, NeedData

__all__ = ["Seat", "relay", "rewrite"]

REFUSED: Final = frozenset({"CREATE", "WATCH", "REGISTER", "LOGIN"})
MAX_LINE: Final = 1 << 16
"""Bytes in one of the bot's lines; the server holds it to its own, smaller, limit."""
AS_BOT: Final = b"EXTEND bot\n"
PLACEHOLDER: Final = "DOD-ARENA-REFUSED-"
JOINING: Final = frozenset(v.word for v in DECLARED_VERBS if v.route is Route.GAME) | {"HELLO"}
"""Verbs that, sent first, join a game (the server's default one, were it not for the relay)."""


@dataclass(slots=True)
class Seat:
    """One bot's place in its match: who it is, what the relay holds it to, and what the
    relay saw."""

    name: str
    game: str
    forbidden: Mapping[str, str] = field(default_factory=dict)
    """Verbs the contract forbids, each with the reason the bot is told."""
    move_time: float | None = None
    """Seconds the bot has to send a line once the server has spoken to it (``None``: no limit)."""
    armed: bool = False
    """Whether :attr:`move_time` holds yet (:meth:`arm`)."""
    clock: _Clock | None = None
    """The relay's clock of this bot, while it relays."""
    note: Callable[[str], None] | None = None
    """Told why the relay cut the bot off, if it did (into the bot's log)."""
    sent_join: trio.Event = field(default_factory=trio.Event)
    """Set once the relay has sent the server the bot's ``JOIN``."""

    cut_off: str | None = None
    """Why the relay ended the bot's connection, if it did."""

    def arm(self) -> None:
        """Hold the bot to :attr:`move_time` from now: the arena arms it once every bot of
        the match has joined (before, a command may wait for the game to fill,
        ``start=full``). A bot the server has spoken to since its last line has its
        time from now."""
        self.armed = True
        if self.clock is not None:
            self.clock.armed()


def rewrite(
    line: str, name: str, game: str, forbidden: Mapping[str, str] | None = None
) -> tuple[str | None, str | None]:
    """``(line for the server, line for the bot)``: what the relay does with one line."""
    words = line.split(None, 1)
    verb = words[0].upper() if words else ""
    if verb == "HELLO":
        return f"HELLO {name}", None
    if verb == "JOIN":
        return f"JOIN {game}", None
    if verb in REFUSED:
        return None, f"ERROR {verb} is not for bots in the arena"
    if forbidden and verb in forbidden:
        return None, f"ERROR {verb} {forbidden[verb]}"
    return line, None


async def relay(bot: trio.abc.Stream, server: trio.abc.Stream, seat: Seat) -> None:
    """Relay between ``bot`` and ``server`` until either side ends; close both."""
    clock = seat.clock = _Clock(seat)
    answers = _Answers()
    async with bot, server, trio.open_nursery() as nursery:

        async def downstream() -> None:
            try:
                async for chunk in server:
                    if chunk := answers.pass_on(bytes(chunk)):
                        await bot.send_all(chunk)
                        clock.start()
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
            nursery.cancel_scope.cancel()

        framer = LineFramer(max_line_length=MAX_LINE)
        try:
            await server.send_all(AS_BOT)
            nursery.start_soon(downstream)
            while True:
                with clock.waiting() as waiting:
                    chunk = await bot.receive_some()
                if waiting.cancelled_caught:
                    seat.cut_off = (
                        f"cut off: sent nothing within {seat.move_time:g} s of the server's "
                        "last line (the tournament's time per move)"
                    )
                    if seat.note is not None:
                        seat.note(seat.cut_off)
                    break
                framer.receive_data(bytes(chunk))
                await _forward(framer, bot, server, seat, clock, answers)
                if not chunk:
                    break
        except (trio.BrokenResourceError, trio.ClosedResourceError, RemoteProtocolError):
            pass
        nursery.cancel_scope.cancel()


class _Answers:
    """The server's bytes on their way to the bot: the answer to :data:`AS_BOT` taken
    out, and each answer to a placeholder of a refusal replaced by the refusal."""

    def __init__(self) -> None:
        self.refusals: dict[bytes, bytes] = {}
        """The ``ERROR`` line that will answer each placeholder, and what the bot gets instead."""
        self.numbered = 0
        self.first = True
        """Whether the server's first line (its answer to ``EXTEND bot``) is still to come."""
        self.joined: bytes | None = None
        """The start of the ``GAME`` line answering the relay's own ``JOIN``, kept from the bot."""
        self.partial = b""

    def placeholder(self, refusal: str) -> bytes:
        """The line to send the server in place of a refused one."""
        self.numbered += 1
        verb = f"{PLACEHOLDER}{self.numbered}"
        answer = f'ERROR unknown command "{verb}"'.encode()
        self.refusals[answer] = refusal.encode() + b"\n"
        return verb.encode() + b"\n"

    def pass_on(self, chunk: bytes) -> bytes:
        """What of ``chunk`` goes to the bot now (a partial line may wait for its end)."""
        if not self.first and not self.refusals and not self.partial and self.joined is None:
            return chunk
        lines = (self.partial + chunk).split(b"\n")
        self.partial = lines.pop()
        out = []
        for line in lines:
            if self.first:
                self.first = False
                if line.startswith(b"EXTENDED"):
                    continue
            if self.joined is not None and line.startswith(self.joined):
                self.joined = None
                continue
            key = line.partition(b";")[0]
            refusal = self.refusals.pop(key, None) if line.startswith(b"ERROR") else None
            out.append(refusal if refusal is not None else line + b"\n")
        if self.partial and not self.first and not self.refusals and self.joined is None:
            out.append(self.partial)  # (no placeholder to wait for: no need to hold it)
            self.partial = b""
        return b"".join(out)


class _Clock:
    """The bot's time to answer: it runs from the server's last bytes to the bot's next
    line (never while the bot waits for an answer)."""

    def __init__(self, seat: Seat) -> None:
        self.seat = seat
        self.deadline = math.inf
        self.scope: trio.CancelScope | None = None
        self.running = False
        """Whether the server has spoken since the bot's last line."""

    def start(self) -> None:
        self.running = True
        limit = self.seat.move_time
        if limit is not None and self.seat.armed:
            self._set(trio.current_time() + limit)

    def armed(self) -> None:
        if self.running:
            self.start()

    def stop(self) -> None:
        self.running = False
        self._set(math.inf)

    def _set(self, deadline: float) -> None:
        self.deadline = deadline
        if self.scope is not None:
            self.scope.deadline = deadline

    def waiting(self) -> trio.CancelScope:
        self.scope = trio.CancelScope(deadline=self.deadline)
        return self.scope


async def _forward(
    framer: LineFramer,
    bot: trio.abc.Stream,
    server: trio.abc.Stream,
    seat: Seat,
    clock: _Clock,
    answers: _Answers,
) -> None:
    """Send the server, in one write, what the lines the framer holds become.

    One write for a whole chunk of the bot's lines, not one per line: a bot that
    pipelines (or floods) costs the arena a system call per chunk it sends."""
    if refusals := framer.data_to_send():
        await bot.send_all(refusals)
    upstream_bytes = bytearray()
    joined = seat.sent_join.is_set()
    while True:
        event = framer.next_event()
        if isinstance(event, NeedData | EndOfInput):
            break
        clock.stop()
        upstream, refusal = rewrite(event, seat.name, seat.game, seat.forbidden)
        if upstream is not None and not joined:
            verb = upstream.split(None, 1)[0].upper() if upstream.strip() else ""
            if verb in JOINING:  # (a JOIN of our own first, its answer kept from the bot)
                answers.joined = f"GAME {seat.game} ".encode()
                upstream_bytes += f"JOIN {seat.game}\n".encode()
                joined = True
        if upstream is not None:
            upstream_bytes += upstream.encode() + b"\n"
            joined = joined or upstream.startswith("JOIN ")
        if refusal is not None:
            upstream_bytes += answers.placeholder(refusal)
    if upstream_bytes:
        await server.send_all(upstream_bytes)
    if joined:
        seat.sent_join.set()
