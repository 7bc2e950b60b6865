"""Checks with two players: they see each other, block each other, and leave no trace.

Both clients start at random squares. Client A stays put; client B explores
until a ``P`` comes into its view. Since both views are the same 5×5 square,
A must then see B at the mirrored offset. These checks assume that no one else
is playing on the server while they run (another player's ``P`` would be taken
for one of ours).
"""

from __future__ import annotations

from collections.abc import Callable

from protocol.commands import Move, Quit
from protocol.direction import Direction
from protocol.replies import Fail

from ..explorer import DIRECTIONS, Explorer, Position, step
from ..registry import Checklist, Context
from ..results import CheckFailed, CheckSkipped, NotJudged
from ..session import NoReply, describe
from ..view import Offset
from .common import explore_or_skip, join

checks = Checklist()


async def _meet(ctx: Context) -> tuple[Explorer, Explorer, Offset]:
    """Two players in each other's view; the offset of A as B sees it."""
    a = await join(ctx, "A")
    b = await join(ctx, "B")
    await explore_or_skip(
        ctx, b, lambda explorer: bool(explorer.view.find("P")), "the two players never met"
    )
    offset = b.view.find("P")[0]
    mirrored = (-offset[0], -offset[1])
    seen = await a.look()
    if seen.at(mirrored) != "P":
        crowd = max(len(b.view.find("P")), len(seen.find("P")))
        if crowd > 1:
            # More players than the check's two: others on the map, or the players of
            # connections long gone (zss keeps each departed player where it stood).
            raise NotJudged(
                f"could not judge: the views show {crowd} other players where the check has "
                f"one other (B: {b.view}; A: {seen}), so B's P at {offset} may be another's"
            )
        # A P that A sees where B is not is a third player; and where A's view, set where
        # B's P stands, disagrees with B's on the squares both show, B's P is not A. Either
        # way B's P may be another's (zss's departed players), as with more P in view:
        # equal states, equal verdicts (issue 39).
        elsewhere = seen.find("P")
        apart = seen.mismatches(b.view, offset)
        if elsewhere or apart:
            why = (
                f"A sees another player at {elsewhere[0]}"
                if elsewhere
                else f"A's view, set where B's P stands, differs from B's: {apart[0]}"
            )
            raise NotJudged(
                f"could not judge: {why} (B: {b.view}; A: {seen}), so B's P at {offset} "
                "may be another's"
            )
        raise CheckFailed(
            f"B sees a P at {offset} (view {b.view}) but A shows {seen.at(mirrored)!r} "
            f"at {mirrored} (view {seen})"
        )
    return a, b, offset


def _next_to(target: Position) -> Callable[[Position], bool]:
    def beside(position: Position) -> bool:
        return any(step(position, direction) == target for direction in DIRECTIONS)

    return beside


@checks.add(
    "players.see",
    "§1 The Dungeon (P); §4.4 LOOK; docs/protocol.md (LOOK)",
    "two players see each other as P, at mirrored places",
)
async def players_see(ctx: Context) -> None:
    await _meet(ctx)


@checks.add(
    "players.block",
    "docs/protocol.md (Commands: MOVE)",
    "a MOVE onto another player's square answers FAIL; neither view changes",
)
async def players_block(ctx: Context) -> None:
    a, b, offset = await _meet(ctx)
    target = (b.position[0] + offset[0], b.position[1] + offset[1])
    beside = _next_to(target)
    await explore_or_skip(
        ctx, b, lambda explorer: beside(explorer.position), "no free square next to A", beside
    )
    direction = next(d for d in Direction if step(b.position, d) == target)
    before_a, before_b = await a.look(), b.view
    if before_b.at(direction.value) != "P":
        raise CheckFailed(f"B expects A at {direction.value} but sees {before_b}")
    reply = await b.session.ask(Move(direction))
    if not isinstance(reply, Fail):
        raise CheckFailed(
            f"MOVE {direction.name} onto A's square answered {describe(b.session.last_lines)}"
        )
    for player, before in ((b, before_b), (a, before_a)):
        after = await player.look()
        if problems := after.mismatches(before):
            raise CheckFailed(
                f"{player.session.name}'s view changed after the failed move: {'; '.join(problems)}"
            )
        if after.at(direction.value if player is b else _opposite(direction)) != "P":
            raise CheckFailed(f"{player.session.name} no longer sees the other: view {after}")


def _opposite(direction: Direction) -> Offset:
    return (-direction.row_step, -direction.column_step)


@checks.add(
    "players.leave",
    "§1 The Dungeon (players are not permanent); docs/protocol.md (Winning and leaving)",
    "when a player quits, its square shows its tile again; nothing is sent unasked",
)
async def players_leave(ctx: Context) -> None:
    a, b, offset = await _meet(ctx)
    tile = b.underfoot
    if tile is None:
        raise NotJudged(f"could not judge: the tile under B was never seen (view {b.view})")
    await b.session.send_command(Quit())
    try:
        await b.session.closed_within("QUIT")
    except NoReply:
        raise CheckSkipped("B's QUIT did not close its connection (see quit.closes)") from None
    # A sent nothing meanwhile, so a pushed line would be read here in place of LOOKREPLY.
    after = await a.look()
    mirrored = (-offset[0], -offset[1])
    if after.at(mirrored) != tile:
        raise CheckFailed(
            f"after B left, A sees {after.at(mirrored)!r} at {mirrored}, not the tile {tile!r} "
            f"B stood on (view {after})"
        )
