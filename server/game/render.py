"""From world events to protocol replies: the one place that decides what a player reads.

:data:`TELLINGS` declares, for every world event, the reply and the pushes it becomes
and who hears each (:class:`Telling`); the game applies it as it is
(:func:`server.game.telling.events`). ``HELP`` is derived here from the verbs'
declarations (:data:`protocol.commands.DECLARED_VERBS`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Generic, NoReturn, TypeVar, cast

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
    Push,
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
    Escaped,
    Event,
    Joined,
    Left,
    Moved,
    NothingToPickUp,
    Notice,
    PickedUp,
    PlayerId,
    ResultEvent,
    Stayed,
    World,
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

_SUCCESS = Success()
_DONE = Done()
_NOTHING_HERE = Fail("nothing to pick up")


@functools.lru_cache(maxsize=64)
def _cannot_move_into(reason: str) -> Fail:
    """The ``FAIL`` of a move blocked by ``reason``, built once a reason: a reply is
    immutable, and checking its form on every blocked move (a bot walks into walls and
    other players about as often as it moves) cost more than the world's own work."""
    return Fail(f"can't move into {reason}")


_E = TypeVar("_E", bound=Event)
Labels = Callable[[PlayerId], str]
"""How the game shows a player to others (its name, or ``#<n>``)."""


@dataclass(frozen=True, slots=True)
class Ending:
    """A player's game is over: the final line it is sent, and how the records call it."""

    final: Win | Lose
    outcome: str
    """``escaped``, ``died`` or ``lost`` (someone else won)."""
    gold: int = 0
    moves: int | None = None
    """The gold held and the moves made, for a player who escaped (``None``: not told)."""

    def details(self) -> dict[str, int]:
        """What the records and the log are told besides the outcome."""
        return {} if self.moves is None else {"gold": self.gold, "moves": self.moves}


def _unanswered(event: Event) -> NoReturn:
    raise TypeError(f"{event!r} is not the result of an action")


@dataclass(frozen=True, slots=True)
class Telling(Generic[_E]):
    """What one kind of world event becomes, and who hears it, in this order:

    * ``answer``: the reply to the action whose result the event is, sent to the player
      who acted; everyone in the audience who could see the actor is pushed ``SAW``;
    * ``to_player``: pushed to the player the event concerns, if it asked for events
      (to the whole audience when the event concerns everyone: ``player`` is ``None``);
    * ``to_others``: pushed to everyone else in the audience;
    * ``ends``: the player's game is over, with this final line.

    An event that declares nothing (``Joined``, ``Left``: the game tells joins and
    leaves itself) is told to nobody. Exactly the results of actions
    (:class:`~worlds.api.ResultEvent`) have an ``answer``: :attr:`answers`.
    """

    answer: Callable[[_E], Reply] = _unanswered
    to_player: Callable[[_E, Labels], Push] | None = None
    to_others: Callable[[_E, Labels], Push] | None = None
    ends: Callable[[_E, Labels], Ending] | None = None
    reply: Reply | None = None
    """The ``answer`` to every event of the kind, when it does not depend on the event:
    a caller may send it without calling ``answer`` (a ``MOVE``'s ``SUCCESS``)."""

    @property
    def answers(self) -> bool:
        """Whether the event is the result of an action, with a reply to its actor."""
        return self.answer is not _unanswered


def _always(reply: Reply) -> Telling[Event]:
    """The telling of a result whose answer is always ``reply``."""
    return Telling(answer=lambda event: reply, reply=reply)


def _tells(kind: type[_E], telling: Telling[_E]) -> tuple[type[Event], Telling[Event]]:
    """One entry of :data:`TELLINGS`. The table is looked up by the event's own class (or
    its nearest declared ancestor), so ``telling`` only ever gets a ``kind``; the cast
    records that invariant."""
    return kind, cast(Telling[Event], telling)


def _attacked(event: Attacked) -> Reply:
    if event.hit:
        return _SUCCESS
    return Fail("There is no one to attack here." if event.target is None else "Attack missed.")


def _defeated(event: Defeated, labels: Labels) -> Ending:
    return Ending(Lose(f"{labels(event.winner)} won the game."), "lost")


TELLINGS: Final[dict[type[Event], Telling[Event]]] = dict(
    (
        # The results of actions (RULES §1), and of the battle world's own.
        _tells(Moved, _always(_SUCCESS)),
        _tells(Stayed, _always(_SUCCESS)),
        _tells(Blocked, Telling(answer=lambda event: _cannot_move_into(event.reason))),
        _tells(NothingToPickUp, _always(_NOTHING_HERE)),
        _tells(
            PickedUp,
            Telling(answer=lambda event: GoldCoins(event.gold) if event.is_gold else _SUCCESS),
        ),
        _tells(Attacked, Telling(answer=_attacked)),
        _tells(TurnPassed, _always(_DONE)),
        _tells(PickupRefused, Telling(answer=lambda event: Fail(event.reason))),
        # Joins and leaves: the game tells them itself (JOINED, LEFT).
        _tells(Joined, Telling()),
        _tells(Left, Telling()),
        # The end of a player's game.
        _tells(
            Escaped,
            Telling(
                ends=lambda event, labels: Ending(
                    Win(event.text), "escaped", event.gold, event.moves
                )
            ),
        ),
        _tells(Died, Telling(ends=lambda event, labels: Ending(Lose(event.text), "died"))),
        _tells(Notice, Telling(to_player=lambda event, labels: NoticeLine(event.text))),
        # Turns (worlds played in turns).
        _tells(
            TurnStarted,
            Telling(
                to_player=lambda event, labels: TurnBegins(event.points),
                to_others=lambda event, labels: TurnOf(labels(event.player)),
            ),
        ),
        _tells(
            TurnEnded, Telling(to_player=lambda event, labels: TurnOver(timed_out=event.missed))
        ),
        _tells(HitPointsChanged, Telling(to_player=lambda event, labels: HitMod(event.change))),
        _tells(
            Defeated,
            Telling(
                to_player=lambda event, labels: GameWon(f"{labels(event.winner)} has won the game"),
                ends=_defeated,
            ),
        ),
    )
)
"""Every world event the server knows, and what it becomes (:class:`Telling`). A world
declares the events it emits (:attr:`worlds.api.World.emits`); a test holds each of them
to an entry here."""

_FOUND: dict[type[Event], Telling[Event]] = {}


def telling(event: Event) -> Telling[Event]:
    """How ``event`` is told: its class's entry, or its nearest declared ancestor's (a
    world's own subclass); :class:`TypeError` for an event the server does not know."""
    kind = type(event)
    found = TELLINGS.get(kind) or _FOUND.get(kind)
    if found is None:
        declared = next((base for base in kind.__mro__ if base in TELLINGS), None)
        if declared is None:
            raise TypeError(f"no telling for {event!r}")
        found = _FOUND[kind] = TELLINGS[declared]
    return found


def result_reply(event: ResultEvent) -> Reply:
    """The reply to the action whose outcome ``event`` is (RULES §1)."""
    return telling(event).answer(event)


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
