"""From world events to protocol replies: the one place that decides what a player reads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from protocol.commands import DECLARED_VERBS, Shown
from protocol.direction import Direction
from protocol.replies import Done, Fail, GoldCoins, HelpReply, Reply, Success
from worlds.api import Blocked, Moved, NothingToPickUp, PickedUp, ResultEvent, Stayed, World
from worlds.turns import TurnPassed

_SUCCESS = Success()
_DONE = Done()
_NOTHING_HERE = Fail("nothing to pick up")


def result_reply(event: ResultEvent) -> Reply:
    """The reply to the action whose outcome ``event`` is (RULES §1)."""
    # Exact types, not isinstance: a world's own subclass of an event says its own result.
    reply = _REPLIES.get(type(event))
    if reply is not None:
        return reply(event)
    # A world's own result events (ATTACK, ENDTURN in the battle world) say how they went.
    succeeded = getattr(event, "succeeded", None)
    if succeeded is not None:
        if isinstance(event, TurnPassed):
            return _DONE
        return _SUCCESS if succeeded else Fail(_failure(event))
    raise TypeError(f"no reply for {event!r}")


def _succeeded(event: Moved | Stayed) -> Reply:
    return _SUCCESS


def _blocked(event: Blocked) -> Reply:
    return Fail(f"can't move into {event.reason}")


def _nothing_to_pick_up(event: NothingToPickUp) -> Reply:
    return _NOTHING_HERE


def _picked_up(event: PickedUp) -> Reply:
    return GoldCoins(event.gold) if event.is_gold else _SUCCESS


_REPLIES: Final[dict[type[ResultEvent], Callable[[Any], Reply]]] = {
    Moved: _succeeded,
    Stayed: _succeeded,
    Blocked: _blocked,
    NothingToPickUp: _nothing_to_pick_up,
    PickedUp: _picked_up,
}
"""The reply to each of the shared result events, by kind."""


def _failure(event: ResultEvent) -> str:
    """Why a world's own action failed, as the dialects that say it write it (``FAIL <why>``)."""
    reason = getattr(event, "reason", None)
    if reason:
        return str(reason)
    if getattr(event, "target", 0) is None:
        return "There is no one to attack here."
    if hasattr(event, "hit"):
        return "Attack missed."
    return ""


_TURN_NOTES: Final = (
    "With EXTEND events: STARTTURN <ap> (your turn), ENDTURN [timeout] (it ended),",
    "  TURN <player> (another's turn), HITMOD <change> (your hit points changed).",
    "Off your turn, an action waits for your turn; with EXTEND events it is an ERROR.",
)


def help_reply(world: World, world_name: str, *, in_turns: bool) -> HelpReply:
    """``HELP``: the commands that work in this world, one line each, as the verbs
    declare them (:data:`protocol.commands.DECLARED_VERBS`); ``in_turns``: the world
    is played in turns."""
    directions = " ".join(d.name for d in sorted(world.directions, key=_compass_order))
    shown = {
        Shown.ALWAYS: True,
        Shown.EXTENSION: True,
        Shown.STAY: world.allows_stay,
        Shown.TURNS: in_turns,
    }
    lines = [f"You are in the {world_name} world. Commands (any letter case):"]
    extensions = ["Extensions (see the protocol document):"]
    after_turns = False
    for verb in DECLARED_VERBS:
        if not shown[verb.shown]:
            continue
        if after_turns and verb.shown is not Shown.TURNS:
            lines += _TURN_NOTES
        after_turns = verb.shown is Shown.TURNS
        section = extensions if verb.shown is Shown.EXTENSION else lines
        section.append(verb.help_line(directions))
    lines += extensions
    if world.help_notes:
        lines.append(f"About the {world_name} world:")
        lines += world.help_notes
    return HelpReply(tuple(lines))


_ORDER = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]


def _compass_order(direction: Direction) -> int:
    return _ORDER.index(direction.name)
