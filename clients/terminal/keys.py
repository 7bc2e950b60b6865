"""Which key does what, world by world: pure data, no terminal.

Keys are named as the terminal library reports them (``"w"``, ``"up"``,
``"question_mark"``, ``"ctrl+q"``). What a caller may rely on:

* :func:`keymap_for` gives the :class:`Keymap` of a world by name; a world it
  does not know gets a layout built from what the server's ``HELP`` offers
  (its directions, whether ``STAY`` exists), so every world is playable.
* In every keymap ``?`` is help, ``:`` (and Enter) the command line, ``t`` chat,
  ``r`` redraw, and ``Esc``, ``Ctrl-Q`` and ``Ctrl-C`` quit (the caller asks
  for a confirmation). ``q`` quits too, except where ``q`` is a move.
* A spectator's keymap (:func:`spectator_keymap`) has no moves.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from dungeon_of_doom.protocol.direction import Direction

__all__ = [
    "Action",
    "Keymap",
    "Verb",
    "key_label",
    "keymap_for",
    "spectator_keymap",
]


class Verb(enum.Enum):
    """What a key asks for."""

    MOVE = "move"
    STAY = "stay"
    PICKUP = "pickup"
    QUIT = "quit"
    HELP = "help"
    COMMAND = "command"
    CHAT = "chat"
    REDRAW = "redraw"


TURNS = frozenset({Verb.MOVE, Verb.STAY, Verb.PICKUP})

_COMPASS = {
    Direction.N: "north",
    Direction.NE: "north-east",
    Direction.E: "east",
    Direction.SE: "south-east",
    Direction.S: "south",
    Direction.SW: "south-west",
    Direction.W: "west",
    Direction.NW: "north-west",
}


@dataclass(frozen=True, slots=True)
class Action:
    """One thing a key does; ``direction`` is set for moves only."""

    verb: Verb
    direction: Direction | None = None

    @property
    def is_turn(self) -> bool:
        """True for what the server counts as a move (and, in worlds with rounds, a turn)."""
        return self.verb in TURNS

    @property
    def protocol_line(self) -> str | None:
        """The command a turn sends (``MOVE NE``, ``STAY``, ``PICKUP``); ``None`` otherwise."""
        if self.verb is Verb.MOVE and self.direction is not None:
            return f"MOVE {self.direction.name}"
        if self.verb in (Verb.STAY, Verb.PICKUP):
            return self.verb.name
        return None

    def describe(self) -> str:
        if self.verb is Verb.MOVE and self.direction is not None:
            return f"move {_COMPASS[self.direction]} (MOVE {self.direction.name})"
        return {
            Verb.STAY: "stay: let a turn pass (STAY)",
            Verb.PICKUP: "pick up what lies here (PICKUP)",
            Verb.QUIT: "quit (asks first)",
            Verb.HELP: "this help",
            Verb.COMMAND: "command line: type any protocol command",
            Verb.CHAT: "chat: shout to everyone in the game",
            Verb.REDRAW: "ask for the map again",
        }[self.verb]


def _move(direction: Direction) -> Action:
    return Action(Verb.MOVE, direction)


STAY = Action(Verb.STAY)
PICKUP = Action(Verb.PICKUP)
QUIT = Action(Verb.QUIT)

_LABELS = {
    "up": "↑",
    "down": "↓",
    "left": "←",
    "right": "→",
    "question_mark": "?",
    "colon": ":",
    "enter": "Enter",
    "escape": "Esc",
    "ctrl+q": "Ctrl-Q",
    "ctrl+c": "Ctrl-C",
    "space": "Space",
}


def key_label(key: str) -> str:
    """How a key is written for people: ``"question_mark"`` is ``?``, ``"up"`` is ``↑``."""
    return _LABELS.get(key, key)


@dataclass(frozen=True, slots=True)
class Keymap:
    """The keys of one world (or of a spectator); ``title`` names it in the help."""

    title: str
    bindings: Mapping[str, Action] = field(default_factory=dict)

    def action(self, key: str) -> Action | None:
        """What ``key`` does here, or ``None``."""
        return self.bindings.get(key)

    def help_lines(self) -> list[str]:
        """One line per action, its keys first, in the order they were bound."""
        keys_of: dict[Action, list[str]] = {}
        for key, action in self.bindings.items():
            keys_of.setdefault(action, []).append(key_label(key))
        width = max((len(" ".join(keys)) for keys in keys_of.values()), default=0)
        return [
            f"{' '.join(keys):<{width}}  {action.describe()}" for action, keys in keys_of.items()
        ]


_ARROWS = {
    "up": _move(Direction.N),
    "left": _move(Direction.W),
    "down": _move(Direction.S),
    "right": _move(Direction.E),
}
_WASD = {
    "w": _move(Direction.N),
    "a": _move(Direction.W),
    "s": _move(Direction.S),
    "d": _move(Direction.E),
}
# The baddies console game's nine keys: the square of keys around "s" points the way.
_NINE = {
    "q": _move(Direction.NW),
    "w": _move(Direction.N),
    "e": _move(Direction.NE),
    "a": _move(Direction.W),
    "s": STAY,
    "d": _move(Direction.E),
    "z": _move(Direction.SW),
    "x": _move(Direction.S),
    "c": _move(Direction.SE),
}
_COMMON = {
    "question_mark": Action(Verb.HELP),
    "colon": Action(Verb.COMMAND),
    "enter": Action(Verb.COMMAND),
    "t": Action(Verb.CHAT),
    "r": Action(Verb.REDRAW),
    "escape": QUIT,
    "ctrl+q": QUIT,
    "ctrl+c": QUIT,
}


def _only(bindings: Mapping[str, Action], directions: Iterable[Direction]) -> dict[str, Action]:
    allowed = set(directions)
    return {
        key: action
        for key, action in bindings.items()
        if action.verb is not Verb.MOVE or action.direction in allowed
    }


def _four_way(title: str, directions: Iterable[Direction], extra: Mapping[str, Action]) -> Keymap:
    directions = list(directions)
    moves = _only(_ARROWS, directions) | _only(_WASD, directions)
    return Keymap(title, moves | dict(extra) | {"q": QUIT} | _COMMON)


def _nine_key(title: str, directions: Iterable[Direction]) -> Keymap:
    directions = list(directions)
    return Keymap(title, _only(_NINE, directions) | _only(_ARROWS, directions) | _COMMON)


_CARDINAL = (Direction.N, Direction.W, Direction.S, Direction.E)

_KNOWN: dict[str, Keymap] = {
    "classic": _four_way("classic", _CARDINAL, {"p": PICKUP}),
    "crawler": _four_way("crawler", _CARDINAL, {"e": STAY}),
    "baddies": _nine_key("baddies", Direction),
    "knight": _four_way("knight", (Direction.S, Direction.E), {}),
}


def keymap_for(
    world: str | None,
    *,
    directions: Iterable[Direction] = _CARDINAL,
    stay: bool = False,
) -> Keymap:
    """The keymap of ``world``; for a world not known here, one built from its offer.

    ``directions`` and ``stay`` are what the server's ``HELP`` lists; they are used
    only for worlds this module does not know. A world with diagonal moves gets
    the nine-key layout (``s`` stays), any other the four-way one (``e`` stays when
    the world has ``STAY``); both get ``p`` for ``PICKUP`` when ``p`` is free.
    """
    if world in _KNOWN:
        return _KNOWN[world]
    directions = list(directions)
    title = world or "this"
    if any(direction.is_diagonal for direction in directions):
        keymap = _nine_key(title, directions)
        return Keymap(title, {**keymap.bindings, "p": PICKUP})
    extra = {"p": PICKUP} | ({"e": STAY} if stay else {})
    return _four_way(title, directions, extra)


def spectator_keymap() -> Keymap:
    """The keys of a spectator: no moves, ``q`` quits."""
    return Keymap("spectator", {"q": QUIT} | _COMMON)
