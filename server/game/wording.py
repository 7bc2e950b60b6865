"""From world events to words: the one place that decides what a player reads, what a
watcher of the web page's viewer reads, and what a replay's story says.

:data:`TELLINGS` declares, for every world event the server knows, the reply and the
pushes it becomes and who hears each, and the sentence it is for a watcher
(:class:`worlds.api.Telling`); a world adds its own events' (:attr:`worlds.api.World.tellings`).
The game applies them as they are (:class:`server.game.delivery.Delivery`), the viewer and
the story read their sentences (:func:`sentence_of`). ``HELP`` is derived here from the
verbs' declarations (:data:`protocol.commands.DECLARED_VERBS`)."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from typing import Final, TypeVar

from protocol.commands import DECLARED_VERBS, Shown
from protocol.direction import Direction
from protocol.replies import (
    Done,
    Fail,
    GameWon,
    GoldCoins,
    HelpReply,
    HitMod,
    Lose,
    Reply,
    Success,
    TurnBegins,
    TurnOf,
    TurnOver,
    Win,
)
from protocol.replies import Notice as NoticeLine
from worlds.api import (
    Blocked,
    Died,
    Ending,
    Escaped,
    Event,
    Joined,
    Labels,
    Left,
    Moved,
    NothingToPickUp,
    Notice,
    PickedUp,
    ResultEvent,
    Stayed,
    Telling,
    World,
    told_as,
)
from worlds.turns import (
    Attacked,
    Defeated,
    HitPointsChanged,
    PickupRefused,
    TurnEnded,
    TurnPassed,
    TurnStarted,
)

_E = TypeVar("_E", bound=Event)
_SUCCESS = Success()
_DONE = Done()
_NOTHING_HERE = Fail("nothing to pick up")


@functools.lru_cache(maxsize=64)
def _cannot_move_into(reason: str) -> Fail:
    """The ``FAIL`` of a move blocked by ``reason``, built once a reason: a reply is
    immutable, and checking its form on every blocked move (a bot walks into walls and
    other players about as often as it moves) cost more than the world's own work."""
    return Fail(f"can't move into {reason}")


def _attacked(event: Attacked) -> Reply:
    if event.hit:
        return _SUCCESS
    return Fail("There is no one to attack here." if event.target is None else "Attack missed.")


def _always(reply: Reply, sentence: Callable[[_E, Labels, int], str] | None) -> Telling[_E]:
    """The telling of a result whose answer is always ``reply``."""
    return Telling(sentence, answer=lambda event: reply, reply=reply)


def _defeated(event: Defeated, labels: Labels) -> Ending:
    return Ending(Lose(f"{labels(event.winner)} won the game."), "lost")


# -- the sentences: the events in words for a watcher (the viewer, a replay's story) --


def _bumped(event: Blocked, who: Labels, goal: int) -> str:
    return f"{who(event.player)} bumped into {event.reason}" if event.reason else ""


def _picked_up(event: PickedUp, who: Labels, goal: int) -> str:
    if event.is_gold:
        of = f" of {goal}" if goal > 0 else ""
        return f"{who(event.player)} picked up gold ({event.gold}{of})"
    return f"{who(event.player)} picked up {event.item}"


def _found_nothing(event: NothingToPickUp, who: Labels, goal: int) -> str:
    return f"{who(event.player)} found nothing to pick up"


def _attack_told(event: Attacked, who: Labels, goal: int) -> str:
    if event.target is None:
        return f"{who(event.player)} attacked thin air"
    blow = f"hit for {event.damage}" if event.hit else "missed"
    return f"{who(event.player)} attacked {who(event.target)} and {blow}"


def _noticed(event: Notice, who: Labels, goal: int) -> str:
    # Told to its player, if it has one: say whose.
    return event.text if event.player is None else f"{who(event.player)}: {event.text}"


TELLINGS: Final[dict[type[Event], Telling[Event]]] = dict(
    (
        # The results of actions (RULES §1), and of the battle world's own. A move is
        # not worth a sentence: the board shows it, and a log of steps would drown the rest.
        told_as(Moved, _always(_SUCCESS, None)),
        told_as(Stayed, _always(_SUCCESS, None)),
        told_as(Blocked, Telling(_bumped, answer=lambda event: _cannot_move_into(event.reason))),
        told_as(
            NothingToPickUp,
            _always(_NOTHING_HERE, _found_nothing),
        ),
        told_as(
            PickedUp,
            Telling(
                _picked_up,
                answer=lambda event: GoldCoins(event.gold) if event.is_gold else _SUCCESS,
            ),
        ),
        told_as(Attacked, Telling(_attack_told, answer=_attacked)),
        told_as(TurnPassed, _always(_DONE, None)),
        told_as(PickupRefused, Telling(None, answer=lambda event: Fail(event.reason))),
        # Joins and leaves: the game tells players of them itself (JOINED, LEFT); a
        # leave's record says why (the viewer tells it from there).
        told_as(
            Joined, Telling(lambda event, who, goal: f"{who(event.player)} entered the dungeon")
        ),
        told_as(Left, Telling(None)),
        # The end of a player's game.
        told_as(
            Escaped,
            Telling(
                lambda event, who, goal: f"{who(event.player)} won: {event.text}",
                ends=lambda event, labels: Ending(
                    Win(event.text), "escaped", event.gold, event.moves
                ),
            ),
        ),
        told_as(
            Died,
            Telling(
                lambda event, who, goal: f"{who(event.player)} died: {event.text}",
                ends=lambda event, labels: Ending(Lose(event.text), "died"),
            ),
        ),
        told_as(Notice, Telling(_noticed, to_player=lambda event, labels: NoticeLine(event.text))),
        # Turns (worlds played in turns).
        told_as(
            TurnStarted,
            Telling(
                lambda event, who, goal: f"{who(event.player)}'s turn ({event.points} AP)",
                to_player=lambda event, labels: TurnBegins(event.points),
                to_others=lambda event, labels: TurnOf(labels(event.player)),
            ),
        ),
        told_as(
            TurnEnded,
            Telling(None, to_player=lambda event, labels: TurnOver(timed_out=event.missed)),
        ),
        told_as(
            HitPointsChanged,
            Telling(
                lambda event, who, goal: f"{who(event.player)} has {event.points} HP",
                to_player=lambda event, labels: HitMod(event.change),
            ),
        ),
        told_as(
            Defeated,
            Telling(
                lambda event, who, goal: f"{who(event.player)} lost: {who(event.winner)} won",
                to_player=lambda event, labels: GameWon(f"{labels(event.winner)} has won the game"),
                ends=_defeated,
            ),
        ),
    )
)
"""Every world event the server knows, and what it becomes (:class:`worlds.api.Telling`).
A world declares the events it emits (:attr:`worlds.api.World.emits`) and how its own
are told (:attr:`worlds.api.World.tellings`); a test holds each of them to an entry
here or there."""

_FOUND: dict[type[Event], Telling[Event]] = {}


def telling_of(event: Event, world: World | None = None) -> Telling[Event]:
    """How ``event`` is told: its class's entry in :data:`TELLINGS` or in ``world``'s
    own tellings, or its nearest declared ancestor's (a world's own subclass of a
    shared event); :class:`TypeError` for an event nobody declared."""
    kind = type(event)
    found = TELLINGS.get(kind) or _FOUND.get(kind)
    if found is None:
        try:
            found = _FOUND[kind] = _declared(kind, world)
        except TypeError:
            raise TypeError(f"no telling for {event!r}") from None
    return found


def tellings_of(world: World) -> dict[type[Event], Telling[Event]]:
    """Every telling ``world`` may need, by the event's own class: the shared ones and
    those of every kind it declares it emits (:attr:`~worlds.api.World.emits`), looked
    up once (a game does so for each world it opens)."""
    tellings = dict(TELLINGS)
    for kind in world.emits:
        with contextlib.suppress(TypeError):  # untold: an error when it happens
            tellings.setdefault(kind, _declared(kind, world))
    return tellings


def _declared(kind: type[Event], world: World | None) -> Telling[Event]:
    """The telling of ``kind``'s nearest declared ancestor (``world``'s own first)."""
    own = world.tellings if world is not None else {}
    declared = next(
        (table[base] for base in kind.__mro__ for table in (own, TELLINGS) if base in table),
        None,
    )
    if declared is None:
        raise TypeError(f"no telling for {kind.__name__}")
    return declared


def result_reply(event: ResultEvent, world: World | None = None) -> Reply:
    """The reply to the action whose outcome ``event`` is (RULES §1)."""
    return telling_of(event, world).answer(event)


def sentence_of(event: Event, who: Labels, goal: int, world: World | None = None) -> str:
    """``event`` in words for a watcher, or ``""`` for one not worth a sentence."""
    sentence = telling_of(event, world).sentence
    return "" if sentence is None else sentence(event, who, goal)


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
