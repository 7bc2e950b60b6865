"""Checks that the server is liberal in what it accepts (docs/protocol.md, Lines).

docs/protocol.md (Lines) asks for verbs and directions in any letter case, surrounding spaces,
``LF``, ``CRLF``, ``CR NUL`` and a bare ``CR`` as line ends, and telnet
negotiation consumed and refused. Servers in the wild often fall short; each
such shortfall is a named tolerance, so ``--level tolerant`` reports it as a
warning instead of a failure.
"""

from __future__ import annotations

from typing import Final

from protocol.commands import Look
from protocol.direction import Direction
from protocol.replies import Fail, GoldCoins, LookReply, Success

from ..explorer import DIRECTIONS
from ..registry import Checklist, Context
from ..results import CheckFailed, CheckSkipped
from ..session import BadReply, Session, describe
from ..view import PLAYERS, View
from .common import tolerating

checks = Checklist()

IAC: Final = 255
DO: Final = 253
WILL: Final = 251
WONT: Final = 252
ECHO: Final = 1
# How long a partial line is left unanswered: long enough for a server that acts on
# partial input to show it, short enough to keep the check quick.
PARTIAL_WINDOW: Final = 0.2


async def _hello(ctx: Context) -> Session:
    session = await ctx.connect()
    await session.greet()
    return session


@checks.add(
    "input.crlf", "§4 Commands; docs/protocol.md (Lines)", "commands ending in CRLF are answered"
)
async def input_crlf(ctx: Context) -> None:
    session = await ctx.connect()
    await session.greet(ending=b"\r\n")
    await session.send(b"LOOK\r\n")
    await _expect_next(session, LookReply, "the reply to LOOK<CR><LF>")
    await session.expect(Look(), LookReply, "the reply to LOOK after two CRLF lines")


@checks.add("input.cr", "docs/protocol.md (Lines)", "CR NUL and a bare CR end a command line")
async def input_cr(ctx: Context) -> None:
    session = await _hello(ctx)
    async with tolerating(ctx, "cr-input"):
        await session.send(b"LOOK\r\x00")
        await _expect_next(session, LookReply, "the reply to LOOK<CR><NUL>")
        await session.greet(ending=b"\r")
        await session.expect(Look(), LookReply, "the reply to LOOK after a bare CR")


@checks.add(
    "input.split",
    "§4 Commands; docs/protocol.md (Lines)",
    "a command split across writes is answered once, only when its line ends",
)
async def input_split(ctx: Context) -> None:
    session = await ctx.connect()
    for part in (b"HE", b"LL"):
        await session.send(part)
        early = await session.nothing_within(PARTIAL_WINDOW)
        if early:
            raise CheckFailed(f"the server answered a partial line ending {part!r}: {early[:80]!r}")
    # The CRLF itself is split too, as a slow telnet client may split it.
    await session.send(b"O\r")
    await session.send(b"\n")
    answer = await session.read_line("the reply to HELLO written in four pieces")
    if not answer.upper().startswith("GOLD"):
        raise BadReply(f"HELLO written in four pieces was answered {answer!r}")
    await session.expect(Look(), LookReply, "the reply to the LOOK after it")


@checks.add(
    "input.case", "docs/protocol.md (Lines)", "verbs and directions are understood in any case"
)
async def input_case(ctx: Context) -> None:
    session = await ctx.connect()
    async with tolerating(ctx, "case-sensitive-input"):
        await session.greet("hello")
        view = View((await session.expect("Look", LookReply)).rows)
        direction = _safe_direction(view)
        moved = await _move(session, f"move {direction.name.lower()}")
        if moved:
            await _move(session, f"mOvE {_reverse(direction).name.lower()}")


@checks.add("input.spaces", "docs/protocol.md (Lines)", "spaces around a command are ignored")
async def input_spaces(ctx: Context) -> None:
    session = await ctx.connect()
    async with tolerating(ctx, "strict-spacing-input"):
        await session.greet("  HELLO")
        view = View((await session.expect("LOOK   ", LookReply)).rows)
        await _move(session, f" MOVE {_safe_direction(view).name} ")


def _safe_direction(view: View) -> Direction:
    """A direction to move in without winning (an exit) or bumping a player."""
    for direction in DIRECTIONS:
        if view.at(direction.value) not in PLAYERS | {"E"}:
            return direction
    raise CheckSkipped(f"no direction is safe to move in from view {view}")


def _reverse(direction: Direction) -> Direction:
    return Direction((-direction.row_step, -direction.column_step))


async def _move(session: Session, line: str) -> bool:
    """Send a ``MOVE`` line; True on SUCCESS, False on FAIL, else the check fails."""
    reply = await session.ask(line)
    if not isinstance(reply, Success | Fail):
        raise BadReply(
            f"the reply to {line!r} is {describe(session.last_lines)}, not SUCCESS or FAIL"
        )
    return isinstance(reply, Success)


@checks.add(
    "input.blank-line",
    "docs/protocol.md (Lines)",
    "blank lines are ignored: no answer, no crash",
)
async def input_blank_line(ctx: Context) -> None:
    session = await _hello(ctx)
    await session.send(b"\nLOOK\n\n")
    await _after_blank_line(ctx, session, LookReply, "the reply to LOOK between blank lines")
    await session.send(b"PICKUP\n")
    await _after_blank_line(
        ctx, session, (Fail, GoldCoins, Success), "the reply to PICKUP after a blank line"
    )


async def _after_blank_line(
    ctx: Context, session: Session, kind: type | tuple[type, ...], what: str
) -> None:
    reply = await session.read_reply(what)
    if not isinstance(reply, kind):
        ctx.drift("blank-line-answered", f"{what} came after {describe(session.last_lines)}")
        await _expect_next(session, kind, what)


@checks.add(
    "input.telnet",
    "docs/protocol.md (Lines)",
    "telnet option requests are consumed and refused, never taken as commands",
)
async def input_telnet(ctx: Context) -> None:
    session = await ctx.connect()
    await session.send(bytes((IAC, DO, ECHO)) + b"HELLO\n")
    telnet = bytearray()
    first = await session.read_raw_line("the reply to IAC DO ECHO, HELLO")
    if not _strip_telnet(first, telnet).upper().startswith(b"GOLD"):
        raise CheckFailed(f"HELLO after a telnet option request was answered {first!r}")
    await session.send(b"LOOK\n")
    look = await session.read_raw_line("the reply to LOOK after the telnet request")
    if _strip_telnet(look, telnet) != b"LOOKREPLY":
        raise CheckFailed(f"LOOK after a telnet option request was answered {look!r}")
    for row in range(5):
        await session.read_raw_line(f"row {row + 1} of LOOKREPLY")
    if bytes((IAC, WILL, ECHO)) in telnet:
        raise CheckFailed("the server agreed to ECHO (IAC WILL ECHO) instead of refusing")
    if bytes((IAC, WONT, ECHO)) not in telnet:
        ctx.drift("silent-telnet", "IAC DO ECHO was not refused with IAC WONT ECHO")


def _strip_telnet(line: bytes, telnet: bytearray) -> bytes:
    """``line`` without its three-byte telnet commands, which are added to ``telnet``."""
    out = bytearray()
    index = 0
    while index < len(line):
        if line[index] == IAC and index + 2 < len(line):
            telnet += line[index : index + 3]
            index += 3
        else:
            out.append(line[index])
            index += 1
    return bytes(out).rstrip(b"\r")


async def _expect_next(session: Session, kind: type | tuple[type, ...], what: str) -> None:
    reply = await session.read_reply(what)
    if not isinstance(reply, kind):
        raise BadReply(f"{what} is {describe(session.last_lines)}")
