"""One round of the baddies game (RULES §3), as a pure function over a :class:`Board`.

:func:`play_round` changes the board it is given and returns the facts of the
round, in the order they happened. A planner copies the board first
(``board.copy()``) and may play as many rounds as it likes; the world and the
console game use this same function, so all three follow exactly the same rules.

A round, for heroes moving by (row step, column step), ``(0, 0)`` being a stay:

1. Each hero who acts, in join order: the edge rule (row, then column: a
   component that leaves the board is dropped), then the wall rule (a wall
   target drops the horizontal component; a wall again means stay), then the
   square is judged: ladder → escaped, abyss or baddie → dead (the baddie stays
   put), another hero → stays (our rule), nothing → moves.
2. If no hero is left, the round ends. Otherwise the heroes' squares are fixed as
   the targets, and every baddie is visited once in row-major order of where it
   stood when the round began (the original's scan with its "moved" mark). It
   aims at the nearest target hero (Chebyshev distance; ties go to the hero who
   joined first): a monster one step on each unaligned axis, a super monster two,
   a bat to the target's column in its own row. Edge rule, then wall rule with the
   ladder as a wall, then: abyss → gone; another baddie (or itself) → stays; a
   hero → that hero is caught and the baddie takes the square; nothing → moves.
   The round goes on after a catch, later baddies still aiming at the targets.

The cost is in proportion to the number of baddies (times the number of heroes),
never to rows × columns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

from .board import ABYSS, BAT, LADDER, POWER, WALL, Board, HeroId, Position

Step: TypeAlias = tuple[int, int]
"""A hero's move as (row step, column step), each -1, 0 or 1; ``(0, 0)`` stays."""
Axis: TypeAlias = Literal["row", "column"]

STAY: Final[Step] = (0, 0)
EDGE: Final = "the edge of the board"
BARRIER: Final = "a wall"
ANOTHER_HERO: Final = "another hero"
_BADDIE_BARRIERS: Final = frozenset({WALL, LADDER})


@dataclass(frozen=True, slots=True)
class OffBoard:
    """A move's ``axis`` component left the board and was dropped.

    ``hero`` is the hero who moved, ``None`` for a baddie; ``square`` is where the
    mover stood.
    """

    hero: HeroId | None
    square: Position
    axis: Axis


@dataclass(frozen=True, slots=True)
class Barrier:
    """A move ended on a barrier (a wall, or for baddies the ladder too); the fallback ran."""

    hero: HeroId | None
    square: Position


@dataclass(frozen=True, slots=True)
class HeroMoved:
    hero: HeroId
    origin: Position
    target: Position


@dataclass(frozen=True, slots=True)
class HeroStayed:
    """The hero ends the step where it began; ``reason`` is ``""`` for a chosen stay."""

    hero: HeroId
    square: Position
    reason: str


@dataclass(frozen=True, slots=True)
class Escaped:
    """The hero reached ``ladder`` from ``origin`` and left the board."""

    hero: HeroId
    origin: Position
    ladder: Position


@dataclass(frozen=True, slots=True)
class HeroFell:
    """The hero moved into ``into`` (``#`` the abyss, or a baddie's glyph) and is gone."""

    hero: HeroId
    origin: Position
    square: Position
    into: str


@dataclass(frozen=True, slots=True)
class BaddieFell:
    """The baddie ``baddie`` (its glyph) moved from ``origin`` into the abyss at ``square``."""

    baddie: str
    origin: Position
    square: Position


@dataclass(frozen=True, slots=True)
class Caught:
    """The baddie ``baddie`` moved from ``origin`` onto ``hero`` at ``square``."""

    hero: HeroId
    baddie: str
    origin: Position
    square: Position


Fact: TypeAlias = (
    OffBoard | Barrier | HeroMoved | HeroStayed | Escaped | HeroFell | BaddieFell | Caught
)


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)


def _nearest(square: Position, targets: list[Position]) -> Position:
    row, column = square
    best = targets[0]
    best_distance = max(abs(best[0] - row), abs(best[1] - column))
    for target in targets[1:]:
        distance = max(abs(target[0] - row), abs(target[1] - column))
        if distance < best_distance:
            best, best_distance = target, distance
    return best


def play_round(board: Board, moves: Mapping[HeroId, Step]) -> list[Fact]:
    """Play one round on ``board`` (changed in place) and return its facts in order.

    ``moves`` gives the step of each hero who acts this round; heroes not in it
    do not move (but can still be caught). Heroes act in join order, whatever the
    order of ``moves``. Raises ``KeyError`` for a hero that is not on the board.
    """
    for hero in moves:
        if hero not in board.heroes:
            raise KeyError(hero)
    facts: list[Fact] = []
    for hero in list(board.heroes):
        if hero in moves:
            _hero_step(board, hero, moves[hero], facts)
    if board.heroes:
        _baddie_pass(board, facts)
    return facts


def _hero_step(board: Board, hero: HeroId, step: Step, facts: list[Fact]) -> None:
    origin = board.heroes[hero]
    row, column = origin
    new_row, new_column = row + step[0], column + step[1]
    reason = ""
    if not 0 <= new_row < board.rows:
        facts.append(OffBoard(hero, origin, "row"))
        new_row, reason = row, EDGE
    if not 0 <= new_column < board.columns:
        facts.append(OffBoard(hero, origin, "column"))
        new_column, reason = column, EDGE
    statics = board.statics
    if statics.get((new_row, new_column)) == WALL:
        facts.append(Barrier(hero, origin))
        new_column, reason = column, BARRIER
        if statics.get((new_row, column)) == WALL:
            new_row = row
    target = (new_row, new_column)
    if target == origin:
        facts.append(HeroStayed(hero, origin, reason))
        return
    piece = statics.get(target)
    if piece == LADDER:
        del board.heroes[hero]
        facts.append(Escaped(hero, origin, target))
    elif piece == ABYSS:
        del board.heroes[hero]
        facts.append(HeroFell(hero, origin, target, ABYSS))
    elif target in board.baddies:
        del board.heroes[hero]
        facts.append(HeroFell(hero, origin, target, board.baddies[target]))
    elif target in board.heroes.values():
        facts.append(HeroStayed(hero, origin, ANOTHER_HERO))
    else:
        board.heroes[hero] = target
        facts.append(HeroMoved(hero, origin, target))


def _baddie_pass(board: Board, facts: list[Fact]) -> None:
    targets = list(board.heroes.values())
    alone = targets[0] if len(targets) == 1 else None
    hero_at = {square: hero for hero, square in board.heroes.items()}
    baddies = board.baddies
    statics = board.statics
    rows, columns = board.rows, board.columns
    # Unmoved baddies stand where they began, so visiting the starting squares in
    # row-major order and skipping baddies already moved is the original's scan.
    moved: set[Position] = set()
    # A numeric key sorts several times faster than comparing the tuples themselves.
    for origin in sorted(baddies, key=lambda square: square[0] * columns + square[1]):
        glyph = baddies.get(origin)
        if glyph is None or origin in moved:
            continue
        row, column = origin
        aim_row, aim_column = alone or _nearest(origin, targets)
        if glyph == BAT:
            new_row, new_column = row, aim_column
        else:
            power = POWER[glyph]
            new_row = row + power * _sign(aim_row - row)
            new_column = column + power * _sign(aim_column - column)
        if not 0 <= new_row < rows:
            facts.append(OffBoard(None, origin, "row"))
            new_row = row
        if not 0 <= new_column < columns:
            facts.append(OffBoard(None, origin, "column"))
            new_column = column
        piece = statics.get((new_row, new_column))
        if piece in _BADDIE_BARRIERS:
            facts.append(Barrier(None, origin))
            new_column = column
            piece = statics.get((new_row, column))
            if piece in _BADDIE_BARRIERS:
                new_row, piece = row, None
        target = (new_row, new_column)
        if piece == ABYSS:
            del baddies[origin]
            facts.append(BaddieFell(glyph, origin, target))
        elif target in baddies:
            continue
        else:
            hero = hero_at.pop(target, None)
            if hero is not None:
                del board.heroes[hero]
                facts.append(Caught(hero, glyph, origin, target))
            del baddies[origin]
            baddies[target] = glyph
            moved.add(target)
