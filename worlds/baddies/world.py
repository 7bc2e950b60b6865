"""The baddies world: RULES §3 over the protocol, for one hero or several.

The world wraps a :class:`~worlds.baddies.board.Board` and plays rounds with
:func:`~worlds.baddies.rules.play_round`; it adds only what the network needs.

* **Joining.** The first hero to join while the board's start square is free
  takes it, so a single player plays exactly the original's board. Later heroes
  take a random empty square of the three leftmost columns (drawn from the
  world's seed), or of the whole board when those are full; no empty square
  raises :class:`WorldFull`.
* **Actions.** ``MOVE`` in the eight directions; ``STAY``; ``PICKUP`` is a stay
  (the original treats every other key as one). Each call of ``resolve`` is one
  round: the acting heroes (each at most once) move in join order, then the
  baddies.
* **Results.** ``Moved`` when the hero ends on another square (``SUCCESS``),
  ``Blocked`` when a move ends where it began (``FAIL``), ``Stayed`` for ``STAY``
  (``SUCCESS``) and ``NothingToPickUp`` for ``PICKUP`` (``FAIL``). Reaching the
  ladder is ``Moved`` then ``Escaped``; stepping into an abyss or a baddie is
  ``Moved`` then ``Died``; a baddie landing on a hero is ``Died`` for that hero.
  Escaped and dead heroes leave the board (their square is empty, or the
  catching baddie's).
* **Notices** (for clients that asked for extensions): each baddie that fell,
  each catch, each escape and each hero lost to the abyss or a baddie, in the
  order they happened, to everyone still in the game.
* **Views.** ``LOOK`` follows RULES §1 with this world's glyphs: ``X`` corners,
  ``#`` off the board *and* abyss (both squares you must not step into), ``.``
  nothing, ``+`` wall, ``*`` ladder, ``m M ~`` baddies, ``P``/``B`` other heroes.
  ``MAP`` shows the whole board the same way with the viewer as ``@`` (the
  server-wide convention; the console game draws its hero as ``H``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import overload

from dungeon_of_doom.protocol.commands import Move, Pickup, Stay
from dungeon_of_doom.protocol.direction import ALL_DIRECTIONS

from ..api import (
    Action,
    Blocked,
    Died,
    Escaped,
    Event,
    Joined,
    Left,
    Moved,
    NothingToPickUp,
    Notice,
    PlayerId,
    PlayerKind,
    PlayerStatus,
    Position,
    Stayed,
    World,
    WorldError,
    WorldFull,
)
from ..view import look_window
from . import rules
from .board import ABYSS, NAMES, Board
from .generate import SIDE
from .rules import STAY, Step

NOTHING = "."
"""How the protocol shows an empty square (the console game draws a space)."""
SELF = "@"
"""How ``MAP`` shows the viewer, as in every world of this server."""
_RANDOM_TRIES = 16


class _Tiles(Sequence[Sequence[str]]):
    """The board's rows of glyphs for ``look_window``, made one square at a time when read.

    ``look_window`` reads only 25 squares, so a view never builds a whole row. Both
    classes are whole :class:`~collections.abc.Sequence` types, slices included,
    because that is what ``look_window`` takes and may use (issue 20: a row that
    refused slices made ``LOOK`` kill the game).
    """

    __slots__ = ("_board",)

    def __init__(self, board: Board) -> None:
        self._board = board

    def __len__(self) -> int:
        return self._board.rows

    @overload
    def __getitem__(self, row: int) -> _TileRow: ...
    @overload
    def __getitem__(self, row: slice) -> list[_TileRow]: ...
    def __getitem__(self, row: int | slice) -> _TileRow | list[_TileRow]:
        if isinstance(row, slice):
            return [_TileRow(self._board, r) for r in range(*row.indices(len(self)))]
        if not -len(self) <= row < len(self):
            raise IndexError(row)
        return _TileRow(self._board, row % len(self))


class _TileRow(Sequence[str]):
    __slots__ = ("_board", "_row")

    def __init__(self, board: Board, row: int) -> None:
        self._board = board
        self._row = row

    def __len__(self) -> int:
        return self._board.columns

    @overload
    def __getitem__(self, column: int) -> str: ...
    @overload
    def __getitem__(self, column: slice) -> str: ...
    def __getitem__(self, column: int | slice) -> str:
        if isinstance(column, slice):
            return "".join(self._glyph(c) for c in range(*column.indices(len(self))))
        if not -len(self) <= column < len(self):
            raise IndexError(column)
        return self._glyph(column % len(self))

    def _glyph(self, column: int) -> str:
        square = (self._row, column)
        board = self._board
        return board.baddies.get(square) or board.statics.get(square) or NOTHING


class BaddiesWorld(World):
    """A baddies game on one board; see the module docstring."""

    emits = frozenset(
        {Moved, Blocked, Stayed, NothingToPickUp, Joined, Left, Escaped, Died, Notice}
    )
    """The events this world reports (the server tells each as ``server/render.py`` says)."""

    directions = ALL_DIRECTIONS
    allows_stay = True
    has_rounds = True
    help_notes = (
        "Cells: . nothing, + wall, # abyss, * escape ladder, m monster, M super monster, ~ bat.",
        "Reach the ladder (*) to win; an abyss or a baddie ends you. PICKUP is a stay.",
        "Baddies move after every round; lure them into the abyss. In MAP you are @.",
    )

    def __init__(self, board: Board, *, name: str = "baddies", seed: int = 0) -> None:
        self.board = board
        self.name = name
        self._rng = random.Random(seed)
        self._kinds: dict[PlayerId, PlayerKind] = {}
        self._moves: dict[PlayerId, int] = {}

    @property
    def goal(self) -> int:
        return 0

    # -- players --------------------------------------------------------------

    def join(
        self, player: PlayerId, kind: PlayerKind = PlayerKind.HUMAN, *, at: Position | None = None
    ) -> list[Event]:
        """Place a hero (see the module docstring), or on ``at`` for set-ups and tests."""
        board = self.board
        if player in board.heroes:
            raise WorldError(f"player {player} is already in the world")
        if at is None:
            square = board.start if self._empty(board.start) else self._free_square()
        elif board.on_board(at) and self._empty(at):
            square = at
        else:
            raise WorldError(f"cannot place a hero on {at}")
        board.heroes[player] = square
        self._kinds[player] = kind
        self._moves[player] = 0
        return [Joined(player, square)]

    def _empty(self, square: Position) -> bool:
        board = self.board
        return (
            square not in board.statics
            and square not in board.baddies
            and square not in board.heroes.values()
        )

    def _free_square(self) -> Position:
        board = self.board
        side = min(SIDE, board.columns)
        for _ in range(_RANDOM_TRIES):
            square = (self._rng.randrange(board.rows), self._rng.randrange(side))
            if self._empty(square):
                return square
        for columns in (range(side), range(board.columns)):
            free = [(r, c) for r in range(board.rows) for c in columns if self._empty((r, c))]
            if free:
                return free[self._rng.randrange(len(free))]
        raise WorldFull("there is no empty square left on this board")

    def leave(self, player: PlayerId) -> list[Event]:
        if self.board.heroes.pop(player, None) is None:
            return []
        self._forget(player)
        return [Left(player)]

    def _forget(self, player: PlayerId) -> int:
        """Drop what the world keeps about a hero who left; returns their move count."""
        del self._kinds[player]
        return self._moves.pop(player)

    def status(self, player: PlayerId) -> PlayerStatus | None:
        square = self.board.heroes.get(player)
        if square is None:
            return None
        return PlayerStatus(square, 0, self._moves[player])

    def __contains__(self, player: object) -> bool:
        return player in self.board.heroes

    # -- rounds -----------------------------------------------------------------

    def resolve(self, actions: Sequence[tuple[PlayerId, Action]]) -> list[Event]:
        """One round: every acting hero (each at most once), in join order, then the baddies."""
        steps: dict[PlayerId, Step] = {}
        chosen: dict[PlayerId, Action] = {}
        for player, action in actions:
            if player not in self.board.heroes:
                raise WorldError(f"player {player} is not in the world")
            if player in steps:
                raise WorldError(f"player {player} acts twice in one round")
            if isinstance(action, Move):
                direction = action.direction
                steps[player] = (direction.row_step, direction.column_step)
            elif isinstance(action, Stay | Pickup):
                steps[player] = STAY
            else:
                raise WorldError(f"unknown action {action!r}")
            chosen[player] = action
        for player in steps:
            self._moves[player] += 1
        events: list[Event] = []
        for fact in rules.play_round(self.board, steps):
            self._report(fact, chosen, events)
        return events

    def _report(
        self, fact: rules.Fact, chosen: dict[PlayerId, Action], events: list[Event]
    ) -> None:
        match fact:
            case rules.HeroMoved(player, origin, target):
                events.append(Moved(player, origin, target))
            case rules.HeroStayed(player, _, reason):
                action = chosen[player]
                if type(action) is Move:
                    events.append(Blocked(player, reason))
                elif type(action) is Pickup:
                    events.append(NothingToPickUp(player))
                else:
                    events.append(Stayed(player))
            case rules.Escaped(player, origin, ladder):
                events.append(Moved(player, origin, ladder))
                moves = self._forget(player)
                text = f"Hero Escaped! You reached the ladder in {moves} moves."
                events.append(Escaped(player, 0, moves, text))
                events.append(Notice(None, f"A hero escaped by the ladder at {_where(ladder)}."))
            case rules.HeroFell(player, origin, square, into):
                events.append(Moved(player, origin, square))
                self._forget(player)
                what = "fell into the abyss" if into == ABYSS else f"ran into a {NAMES[into]}"
                events.append(Died(player, f"Hero did not escape... You {what}."))
                events.append(Notice(None, f"A hero {what} at {_where(square)}."))
            case rules.Caught(player, baddie, _, square):
                self._forget(player)
                name = NAMES[baddie]
                events.append(Died(player, f"Hero did not escape... A {name} caught you."))
                events.append(Notice(None, f"A {name} caught a hero at {_where(square)}."))
            case rules.BaddieFell(baddie, _, square):
                text = f"A {NAMES[baddie]} fell into the abyss at {_where(square)}."
                events.append(Notice(None, text))

    # -- views --------------------------------------------------------------------

    def _others(self, viewer: PlayerId | None) -> dict[Position, str]:
        return {
            square: self._kinds[player].value
            for player, square in self.board.heroes.items()
            if player != viewer
        }

    def look(self, player: PlayerId) -> tuple[str, ...]:
        square = self.board.heroes.get(player)
        if square is None:
            raise WorldError(f"player {player} is not in the world")
        return look_window(_Tiles(self.board), *square, self._others(player))

    def render(self, viewer: PlayerId | None = None) -> tuple[str, ...]:
        heroes = self._others(viewer)
        me = self.board.heroes.get(viewer) if viewer is not None else None
        if me is not None:
            heroes[me] = SELF
        return tuple(self.board.drawing(NOTHING, heroes))


def _where(square: Position) -> str:
    return f"row {square[0]}, column {square[1]}"
