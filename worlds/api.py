"""The world-plugin interface: what a world must do, and the events it reports.

A *world* is one running game's rules and state. It is pure, deterministic code:
no sockets, no trio, no clock, no global random state. Given the same map, seed
and sequence of calls it produces the same events, so a game can be replayed
exactly. The server owns the network; it asks the world to do things and turns
the events the world returns into replies.

A *plugin* makes worlds. It is found through the Python entry-point group
``dungeon_of_doom.worlds`` (see :mod:`worlds.registry`): a package that declares::

    [project.entry-points."dungeon_of_doom.worlds"]
    maze = "my_package.maze:plugin"

adds a ``maze`` world to every server it is installed beside. ``docs/worlds.md``
walks through writing one.

The contract, in order of a game:

1. ``plugin.open(map_spec, seed=..., limits=...)`` loads a map (``None`` means
   the plugin's own default; the server passes ``None`` for the spec
   :data:`DEFAULT_MAP_SPEC`, which ``GAMES`` shows for a game on it) and returns a
   :class:`World`. What the spec may name is resolved by :mod:`worlds.mapspec`,
   within the :class:`~worlds.limits.Limits` given (sizes, levels, growth, files):
   the server passes its clients' limits for ``CREATE``; without ``limits`` a plugin uses
   :data:`~worlds.limits.OPERATOR_LIMITS`. Bad maps, and specs past a limit, raise
   :class:`worlds.errors.MapError` before anything large is made.
2. ``world.join(player, kind)`` places a new player and returns events, the first
   being :class:`Joined`. A world with no room raises :class:`WorldFull`.
3. ``world.resolve([(player, action), ...])`` applies actions in the order given,
   then lets the world move on its own (monsters, bats) if it does, and returns
   what happened. Every action produces exactly one *result* event for its player
   (:class:`Moved`, :class:`Blocked`, :class:`Stayed`, :class:`PickedUp`,
   :class:`NothingToPickUp`), in the order of the actions; other events may come
   between and after them. A world with ``has_rounds`` expects every acting
   player at most once per call; a world without it is called once per action.
4. A player who escapes or dies is reported by :class:`Escaped` or :class:`Died`
   and is then no longer in the world. ``world.leave(player)`` removes a player
   who disconnects; it is harmless for a player already gone.
5. ``world.unwinnable()`` says, after each change, whether nobody still in the
   world can win any more (the gold needed is gone, say): the server then ends the
   game for every remaining player with ``LOSE`` and that sentence. The 2013
   specification names the conundrum ("there may be no way to win the game if your
   bot has collected all the gold"); this is its way out.
6. ``world.look(player)`` and ``world.render(viewer)`` draw views, and
   ``world.witnesses(viewer, event)`` says who witnessed another's action
   (``SAW``), by default whoever :meth:`~World.sees` a square of it; none of
   them change anything.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import (
    Any,
    ClassVar,
    Final,
    Generic,
    NoReturn,
    Protocol,
    TypeAlias,
    TypeVar,
    cast,
    runtime_checkable,
)

from protocol.commands import Attack, EndTurn, Move, Pickup, Stay
from protocol.direction import CARDINAL, Direction
from protocol.replies import LOOK_SIZE, Lose, Push, Reply, Win

from .limits import Limits

__all__ = [
    "DEFAULT_MAP_SPEC",
    "SIGHT",
    "Action",
    "Blocked",
    "Died",
    "Ending",
    "Escaped",
    "Event",
    "Joined",
    "Labels",
    "Left",
    "Moved",
    "NothingToPickUp",
    "Notice",
    "PickedUp",
    "PlayerId",
    "PlayerKind",
    "PlayerStatus",
    "Position",
    "ResultEvent",
    "Stayed",
    "Telling",
    "World",
    "WorldError",
    "WorldFull",
    "WorldPlugin",
    "moved",
    "told_as",
]

PlayerId: TypeAlias = int
Position: TypeAlias = tuple[int, int]
"""(row, column), zero-based, row 0 at the top."""

Action: TypeAlias = Move | Pickup | Stay | Attack | EndTurn
"""What a player can do to a world: the protocol's own command objects.

A world refuses (with :class:`WorldError`) the ones its rules do not have, such
as ``ATTACK`` outside a turn-based world."""

SIGHT: Final = LOOK_SIZE // 2
"""How far a player sees by default, each way: the 5×5 ``LOOK`` window."""
DEFAULT_MAP_SPEC: Final = "default"
"""The map spec that names a world's default map, in every world (``CREATE g crawler
map=default`` is the crawler's tutorial): ``GAMES`` shows it for a game on that map."""


class PlayerKind(enum.Enum):
    """Who drives a player; ``value`` is how other players see them in ``LOOK``."""

    HUMAN = "P"
    BOT = "B"


class WorldError(Exception):
    """A request the world cannot honour; ``str()`` is a message for the player."""


class WorldFull(WorldError):
    """No free square is left to place a new player on."""


# -- events ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened. ``player`` is whom it concerns, ``None`` for everyone."""

    player: PlayerId | None


@dataclass(frozen=True, slots=True)
class ResultEvent(Event):
    """The outcome of one action, for the player who acted."""

    player: PlayerId


@dataclass(frozen=True, slots=True)
class Moved(ResultEvent):
    """The player moved (``MOVE`` answers ``SUCCESS``)."""

    origin: Position
    target: Position


_new_event = object.__new__
# The slots' own setters (``player`` is Event's slot; the other two Moved's).
_set_player = Event.__dict__["player"].__set__
_set_origin = Moved.__dict__["origin"].__set__
_set_target = Moved.__dict__["target"].__set__


def moved(player: PlayerId, origin: Position, target: Position) -> Moved:
    """``Moved(player, origin, target)``, equal to it, for a world's hot path: built
    through its slots, without the frozen dataclass's ``__init__`` (a Python
    ``__init__`` called from C, and ``object.__setattr__`` looked up for each field,
    cost a move about as much as the rest of the classic world's work on it)."""
    event = _new_event(Moved)
    _set_player(event, player)
    _set_origin(event, origin)
    _set_target(event, target)
    return event


@dataclass(frozen=True, slots=True)
class Blocked(ResultEvent):
    """The player tried to move and stayed (``MOVE`` answers ``FAIL``)."""

    reason: str


_set_reason = Blocked.__dict__["reason"].__set__


def blocked(player: PlayerId, reason: str) -> Blocked:
    """``Blocked(player, reason)``, equal to it, built through its slots as
    :func:`moved` is: bots walk into walls and each other as often as they move."""
    event = _new_event(Blocked)
    _set_player(event, player)
    _set_reason(event, reason)
    return event


@dataclass(frozen=True, slots=True)
class Stayed(ResultEvent):
    """The player stayed on purpose (``STAY`` answers ``SUCCESS``)."""


@dataclass(frozen=True, slots=True)
class PickedUp(ResultEvent):
    """The player picked something up.

    ``PICKUP`` answers ``SUCCESS, GOLD COINS: <gold>`` when ``is_gold``, else
    ``SUCCESS``.
    """

    item: str
    gold: int
    is_gold: bool = True


@dataclass(frozen=True, slots=True)
class NothingToPickUp(ResultEvent):
    """``PICKUP`` found nothing (``FAIL``)."""


@dataclass(frozen=True, slots=True)
class Joined(Event):
    player: PlayerId
    position: Position


@dataclass(frozen=True, slots=True)
class Left(Event):
    player: PlayerId


@dataclass(frozen=True, slots=True)
class Escaped(Event):
    """The player won and left the world. ``text`` is told to them."""

    player: PlayerId
    gold: int
    moves: int
    text: str


@dataclass(frozen=True, slots=True)
class Died(Event):
    """The player died and left the world. ``text`` is told to them."""

    player: PlayerId
    text: str


@dataclass(frozen=True, slots=True)
class Notice(Event):
    """A sentence about the game, for players who asked for extensions."""

    text: str


# -- how an event is told ------------------------------------------------------------

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
    """What one kind of event becomes, for players and for whoever watches (the
    server's table of them is ``server/game/wording.py``'s ``TELLINGS``; a world adds
    its own events' in :attr:`World.tellings`):

    * ``sentence``: the event in words for a watcher (the web page's viewer, a
      replay's story), given how players are shown and the world's goal, or ``None``
      when it is not worth a sentence (the board shows a move). It has no default:
      every kind of event says what it says, or that it says nothing.
    * ``answer``: the reply to the action whose result the event is, sent to the player
      who acted; everyone in the audience who could see the actor is pushed ``SAW``;
    * ``to_player``: pushed to the player the event concerns, if it asked for events
      (to the whole audience when the event concerns everyone: ``player`` is ``None``);
    * ``to_others``: pushed to everyone else in the audience;
    * ``ends``: the player's game is over, with this final line.

    Exactly the results of actions (:class:`ResultEvent`) have an ``answer``:
    :attr:`answers`.
    """

    sentence: Callable[[_E, Labels, int], str] | None
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


def told_as(kind: type[_E], telling: Telling[_E]) -> tuple[type[Event], Telling[Event]]:
    """One entry of a table of tellings. A table is looked up by the event's own class
    (or its nearest declared ancestor), so ``telling`` only ever gets a ``kind``; the
    cast records that invariant."""
    return kind, cast(Telling[Event], telling)


@dataclass(frozen=True, slots=True)
class PlayerStatus:
    """What a world tells about one player, for status lines and logs."""

    position: Position
    gold: int
    moves: int


# -- the interface ----------------------------------------------------------------


class World(abc.ABC):
    """One game's rules and state. See the module docstring for the contract."""

    #: The ``MOVE`` directions this world accepts.
    directions: ClassVar[frozenset[Direction]] = CARDINAL
    #: Whether ``STAY`` is an action here.
    allows_stay: ClassVar[bool] = False
    #: Whether non-player characters move, so that actions are grouped in rounds.
    has_rounds: ClassVar[bool] = False
    #: What ``HELP`` says about this world: its glyphs, and what its commands mean here.
    help_notes: ClassVar[tuple[str, ...]] = ()
    #: Characters one square takes in a row of :meth:`render` (a world drawing squares
    #: as numbers pads them to one width); a square's column ``c`` is the characters
    #: from ``c * cell_width``.
    cell_width: int = 1
    #: Whether the world is played in turns (a :class:`worlds.turns.TurnBasedWorld`).
    has_turns: ClassVar[bool] = False
    #: Every kind of event the world may report; the server knows how to tell each
    #: (``server/game/wording.py``), and a test holds both to it. The default is the shared
    #: events of this module.
    emits: ClassVar[frozenset[type[Event]]] = frozenset(
        {Moved, Blocked, Stayed, PickedUp, NothingToPickUp, Joined, Left, Escaped, Died, Notice}
    )
    #: How the world's own kinds of event are told (:class:`Telling`, by the event's
    #: class): every kind it :attr:`emits` that the server does not know
    #: (``server/game/wording.py``'s ``TELLINGS``) must be here, and a test holds it so.
    tellings: ClassVar[Mapping[type[Event], Telling[Any]]] = {}

    @property
    @abc.abstractmethod
    def goal(self) -> int:
        """The gold needed to win, as ``HELLO`` reports it."""

    @abc.abstractmethod
    def join(self, player: PlayerId, kind: PlayerKind = PlayerKind.HUMAN) -> list[Event]:
        """Place a new player (ids are chosen by the caller and never reused)."""

    @abc.abstractmethod
    def leave(self, player: PlayerId) -> list[Event]:
        """Remove a player; returns ``[]`` if the player is not in the world."""

    @abc.abstractmethod
    def resolve(self, actions: Sequence[tuple[PlayerId, Action]]) -> list[Event]:
        """Apply the actions in order, then whatever the world does by itself."""

    @abc.abstractmethod
    def look(self, player: PlayerId) -> tuple[str, ...]:
        """The 5×5 view around the player: five strings of five characters."""

    def look_bytes(self, player: PlayerId) -> bytes | None:
        """:meth:`look` as the bytes of its rows, each ended by ``LF``; ``None`` by default.

        A world that keeps its map as bytes may draw its view straight from them,
        for the commonest command. The server sends these bytes as they are
        (:meth:`protocol.replies.LookReply.drawn`), so they must be exactly the rows
        :meth:`look` would give, in ASCII. ``None``: the server uses :meth:`look`.
        """
        return None

    @abc.abstractmethod
    def render(self, viewer: PlayerId | None = None) -> tuple[str, ...]:
        """The whole map as rows of equal length; ``viewer`` ``None`` is a spectator."""

    @abc.abstractmethod
    def status(self, player: PlayerId) -> PlayerStatus | None:
        """The player's state, or ``None`` if they are not in the world."""

    def levels(self) -> tuple[tuple[str, ...], ...]:
        """What a spectator sees of every level in play, level 1 first; the default is
        one level, :meth:`render` for a spectator. A world of several levels gives each
        (a spectator's ``BOARD`` capability shows them all)."""
        return (self.render(None),)

    def level_of(self, player: PlayerId) -> int | None:
        """The level (from 1) the player is on, ``None`` if they are not in the world;
        its :meth:`status` position is on that level of :meth:`levels`."""
        return None if self.status(player) is None else 1

    def details(self, player: PlayerId) -> dict[str, int]:
        """What else a spectator may know of the player, by short lower-case names
        (``hp``, ``ap``, ``health``); ``{}`` by default."""
        return {}

    def sees(self, viewer: PlayerId, square: Position) -> bool:
        """Whether ``viewer`` sees ``square`` from where they stand now.

        The default is the 5×5 ``LOOK`` window; a world whose players see
        otherwise (the battle world's diamond and lantern) overrides it.
        A viewer not in the world sees nothing.
        """
        me = self.status(viewer)
        if me is None:
            return False
        row, column = me.position
        return abs(square[0] - row) <= SIGHT and abs(square[1] - column) <= SIGHT

    def witnesses(self, viewer: PlayerId, event: ResultEvent) -> bool:
        """Whether ``viewer`` witnessed another player's action whose result is ``event``.

        The server asks this after ``resolve`` returns, for each result event and
        each player listening for ``SAW`` pushes: the world decides, since only it
        knows what stands between two players (levels, walls, darkness). The
        default suits a flat map: the viewer :meth:`sees` a square the actor stood
        on (for :class:`Moved`, where they came from or went; otherwise where
        they are now). An actor no longer in the world is seen only by its moves.
        """
        if isinstance(event, Moved):
            return self.sees(viewer, event.origin) or self.sees(viewer, event.target)
        actor = self.status(event.player)
        return actor is not None and self.sees(viewer, actor.position)

    def unwinnable(self) -> str | None:
        """Why no player still in the world can win any more, as a sentence for them;
        ``None`` while a win is possible (the default: a world where each player can
        always still win on their own, or with nobody in it). A world that could not
        be won from the start (a dungeon made without treasure) answers ``None`` too:
        that is its author's choice, and nothing anyone did made it so.

        The server asks after every change it makes (actions, joins, leaves), so it
        must be cheap when a win is plainly still possible. A world answering a
        sentence must keep answering one until its players have left: the server
        then ends the game for each of them with ``LOSE`` and the sentence.
        """
        return None

    def __contains__(self, player: object) -> bool:
        return isinstance(player, int) and self.status(player) is not None


@runtime_checkable
class WorldPlugin(Protocol):
    """What an entry point of ``dungeon_of_doom.worlds`` must load to.

    ``name`` and ``summary`` are read, never written: a plain attribute or a
    property serves.
    """

    @property
    def name(self) -> str:
        """The name users type (``--world classic``)."""
        ...

    @property
    def summary(self) -> str:
        """One line about the rules."""
        ...

    def open(self, map_spec: str | None, *, seed: int, limits: Limits = ...) -> World:
        """A fresh world on the given map (``None``: the default map), within ``limits``.

        ``limits`` defaults to :data:`~worlds.limits.OPERATOR_LIMITS`.
        """
        ...

    def maps(self) -> list[str]:
        """Names of the maps shipped with the plugin, usable as ``map_spec``."""
        ...
