"""Checks that the server is liberal in what it accepts (docs/protocol.md, Lines).

docs/protocol.md (Lines) asks for verbs and directions in any letter case,
surrounding spaces, ``LF``, ``CRLF``, ``CR NUL`` and a bare ``CR`` as line ends,
and telnet negotiation consumed and refused. Servers in the wild often fall
short; each such shortfall is a named tolerance, so ``--level tolerant`` reports
it as a warning instead of a failure.

A tolerance covers exactly its drift, proven from evidence: each check sends
its commands in the liberal form on one connection and in the plain form on
another (the *control*), and compares the answers (digits aside, as targets and
player numbers may differ). Only a difference is the drift; a control that fails
too fails the check with its own reason, since the fault is not the one the
tolerance names.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from ..registry import Checklist, Context
from ..results import CheckFailed
from ..session import QUIET, NoReply, ServerClosed, Session, describe

checks = Checklist()

IAC: Final = 255
DO: Final = 253
WILL: Final = 251
WONT: Final = 252
ECHO: Final = 1
# How long a partial line is left unanswered: long enough for a server that acts on
# partial input to show it, short enough to keep the check quick.
PARTIAL_WINDOW: Final = 0.2
# Offsets in a 5x5 view of the squares next to the centre, with the direction to them.
_NEIGHBOURS: Final = (("N", 1, 2), ("E", 2, 3), ("S", 3, 2), ("W", 2, 1))


def _same(answer: list[str]) -> str:
    """An answer's first line with its numbers blurred (targets, player numbers)."""
    return re.sub(r"\d+", "n", answer[0]) if answer else ""


def _view(answer: list[str]) -> list[str]:
    """The 5 rows of a LOOK answer, with or without its header; [] when there are none."""
    rows = [line for line in answer if len(line) == 5 and not line.startswith(("FAIL", "GOLD"))]
    return rows[:5] if len(rows) >= 5 else []


def _floor(view: list[str]) -> str | None:
    """A direction in which the square next to the centre is plain floor (a move that
    succeeds only if it is understood, and wins nothing)."""
    return next((d for d, r, c in _NEIGHBOURS if view and view[r][c] == "."), None)


async def _opened(ctx: Context, hello: bytes) -> tuple[Session, list[str]]:
    """A connection that said ``hello``; the answer (named again if a name was needed)."""
    session = await ctx.connect()
    answer = await session.answer(hello, f"the reply to {hello!r}")
    if answer[0].startswith("FAIL") or answer[0] == "null":
        await session.answer(b"HELLO conformance\n", "the reply to 'HELLO conformance'")
    return session, answer


Conversation = tuple[bytes, bytes, Callable[[str], str]]
"""A ``HELLO`` line, a ``LOOK`` line, and the ``MOVE`` line for a direction."""


def _plain_move(direction: str) -> str:
    return f"MOVE {direction}\n"


async def _conversation(
    ctx: Context, hello: bytes, look: bytes, move: Callable[[str], str]
) -> list[list[str]]:
    """Say ``hello``, ``look``, then ``move`` onto floor next to the player.

    The answers, one list of lines per command; a command not answered at all ends
    the conversation with an empty answer.
    """
    session, greeted = await _opened(ctx, hello)
    answers = [greeted]
    try:
        looked = await session.answer(look, f"the reply to {look!r}")
        answers.append(looked)
        direction = _floor(_view(looked))
        if direction is not None:
            line = move(direction).encode()
            answers.append(await session.answer(line, f"the reply to {line!r}"))
    except (NoReply, ServerClosed):
        answers.append([])
    # Gone before the next conversation starts: a server that takes turns gives the
    # turn to one connection at a time.
    await session.aclose()
    return answers


async def _compare(
    ctx: Context, tolerance: str, variant: Conversation, plain: Conversation
) -> None:
    """The variant's answers against the control's; a difference is the drift."""
    try:
        seen = await _conversation(ctx, *variant)
    except (NoReply, ServerClosed) as error:
        seen = [[f"nothing ({error})"]]
    control = await _conversation(ctx, *plain)  # a failure here is the check's own
    hello, look, move = variant
    lines: tuple[bytes | str, ...] = (hello, look, move("N"))
    for shown, got, expected in zip(lines, seen, control, strict=False):
        if _same(got) != _same(expected) or (bool(_view(expected)) and not _view(got)):
            ctx.drift(
                tolerance,
                f"{shown!r} was answered {describe(got[:2])}, where the plain command was "
                f"answered {describe(expected[:2])}",
            )
            return


@checks.add(
    "input.crlf", "§4 Commands; docs/protocol.md (Lines)", "commands ending in CRLF are answered"
)
async def input_crlf(ctx: Context) -> None:
    seen = await _conversation(ctx, b"HELLO\r\n", b"LOOK\r\n", lambda d: f"MOVE {d}\r\n")
    control = await _conversation(ctx, b"HELLO\n", b"LOOK\n", _plain_move)
    for got, expected in zip(seen, control, strict=False):
        if _same(got) != _same(expected):
            raise CheckFailed(
                f"a command ending in CRLF was answered {describe(got[:2])}, the same "
                f"ending in LF {describe(expected[:2])}"
            )


@checks.add("input.cr", "docs/protocol.md (Lines)", "CR NUL and a bare CR end a command line")
async def input_cr(ctx: Context) -> None:
    await _compare(
        ctx,
        "cr-input",
        (b"HELLO\r", b"LOOK\r\x00", lambda d: f"MOVE {d}\r"),
        (b"HELLO\n", b"LOOK\n", _plain_move),
    )


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
    first = await session.read_line("the reply to HELLO written in four pieces")
    answer = [first, *await session.lines_within(QUIET)]
    control = (await (await ctx.connect()).answer(b"HELLO\n", "the reply to HELLO"))[:1]
    if _same(answer) != _same(control):
        raise CheckFailed(
            f"HELLO written in four pieces was answered {describe(answer[:2])}, "
            f"in one piece {describe(control)}"
        )


@checks.add(
    "input.case",
    "docs/protocol.md (Lines)",
    "verbs and directions are understood in any case",
)
async def input_case(ctx: Context) -> None:
    await _compare(
        ctx,
        "case-sensitive-input",
        (b"hello\n", b"Look\n", lambda d: f"mOvE {d.lower()}\n"),
        (b"HELLO\n", b"LOOK\n", _plain_move),
    )


@checks.add("input.spaces", "docs/protocol.md (Lines)", "spaces around a command are ignored")
async def input_spaces(ctx: Context) -> None:
    await _compare(
        ctx,
        "strict-spacing-input",
        (b"  HELLO\n", b"LOOK   \n", lambda d: f" MOVE {d} \n"),
        (b"HELLO\n", b"LOOK\n", _plain_move),
    )


@checks.add(
    "input.blank-line",
    "docs/protocol.md (Lines)",
    "blank lines are ignored: no answer, no crash",
)
async def input_blank_line(ctx: Context) -> None:
    session, _ = await _opened(ctx, b"HELLO\n")
    await session.send(b"\n")
    if await session.nothing_within(PARTIAL_WINDOW):
        answered = await session.lines_within(QUIET)
        ctx.drift("blank-line-answered", f"a blank line was answered {describe(answered[:2])}")
    looked = await session.answer(b"LOOK\n", "the reply to LOOK after a blank line")
    if not _view(looked):
        raise CheckFailed(f"LOOK after a blank line was answered {describe(looked[:2])}")


@checks.add(
    "input.telnet",
    "docs/protocol.md (Lines)",
    "telnet option requests are consumed and refused, never taken as commands",
)
async def input_telnet(ctx: Context) -> None:
    session = await ctx.connect()
    await session.send(bytes((IAC, DO, ECHO)) + b"HELLO\n")
    telnet = bytearray()
    first = _strip_telnet(await session.read_raw_line("the reply to IAC DO ECHO, HELLO"), telnet)
    answer = [first.decode("utf-8", "replace"), *await session.lines_within(QUIET)]
    control = (await (await ctx.connect()).answer(b"HELLO\n", "the reply to HELLO"))[:1]
    if _same(answer) != _same(control):
        raise CheckFailed(
            f"HELLO after a telnet option request was answered {describe(answer[:2])}, "
            f"without it {describe(control)}"
        )
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
