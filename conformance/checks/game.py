"""Checks of the 2013 replies and game rules, made by one player exploring with ``LOOK``.

Clauses: ``§n`` are the sections of the 2013 specification; ``docs/protocol.md`` is
the project's exact restatement of it, which settles what the 2013 text
leaves open (corners, off-map squares, the centre).
"""

from __future__ import annotations

import re
from typing import Final

from clients.dialect import TreasureChanged
from protocol.commands import Hello, Look, Move, Pickup, Quit
from protocol.replies import Fail, Gold, GoldCoins, LookReply, Success

from ..dialects import (
    declared,
    declared_reader,
    pushed_only,
    refusal,
    resumes_players,
    shows_player_at_centre,
    welcome,
)
from ..explorer import WALKABLE, Explorer
from ..registry import Checklist, Context
from ..results import CheckFailed, NotJudged
from ..session import NoReply, Session, describe
from ..view import CORNERS, PLAYERS, View
from .common import explore_or_skip, floor_directions, join, wall_directions

checks = Checklist()

# Views sampled per LOOK check: enough to leave the spawn square's surroundings.
SAMPLE_VIEWS = 6


async def _sample_views(ctx: Context) -> list[View]:
    """Views from a player's first few steps (fewer if it cannot move)."""
    player = await join(ctx)
    views = [player.view]

    def enough(explorer: Explorer) -> bool:
        if explorer.view is not views[-1]:
            views.append(explorer.view)
        return len(views) >= SAMPLE_VIEWS

    try:
        await player.explore(enough, min(SAMPLE_VIEWS, ctx.config.max_steps))
    except NoReply as silence:
        # A move is how the check finds more views, not what it judges: a server that
        # stops answering MOVE (lib, once its list of players has shifted under this
        # connection) leaves the views unjudged, not wrong (move.* judge MOVE itself).
        raise NotJudged(
            f"could not judge: {silence} (a step of the exploration, after "
            f"{len(views)} view(s), none wrong)"
        ) from None
    return views


@checks.add(
    "hello.gold",
    "§4.1 HELLO; docs/protocol.md (Commands); docs/dialects.md",
    "HELLO answers 'GOLD <n>' with n >= 0 (2015: 'HELLO <name>' echoes the name, the "
    "target came on connect; 2016: 'GOLD: <n>'; 2016ch: refused, 'HELLO <name>' echoed; "
    "2016mbk: 'H<n>')",
)
async def hello_gold(ctx: Context) -> None:
    session = await ctx.connect()
    dialect = ctx.state.dialect
    if dialect == "2013" or declared_reader(dialect) is not None:
        # mbk's 'H<n>' is read as its declaration writes the gold still needed.
        gold = await session.expect(Hello(), Gold)
        if gold.amount < 0 and resumes_players(dialect):
            raise NotJudged(
                f"could not judge: HELLO was answered {describe(session.last_lines)}: the "
                "address's player, given back to each of its connections, holds more gold "
                "than the goal, picked by the suite's earlier checks"
            )
        if gold.amount < 0:
            raise CheckFailed(f"the gold target is negative: {describe(session.last_lines)}")
        return
    if dialect == "2015":
        answer = await session.hello_named("conformance")
        if answer[:1] != ["HELLO conformance"]:
            raise CheckFailed(
                f"'HELLO conformance' was answered {describe(answer)}, not 'HELLO conformance'"
            )
        return
    if dialect == "2016ch":
        await _hello_named_only(session, dialect)
        return
    answer = await session.answer(b"HELLO\n", "the reply to HELLO")
    if not re.fullmatch(r"GOLD: \d+", answer[0]):
        raise CheckFailed(f"HELLO was answered {describe(answer)}, not 'GOLD: <n>'")


async def _hello_named_only(session: Session, dialect: str) -> None:
    """A dialect whose ``HELLO`` needs a name (ch739's): the bare one is refused in the
    dialect's words, and ``HELLO <name>`` is echoed (ch739 writes the name in capitals)."""
    expected = refusal(dialect, "HELLO")
    answer = await session.answer(b"HELLO\n", "the reply to HELLO")
    if answer[0] != expected:
        raise CheckFailed(f"HELLO was answered {describe(answer)}, not {expected!r}")
    named = await session.name_myself()
    echo = session.last_command.upper()
    if not any(line.upper() == echo for line in named):
        raise CheckFailed(
            f"{session.last_command!r} was answered {describe(named)}, with no "
            f"{session.last_command!r} echoed"
        )


GREETING_2015: Final = re.compile(r"GOLD \d+")
OTHERS_PUSHES: Final = frozenset({"CHANGE", "LOSE", "SERVERCHANGE"})


@checks.add(
    "connect.greeting",
    "docs/protocol.md (Conversation); docs/dialects.md",
    "nothing is sent before the first command (2015: 'GOLD <n>', then 'STARTTURN' "
    "when it is the player's turn; 2016mbk: 'Welcome to the dungeon! Mwuahaha')",
)
async def connect_greeting(ctx: Context) -> None:
    # Every connection reads the greeting before its first command; it is judged here
    # only, once.
    greeting = (await ctx.connect()).greeting
    if ctx.state.dialect != "2013":
        # Told of other connections (the suite's own, leaving): not the greeting.
        greeting = [line for line in greeting if line not in OTHERS_PUSHES]
    if ctx.state.dialect == "2015":
        if (
            not greeting
            or not GREETING_2015.fullmatch(greeting[0])
            or any(line != "STARTTURN" for line in greeting[1:])
        ):
            raise CheckFailed(
                f"the greeting is {describe(greeting)}, not 'GOLD <n>' (then 'STARTTURN')"
            )
    elif owed := welcome(ctx.state.dialect):
        # mbk's welcome, then perhaps its view, pushed whenever it changes.
        if greeting[: len(owed)] != owed or not pushed_only(
            ctx.state.dialect, greeting[len(owed) :]
        ):
            raise CheckFailed(
                f"the greeting is {describe(greeting)}, not {describe(owed)} (a "
                f"{ctx.state.dialect} server says it to every connection, and nothing else "
                "but its pushes)"
            )
    elif greeting:
        raise CheckFailed(
            f"the server greets every connection, unasked, with {describe(greeting)}; "
            f"a {ctx.state.dialect} server says nothing before the first command"
        )


@checks.add(
    "look.shape", "§4.4 LOOK; docs/protocol.md (LOOK)", "LOOK answers LOOKREPLY and 5 lines of 5"
)
async def look_shape(ctx: Context) -> None:
    # Shape is what the shared parser enforces: any other shape fails inside the session.
    session = await ctx.connect()
    await session.greet()
    await session.expect(Look(), LookReply)
    await session.expect(Look(), LookReply, "the reply to a second LOOK")


@checks.add(
    "look.corners", "§4.4 LOOK; docs/protocol.md (LOOK)", "the four corners of every view are 'X'"
)
async def look_corners(ctx: Context) -> None:
    for view in await _sample_views(ctx):
        wrong = [offset for offset in sorted(CORNERS) if view.at(offset) != "X"]
        if wrong:
            shown = ", ".join(f"{offset} is {view.at(offset)!r}" for offset in wrong)
            raise CheckFailed(f"corner {shown} in view {view}")


@checks.add(
    "look.alphabet",
    "§1 The Dungeon; docs/protocol.md (LOOK)",
    "every other square is one of . # G E P B L S A H (or --extra-glyphs)",
)
async def look_alphabet(ctx: Context) -> None:
    allowed = ctx.config.glyphs
    for view in await _sample_views(ctx):
        wrong = [(offset, glyph) for offset, glyph in view.cells() if glyph not in allowed]
        if wrong:
            offset, glyph = wrong[0]
            raise CheckFailed(f"square {offset} shows {glyph!r}, not a tile, in view {view}")


@checks.add(
    "look.centre",
    "§4.4 LOOK; §2 Setup; docs/protocol.md (LOOK); docs/dialects.md",
    "the centre shows the tile underfoot: never P, B, X or a wall (2016: P, the player)",
)
async def look_centre(ctx: Context) -> None:
    if shows_player_at_centre(ctx.state.dialect):
        # lib's 2016 form and mbk's put the player itself at the centre (docs/dialects.md,
        # LOOK); ch739's shows the tile underfoot, as 2013 does.
        for view in await _sample_views(ctx):
            if view.centre in {"B", "X", "#"}:
                raise CheckFailed(
                    f"the centre shows {view.centre!r}, neither 'P' (the player) nor the "
                    f"tile underfoot, in view {view}"
                )
        return
    for view in await _sample_views(ctx):
        if view.centre in PLAYERS | {"X", "#"}:
            raise CheckFailed(f"the centre shows {view.centre!r} in view {view}")


@checks.add("look.no-effect", "§4.4 LOOK", "LOOK changes nothing: a second LOOK shows the same")
async def look_no_effect(ctx: Context) -> None:
    player = await join(ctx)
    before = player.view
    after = await player.look()
    if problems := after.mismatches(before):
        raise CheckFailed(f"the second LOOK differs: {'; '.join(problems)}")


@checks.add(
    "move.wall",
    "§4.2 MOVE; §1 The Dungeon (Wall); docs/protocol.md (Commands)",
    "MOVE into a wall seen in LOOK answers FAIL and the view does not change",
)
async def move_wall(ctx: Context) -> None:
    player = await join(ctx)
    await explore_or_skip(
        ctx,
        player,
        lambda explorer: bool(wall_directions(explorer.view)),
        "no wall next to the player",
        # Toward a wall already seen: exploring only for unseen squares, a small map seen
        # whole at once left every wall unvisited (ch739's 5x5 map).
        toward=lambda position: player.beside(position, "#"),
    )
    before = player.view
    direction = wall_directions(before)[0]
    reply = await player.session.ask(Move(direction))
    if not isinstance(reply, Fail):
        raise CheckFailed(
            f"MOVE {direction.name} into the wall of view {before} answered "
            f"{describe(player.session.last_lines)}, not FAIL"
        )
    after = await player.look()
    if problems := after.mismatches(before):
        raise CheckFailed(f"the view changed after a failed MOVE: {'; '.join(problems)}")


@checks.add(
    "move.floor",
    "§4.2 MOVE; docs/protocol.md (Commands)",
    "MOVE onto floor answers SUCCESS and the next view is the old one shifted by one",
)
async def move_floor(ctx: Context) -> None:
    player = await join(ctx)
    await explore_or_skip(
        ctx,
        player,
        lambda explorer: bool(floor_directions(explorer.view)),
        "no floor next to the player",
        toward=lambda position: player.beside(position, WALKABLE),
    )
    before = player.view
    direction = floor_directions(before)[0]
    reply = await player.session.ask(Move(direction))
    if not isinstance(reply, Success):
        raise CheckFailed(
            f"MOVE {direction.name} onto {before.at(direction.value)!r} in view {before} "
            f"answered {describe(player.session.last_lines)}, not SUCCESS"
        )
    after = await player.look()
    if problems := after.mismatches(before, direction.value):
        raise CheckFailed(
            f"after MOVE {direction.name} the view {after} is not {before} shifted by one: "
            + "; ".join(problems)
        )


@checks.add(
    "pickup.gold",
    "§4.3 PICKUP; §2 Setup; docs/protocol.md (Commands)",
    "PICKUP on gold answers 'SUCCESS, GOLD COINS: 1' (2015, ch739: 'SUCCESS' with "
    "'TREASUREMOD 1'; mbk: 'PS<gold held>', one less gold needed), the G is gone, a second "
    "PICKUP fails",
)
async def pickup_gold(ctx: Context) -> None:
    player = await join(ctx)
    await explore_or_skip(
        ctx,
        player,
        lambda explorer: explorer.underfoot == "G",
        "no gold reached",
        toward=lambda position: player.tiles.get(position) == "G",
    )
    needed: Gold | None = None
    if resumes_players(ctx.state.dialect):
        # The address's player may be one the suite's earlier checks played, gold and
        # all: the total is judged by the gold still needed before and after, not as 1.
        needed = await player.session.expect(Hello(), Gold, "the reply to HELLO before PICKUP")
    reply = await player.session.ask(Pickup())
    if needed is not None:
        await _judge_resumed_pickup(player.session, reply, needed.amount)
    elif TreasureChanged(1) in declared(ctx.state.dialect).words(GoldCoins(1)):
        # SUCCESS, and TREASUREMOD 1 pushed beside it (2015; ch739 sends it first).
        found = isinstance(reply, Success) and await player.session.wait_for_push(
            lambda push: push == TreasureChanged(1), "TREASUREMOD 1"
        )
        if not found:
            raise CheckFailed(
                "PICKUP on the first gold of a new player answered "
                f"{describe(player.session.last_lines)}, not 'SUCCESS' and 'TREASUREMOD 1'"
            )
    elif reply == GoldCoins(1):
        pass
    elif not (
        ctx.state.dialect == "2016"
        and isinstance(reply, Success)
        and TreasureChanged(1) in player.session.pushed
    ):  # ch739's 2016: 'TREASUREMOD 1', its pushed view, then 'SUCCESS'
        raise CheckFailed(
            "PICKUP on the first gold of a new player answered "
            f"{describe(player.session.last_lines)}, not 'SUCCESS, GOLD COINS: 1'"
        )
    after = await player.look()
    if after.centre == "G":
        raise CheckFailed(f"the gold is still underfoot after PICKUP: view {after}")
    player.tiles[player.position] = "."
    again = await player.session.ask(Pickup(), "the reply to a second PICKUP")
    if not isinstance(again, Fail):
        raise CheckFailed(
            f"a second PICKUP on the same square answered {describe(player.session.last_lines)}"
        )


async def _judge_resumed_pickup(session: Session, reply: object, needed: int) -> None:
    """A ``PICKUP`` on gold by a player an address may have played before (mbk): its
    answer must say gold was picked (``PS<gold held>``, at least 1), and the gold still
    needed must have dropped by one (``H<n>``; or stayed 0, where ours stops there)."""
    picked = describe(session.last_lines)
    if not isinstance(reply, GoldCoins) or reply.total < 1:
        raise CheckFailed(f"PICKUP on gold answered {picked}, not the gold now held")
    after = await session.expect(Hello(), Gold, "the reply to HELLO after PICKUP")
    # Ours says 0 once the goal is reached; mbk's own server counts on below it.
    if after.amount not in {needed - 1, max(needed - 1, 0)}:
        raise CheckFailed(
            f"PICKUP on gold answered {picked}, but the gold still needed went from {needed} "
            f"to {after.amount} ({describe(session.last_lines)})"
        )


@checks.add("pickup.nothing", "§4.3 PICKUP", "PICKUP on plain floor answers FAIL")
async def pickup_nothing(ctx: Context) -> None:
    player = await join(ctx)
    await explore_or_skip(
        ctx,
        player,
        lambda explorer: explorer.underfoot == ".",
        "no plain floor reached",
        toward=lambda position: player.tiles.get(position) == ".",
    )
    before = player.view
    reply = await player.session.ask(Pickup())
    if not isinstance(reply, Fail):
        raise CheckFailed(
            f"PICKUP on floor ('.' underfoot) answered {describe(player.session.last_lines)}"
        )
    after = await player.look()
    if problems := after.mismatches(before):
        raise CheckFailed(f"the view changed after a failed PICKUP: {'; '.join(problems)}")


@checks.add(
    "quit.closes",
    "§4.5 QUIT; docs/protocol.md (Final lines)",
    "QUIT closes the connection, after at most one final line (2015: one FROM/MESSAGE pair)",
)
async def quit_closes(ctx: Context) -> None:
    session = await ctx.connect()
    await session.greet()
    await session.send_command(Quit())
    lines = await session.closed_within("QUIT")
    if len(_messages(lines, ctx.state.dialect)) > 1:
        raise CheckFailed(f"more than one line before the connection closed: {describe(lines)}")


def _messages(lines: list[str], dialect: str) -> list[str]:
    """The final lines as messages: in 2015 one message is two lines, ``FROM <sender>``
    and ``MESSAGE <text>`` (docs/dialects.md, any other goodbye)."""
    if dialect != "2015":
        return lines
    messages: list[str] = []
    for line in lines:
        if messages and messages[-1].startswith("FROM ") and line.startswith("MESSAGE "):
            messages[-1] += " / " + line
        else:
            messages.append(line)
    return messages
