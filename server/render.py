"""From world events to protocol replies: the one place that decides what a player reads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

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


def help_reply(world: World, world_name: str) -> HelpReply:
    """``HELP``: the commands that work in this world, one line each."""
    directions = " ".join(d.name for d in sorted(world.directions, key=_compass_order))
    lines = [
        f"You are in the {world_name} world. Commands (any letter case):",
        "HELLO [name]   the gold you need to win; with a name, also sets your name",
        f"MOVE <dir>     move one square; directions here: {directions}",
        "PICKUP         pick up what lies on your square (see the notes below)",
        "LOOK           the 5x5 view around you (X marks the corners, # is off the map)",
    ]
    if world.allows_stay:
        lines.append("STAY           let one turn pass without moving")
    if getattr(world, "has_turns", False):
        lines += [
            "ATTACK <dir>   strike the player on the next square: SUCCESS a hit, FAIL a miss",
            "ENDTURN        end your turn now (SUCCESS)",
            "APGET          AP <n>: your action points left this turn (0 off your turn)",
            "HPGET          HP <n>: your hit points",
            "With EXTEND events: STARTTURN <ap> (your turn), ENDTURN [timeout] (it ended),",
            "  TURN <player> (another's turn), HITMOD <change> (your hit points changed).",
            "Off your turn, an action waits for your turn; with EXTEND events it is an ERROR.",
        ]
    lines += [
        "MAP            the whole map",
        "QUIT           leave the game",
        "HELP           this list",
        "Extensions (see the protocol document):",
        "EXTEND [caps]  receive pushed lines: events, chat; bot marks you as a bot",
        "SHOUT <text>   a message to everyone in your game",
        "GAMES          list the games on this server",
        "CREATE <game> <world> [map=<m>] [seed=<n>] [players=<n>] [turn=<s>]",
        "JOIN <game>    play in another game",
        "WATCH <game>   follow a game as a spectator",
    ]
    if world.help_notes:
        lines.append(f"About the {world_name} world:")
        lines += world.help_notes
    return HelpReply(tuple(lines))


_ORDER = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]


def _compass_order(direction: Direction) -> int:
    return _ORDER.index(direction.name)
