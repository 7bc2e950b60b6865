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

import enum
import re
from collections.abc import Callable
from typing import Final

from protocol.commands import Move
from protocol.direction import Direction

from ..dialects import declared_reader, refusal
from ..explorer import WALKABLE
from ..registry import Checklist, Context
from ..results import CheckFailed, CheckSkipped, NotJudged
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


def _view(answer: list[str], dialect: str = "2013") -> list[str]:
    """The 5 rows of a LOOK answer, with or without its header, or in the rows of a
    dialect of its own (mbk's ``L5`` rows); [] when there are none."""
    reader = declared_reader(dialect) if dialect != "2013" else None
    if reader is not None:
        answer = reader.rows(answer)
    rows = [line for line in answer if len(line) == 5 and not line.startswith(("FAIL", "GOLD"))]
    return rows[:5] if len(rows) >= 5 else []


def _moved(answer: list[str], dialect: str, direction: str) -> bool:
    """Whether ``answer`` says the MOVE succeeded (mbk: ``MS``, as its declaration says)."""
    reader = declared_reader(dialect) if dialect != "2013" else None
    if reader is not None:
        return reader.succeeded(answer, Move(Direction[direction]))
    return "SUCCESS" in answer


def _floor(view: list[str]) -> str | None:
    """A direction in which the square next to the centre can be walked onto (a move that
    succeeds only if it is understood, and wins nothing): plain floor first, else gold or
    an item (ch739's players may arrive beside nothing else)."""
    for walkable in (".", WALKABLE):
        for direction, row, column in _NEIGHBOURS:
            if view and view[row][column] in walkable:
                return direction
    return None


_BACK: Final = {"N": "S", "S": "N", "E": "W", "W": "E"}


class Rule(enum.Enum):
    """What a dialect does with a liberal form of a command (docs/dialects.md, How each
    dialect reads lines)."""

    UNDERSTOOD = "understood"
    """Answered as the plain command is (2013; 2016 for case and spaces)."""
    REFUSED = "refused"
    """Refused with a ``FAIL`` line (2015: capitals only, nothing before the verb;
    ch739: nothing before the verb)."""


def rule_for(dialect: str, variant: bytes, plain: bytes) -> Rule:
    """What ``dialect`` does with the liberal ``variant`` of the ``plain`` line, as its
    shared declaration (:mod:`protocol.dialects`) reads lines: refused where it refuses
    the variant for a reason the plain line does not have (ch739 refuses ``  HELLO`` as
    an invalid command, and the plain ``HELLO`` for want of a name)."""
    mine = refusal(dialect, variant.decode("utf-8", "replace").rstrip("\r\n\x00"))
    theirs = refusal(dialect, plain.decode("utf-8", "replace").rstrip("\r\n\x00"))
    return Rule.REFUSED if mine is not None and mine != theirs else Rule.UNDERSTOOD


def blank_answers(dialect: str) -> tuple[str, ...]:
    """How ``dialect``'s answer to a blank line begins, as its shared declaration says
    (``()``: the line is ignored; 2015: ``FAIL invalid command``; 2016: ``FAIL``)."""
    said = refusal(dialect, "")
    return () if said is None else (said,)


async def _opened(ctx: Context, hello: bytes) -> tuple[Session, list[str]]:
    """A connection that said ``hello``; the answer (named again if a name was needed)."""
    session = await ctx.connect()
    answer = await session.answer(hello, f"the reply to {hello!r}")
    if answer[0].startswith("FAIL") or answer[0] == "null":
        await session.name_myself()
    return session, answer


Conversation = tuple[bytes, bytes, Callable[[str], str]]
"""A ``HELLO`` line, a ``LOOK`` line, and the ``MOVE`` line for a direction."""


def _plain_move(direction: str) -> str:
    return f"MOVE {direction}\n"


PLAIN: Final[Conversation] = (b"HELLO\n", b"LOOK\n", _plain_move)


async def _variant_answer(
    session: Session, variant: bytes, plain: bytes, rule: Rule = Rule.UNDERSTOOD
) -> list[str]:
    """The answer to ``variant``; ``[]`` if none came, once the ``plain`` form sent after
    it shows that the connection still answers. If the plain form is not answered
    either, the server stopped answering this connection, whatever the reason, and the
    check is not judged. A variant the dialect refuses (:attr:`Rule.REFUSED`) may be
    refused in any words, "not your turn" among them (ch739 checks the turn before the
    verb): that refusal is its answer, not a turn to wait for."""
    try:
        return await session.answer(
            variant, f"the reply to {variant!r}", turns=rule is Rule.UNDERSTOOD
        )
    except NoReply:
        pass
    try:
        await session.answer(plain, f"the reply to {plain!r} after {variant!r}")
    except (NoReply, ServerClosed) as error:
        raise NotJudged(
            f"could not judge: {variant!r} went unanswered, and so did {plain!r} after it "
            f"on the same connection ({error})"
        ) from None
    return []


async def _compare(
    ctx: Context, tolerance: str | None, variant: Conversation, *, by_dialect: bool = False
) -> None:
    """The variant's answers against the plain commands', step by step on one connection
    (one player, one view; a server may take one connection per address): ``HELLO``,
    ``LOOK``, then a ``MOVE`` onto floor in plain words and back in the variant's.

    With :attr:`Rule.UNDERSTOOD` a difference is the drift ``tolerance`` (a failure if
    ``None``); with :attr:`Rule.REFUSED` the variant must be refused with ``FAIL``. The
    rule is :attr:`Rule.UNDERSTOOD`, or, ``by_dialect``, what the dialect does with each
    variant (:func:`rule_for`).
    The check is not judged unless the plain ``MOVE`` succeeded: a pass has seen a
    direction understood."""
    hello, look, move = variant

    # Each step is judged as soon as it is answered: a difference ends the check, and an
    # unanswered variant costs a whole timeout, so later steps would only lengthen the run.
    def rule(shown: bytes, plain: bytes) -> Rule:
        return rule_for(ctx.state.dialect, shown, plain) if by_dialect else Rule.UNDERSTOOD

    async def step(shown: bytes, plain: bytes, expected: list[str], *, moved: bool = False) -> bool:
        said = rule(shown, plain)
        answer = await _variant_answer(session, shown, b"LOOK\n" if moved else plain, said)
        return _judge_step(ctx, tolerance, said, shown, answer, expected, moved=moved)

    session = await ctx.connect()
    plain_hello = await session.answer(b"HELLO\n", "the reply to HELLO")
    if await step(hello, b"HELLO\n", plain_hello):
        return
    if plain_hello[0].startswith("FAIL") or plain_hello[0] == "null":
        await session.name_myself()
    plain_look = await session.answer(b"LOOK\n", "the reply to LOOK")
    if await step(look, b"LOOK\n", plain_look):
        return
    direction = _floor(_view(plain_look, ctx.state.dialect))
    if direction is None:
        shown = _view(plain_look, ctx.state.dialect) or plain_look
        raise CheckSkipped(f"no floor next to the player to move onto: {describe(shown)}")
    plain = _plain_move(direction).encode()
    plain_move = await session.answer(plain, f"the reply to MOVE {direction}")
    if not _moved(plain_move, ctx.state.dialect, direction):
        # What the variant LOOK left after its line end (the NUL of CR NUL, where a CR
        # alone ends a line) begins the next line: the same MOVE, sent again, moves.
        again = await session.answer(plain, f"the reply to MOVE {direction}, sent again")
        if look != PLAIN[1] and _moved(again, ctx.state.dialect, direction):
            _left_over(ctx, tolerance, look, plain, plain_move, again)
            return
        raise NotJudged(
            f"could not judge directions: MOVE {direction} onto floor was answered "
            f"{describe(plain_move)}, and again {describe(again)}"
        )
    await step(move(_BACK[direction]).encode(), plain, plain_move, moved=True)


def _left_over(
    ctx: Context,
    tolerance: str | None,
    look: bytes,
    plain: bytes,
    first: list[str],
    again: list[str],
) -> None:
    """The drift of a line end that leaves bytes behind: ``look``'s ending was taken as a
    line's end, and what followed it (``\\x00``) as the start of the next, ``plain``."""
    detail = (
        f"{look!r} left what followed its line end to begin the next line: {plain!r} after "
        f"it was answered {describe(first[:2])}, and sent again {describe(again[:2])}"
    )
    if tolerance is None:
        raise CheckFailed(detail)
    ctx.drift(tolerance, detail)


def _judge_step(
    ctx: Context,
    tolerance: str | None,
    rule: Rule,
    shown: bytes,
    got: list[str],
    expected: list[str],
    *,
    moved: bool = False,
) -> bool:
    """Judge one step of :func:`_compare`: raises on a failure; True if it ended the
    check with a warning (the drift ``tolerance`` allowed), False to go on."""
    if rule is Rule.REFUSED:
        if not got or not got[0].startswith("FAIL"):
            raise CheckFailed(
                f"{shown!r} was answered {describe(got[:2])}; the {ctx.state.dialect} "
                f"dialect refuses it with FAIL (docs/dialects.md)"
            )
        return False
    dialect = ctx.state.dialect
    differs = (
        bool(_view(got, dialect)) != bool(_view(expected, dialect))
        if _view(expected, dialect)
        else ("SUCCESS" in expected) != ("SUCCESS" in got)
        if moved and declared_reader(dialect) is None
        else _same(got) != _same(expected)
    )
    if not differs:
        return False
    detail = (
        f"{shown!r} was answered {describe(got[:2])}, where the plain command was "
        f"answered {describe(expected[:2])}"
    )
    if tolerance is None:
        raise CheckFailed(detail)
    ctx.drift(tolerance, detail)
    return True


@checks.add(
    "input.crlf", "§4 Commands; docs/protocol.md (Lines)", "commands ending in CRLF are answered"
)
async def input_crlf(ctx: Context) -> None:
    await _compare(ctx, None, (b"HELLO\r\n", b"LOOK\r\n", lambda d: f"MOVE {d}\r\n"))


@checks.add("input.cr", "docs/protocol.md (Lines)", "CR NUL and a bare CR end a command line")
async def input_cr(ctx: Context) -> None:
    await _compare(ctx, "cr-input", (b"HELLO\r", b"LOOK\r\x00", lambda d: f"MOVE {d}\r"))


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
    await session.aclose()  # the control on a connection of its own, one at a time
    control = (await (await ctx.connect()).answer(b"HELLO\n", "the reply to HELLO"))[:1]
    if _same(answer) != _same(control):
        raise CheckFailed(
            f"HELLO written in four pieces was answered {describe(answer[:2])}, "
            f"in one piece {describe(control)}"
        )


@checks.add(
    "input.case",
    "docs/protocol.md (Lines)",
    "verbs and directions are understood in any case (2015: refused with FAIL)",
)
async def input_case(ctx: Context) -> None:
    await _compare(
        ctx,
        "case-sensitive-input",
        (b"hello\n", b"Look\n", lambda d: f"mOvE {d.lower()}\n"),
        by_dialect=True,
    )


@checks.add(
    "input.spaces",
    "docs/protocol.md (Lines)",
    "spaces around a command are ignored (2015: refused with FAIL)",
)
async def input_spaces(ctx: Context) -> None:
    await _compare(
        ctx,
        "strict-spacing-input",
        (b"  HELLO\n", b"LOOK   \n", lambda d: f" MOVE {d} \n"),
        by_dialect=True,
    )


@checks.add(
    "input.blank-line",
    "docs/protocol.md (Lines)",
    "blank lines are ignored: no answer, no crash (2015: 'FAIL invalid command'; 2016: 'FAIL')",
)
async def input_blank_line(ctx: Context) -> None:
    session, _ = await _opened(ctx, b"HELLO\n")
    await session.send(b"\n")
    if await session.nothing_within(PARTIAL_WINDOW):
        answered = await session.lines_within(QUIET)
        expected = blank_answers(ctx.state.dialect)
        if len(answered) > 1 or not any(answered[0].startswith(fail) for fail in expected):
            ctx.drift("blank-line-answered", f"a blank line was answered {describe(answered[:2])}")
    looked = await session.answer(b"LOOK\n", "the reply to LOOK after a blank line")
    if not _view(looked, ctx.state.dialect):
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
    await session.aclose()  # the control on a connection of its own, one at a time
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
