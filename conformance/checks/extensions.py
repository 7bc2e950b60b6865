"""Checks of our own extensions (docs/protocol.md), made only where the server offers them.

A 2013 server owes no answer to ``EXTEND``, ``HELP``, ``MAP`` or ``STAY``; it
may answer something else, or nothing. So every check here first asks, and
skips itself, saying why, unless the answer is the extension's own reply
(silence within the timeout counts as "not offered"). Once a server does
answer in the extension's form, the reply must be right: a malformed one fails.
"""

from __future__ import annotations

from typing import TypeVar

from dungeon_of_doom.protocol.commands import Hello, Look, Quit
from dungeon_of_doom.protocol.replies import (
    Error,
    Gold,
    HelpReply,
    LookReply,
    MapReply,
    PlayerJoined,
    PlayerLeft,
    Push,
    Reply,
    Success,
)

from ..registry import Checklist, Context
from ..results import CheckFailed, CheckSkipped
from ..session import BadReply, NoReply, ServerClosed, Session, describe
from ..view import PLAYERS, View
from .common import floor_directions, join

R = TypeVar("R", bound=Reply)

checks = Checklist(extension=True)


async def _offered(session: Session, line: str, kind: type[R], keyword: str) -> R:
    """The reply to ``line`` if it is a ``kind``; skips the check when it is not offered."""
    try:
        reply = await session.ask(line)
    except (NoReply, ServerClosed):
        raise CheckSkipped(f"{line!r} got no answer: not offered") from None
    except BadReply:
        if session.last_lines and session.last_lines[0].split(" ")[0] == keyword:
            raise
        raise CheckSkipped(
            f"{line!r} was answered {describe(session.last_lines)}: not offered"
        ) from None
    if not isinstance(reply, kind):
        raise CheckSkipped(f"{line!r} was answered {describe(session.last_lines)}: not offered")
    return reply


async def _still_playing(session: Session, what: str) -> list[Push]:
    """After ``what``, a ``LOOK`` still gets its ``LOOKREPLY``; the pushed lines before it."""
    await session.send_command(Look())
    pushed: list[Push] = []
    while True:
        reply = await session.read_reply(f"the reply to LOOK after {what}")
        if isinstance(reply, LookReply):
            return pushed
        if not isinstance(reply, Push):
            raise CheckFailed(
                f"LOOK after {what} was answered {describe(session.last_lines)}, not LOOKREPLY"
            )
        pushed.append(reply)


async def _extend(session: Session, line: str = "EXTEND") -> list[str]:
    """Send ``line``; the capabilities of the ``EXTENDED`` answer. Skips if not offered."""
    await session.send_command(line)
    try:
        answer = await session.read_line(f"the reply to {line}")
    except (NoReply, ServerClosed):
        raise CheckSkipped(f"{line} got no answer: the extended protocol is not offered") from None
    words = answer.split(" ")
    if words[0] != "EXTENDED":
        raise CheckSkipped(f"{line} was answered {answer!r}: the extended protocol is not offered")
    if len(words) < 2 or not all(words[1:]):
        raise CheckFailed(f"EXTENDED names no capability, or has empty words: {answer!r}")
    return words[1:]


@checks.add(
    "ext.handshake",
    "docs/protocol.md (Capabilities: EXTEND)",
    "EXTEND answers 'EXTENDED <capability> ...'; asking again answers the same; play goes on",
)
async def extend_handshake(ctx: Context) -> None:
    session = await ctx.connect()
    await session.greet()
    first = await _extend(session)
    # Capabilities cannot be turned off, and unknown names are ignored.
    again = await _extend(session, "EXTEND no-such-capability")
    if again != first:
        raise CheckFailed(f"EXTENDED {' '.join(first)} became EXTENDED {' '.join(again)}")
    await _still_playing(session, "EXTENDED")


@checks.add(
    "ext.pushes",
    "docs/protocol.md (Pushed lines)",
    "with 'events', another player's arrival and QUIT are pushed as JOINED and LEFT ...: quit",
)
async def extend_pushes(ctx: Context) -> None:
    session = await ctx.connect("A")
    await session.greet()
    if "events" not in await _extend(session, "EXTEND events"):
        raise CheckSkipped("the server does not offer the 'events' capability")
    other = await join(ctx, "B")
    for direction in floor_directions(other.view)[:1]:
        await other.move(direction)
    if not await other.session.leave():
        raise CheckSkipped("B's QUIT did not close its connection (see quit.closes)")
    # Everything pushed about B was queued before the answer to this LOOK.
    pushed = await _still_playing(session, "another player joined, moved and quit")
    joined = [push for push in pushed if isinstance(push, PlayerJoined)]
    left = [push for push in pushed if isinstance(push, PlayerLeft)]
    if len(joined) != 1 or len(left) != 1 or left[0].why != "quit":
        shown = " / ".join(line for push in pushed for line in push.lines()) or "nothing"
        raise CheckFailed(f"expected one JOINED and one 'LEFT <player>: quit', got {shown}")
    if joined[0].player != left[0].player:
        raise CheckFailed(f"JOINED {joined[0].player} but LEFT {left[0].player}")


@checks.add("ext.help", "docs/protocol.md (HELP)", "HELP answers 'HELP <n>' and n lines")
async def extension_help(ctx: Context) -> None:
    session = await ctx.connect()
    reply = await _offered(session, "HELP", HelpReply, "HELP")
    if not reply.text:
        raise CheckFailed("HELP lists no command")
    await _still_playing(session, "HELP")


@checks.add(
    "ext.map",
    "docs/protocol.md (MAP)",
    "MAP answers 'MAP <rows> <cols>' and the rows, with one '@' where LOOK says we are",
)
async def extension_map(ctx: Context) -> None:
    player = await join(ctx)
    reply = await _offered(player.session, "MAP", MapReply, "MAP")
    rows = reply.rows
    found = [(r, c) for r, row in enumerate(rows) for c, glyph in enumerate(row) if glyph == "@"]
    if len(found) != 1:
        raise CheckFailed(f"the map shows {len(found)} '@' squares, not one")
    here = found[0]
    view = await player.look()
    problems = _disagreements(rows, here, view, ctx.config.glyphs)
    if problems:
        raise CheckFailed(f"MAP and LOOK disagree around '@': {'; '.join(problems)}")


def _disagreements(
    rows: tuple[str, ...], here: tuple[int, int], view: View, glyphs: frozenset[str]
) -> list[str]:
    problems = []
    for (dr, dc), seen in view.cells():
        r, c = here[0] + dr, here[1] + dc
        inside = 0 <= r < len(rows) and 0 <= c < len(rows[0])
        mapped = rows[r][c] if inside else "#"
        # The centre is '@' on the map and the tile underfoot in LOOK; players move.
        if (dr, dc) == (0, 0) or {seen, mapped} & PLAYERS or mapped not in glyphs:
            continue
        if seen != mapped:
            problems.append(f"{(dr, dc)} is {seen!r} in LOOK, {mapped!r} in MAP")
    return problems


@checks.add(
    "ext.errors",
    "docs/protocol.md (Errors)",
    "an invalid line gets exactly one 'ERROR <text>' line, and the game goes on",
)
async def extension_errors(ctx: Context) -> None:
    session = await ctx.connect()
    await session.greet()
    await _offered(session, "DANCE", Error, "ERROR")
    for line in ("MOVE UP", "MOVE", "LOOK now"):
        reply = await session.ask(line)
        if not isinstance(reply, Error) or not reply.message:
            raise CheckFailed(f"{line!r} was answered {describe(session.last_lines)}, not ERROR")
    await _still_playing(session, "four invalid lines")


@checks.add(
    "ext.names",
    "docs/protocol.md (HELLO <name>)",
    "'HELLO <name>' answers GOLD; the same name for a second player answers ERROR",
)
async def extension_names(ctx: Context) -> None:
    first, second = await ctx.connect("A"), await ctx.connect("B")
    gold = await first.expect(Hello(), Gold)
    name = "Conformance"
    named = await _offered(first, f"HELLO {name}", Gold, "GOLD")
    if named != gold:
        raise CheckFailed(f"'HELLO {name}' answered {named}, 'HELLO' answered {gold}")
    reply = await second.ask(f"HELLO {name}")
    if isinstance(reply, Gold):
        raise CheckSkipped("a second player may take the same name: unique names not offered")
    if not isinstance(reply, Error):
        raise CheckFailed(f"a taken name was answered {describe(second.last_lines)}, not ERROR")
    await _still_playing(second, "a refused name")


@checks.add(
    "ext.stay",
    "docs/protocol.md (STAY)",
    "STAY answers SUCCESS and the view does not move (where the world has STAY)",
)
async def extension_stay(ctx: Context) -> None:
    player = await join(ctx)
    before = player.view
    await _offered(player.session, "STAY", Success, "SUCCESS")
    after = await player.look()
    if problems := after.mismatches(before):
        raise CheckFailed(f"the view moved after STAY: {'; '.join(problems)}")


@checks.add(
    "ext.final-line",
    "docs/protocol.md (Final lines)",
    "QUIT answers one 'BYE <text>' line, then the connection closes",
)
async def extension_final_line(ctx: Context) -> None:
    session = await ctx.connect()
    await session.greet()
    await session.send_command(Quit())
    lines = await session.closed_within("QUIT")
    if not lines:
        raise CheckSkipped("the server closes without a final line: not offered")
    if len(lines) != 1 or not lines[0].startswith("BYE "):
        raise CheckFailed(f"QUIT was followed by {describe(lines)}, not one 'BYE <text>' line")
