"""The RULES §4 checker: every way a dungeon can break the rules, each with its place.

:func:`validate` returns a list of :class:`Violation` (empty for a good dungeon)
in a fixed order: room count, then per room its size, its place on the map and
its squares, then rooms that touch, then the border, then connectivity. Each
violation names its rule and, where the fault has a place, the square
(row, column). It works on any :class:`~mapgen.dungeon.Dungeon`, generated or
hand-made, in time linear in the number of squares.

What is checked:

* at least five rooms (:attr:`Rule.ROOM_COUNT`);
* every room at least 3 wide and 2 tall (:attr:`Rule.ROOM_SIZE`);
* every room inside the map, every square of a room's rectangle room floor, and
  no room floor outside the rooms (:attr:`Rule.ROOM_SHAPE`);
* no corridor inside a room (:attr:`Rule.CORRIDOR_IN_ROOM`);
* at least one square of non-room between two rooms, diagonals included
  (:attr:`Rule.ROOMS_TOUCH`);
* rock on every outermost square (:attr:`Rule.BORDER`);
* every floor square reachable from every other, four ways
  (:attr:`Rule.CONNECTED`): each part cut off from the first floor square is
  reported once, by its first square in reading order and its size.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .dungeon import CORRIDOR, ROCK, ROOM, Dungeon, Position
from .settings import MIN_ROOM_HEIGHT, MIN_ROOM_WIDTH, MIN_ROOMS

__all__ = ["Rule", "Violation", "validate"]


class Rule(enum.Enum):
    ROOM_COUNT = "room count"
    ROOM_SIZE = "room size"
    ROOM_SHAPE = "room shape"
    CORRIDOR_IN_ROOM = "corridor in room"
    ROOMS_TOUCH = "rooms touch"
    BORDER = "rock border"
    CONNECTED = "connectivity"


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule; ``position`` is ``None`` when the fault has no single square."""

    rule: Rule
    position: Position | None
    message: str

    def __str__(self) -> str:
        where = "" if self.position is None else f"({self.position[0]}, {self.position[1]}): "
        return f"{where}{self.rule.value}: {self.message}"


def validate(dungeon: Dungeon) -> list[Violation]:
    """Every violation of RULES §4 in ``dungeon``; see the module docstring."""
    found: list[Violation] = []
    if len(dungeon.rooms) < MIN_ROOMS:
        found.append(
            Violation(
                Rule.ROOM_COUNT,
                None,
                f"{len(dungeon.rooms)} rooms; a dungeon needs at least {MIN_ROOMS}",
            )
        )
    reported: set[tuple[int, int]] = set()  # pairs of rooms already said to touch
    owner = _check_rooms(dungeon, reported, found)
    _check_touching(dungeon, owner, reported, found)
    _check_border(dungeon, found)
    _check_connected(dungeon, found)
    return found


def _check_rooms(
    dungeon: Dungeon, reported: set[tuple[int, int]], found: list[Violation]
) -> list[int]:
    """Size, place and squares of each room; returns the room number owning each square."""
    width, height, cells = dungeon.width, dungeon.height, dungeon.cells
    owner = [-1] * len(cells)
    for number, room in enumerate(dungeon.rooms):
        corner = (room.row, room.column)
        if room.width < MIN_ROOM_WIDTH or room.height < MIN_ROOM_HEIGHT:
            found.append(
                Violation(
                    Rule.ROOM_SIZE,
                    corner,
                    f"room {number} is {room.width} wide and {room.height} tall; rooms are at "
                    f"least {MIN_ROOM_WIDTH} wide and {MIN_ROOM_HEIGHT} tall",
                )
            )
        if room.row < 0 or room.column < 0 or room.bottom >= height or room.right >= width:
            found.append(Violation(Rule.ROOM_SHAPE, corner, f"room {number} leaves the map"))
            continue
        for r, c in room.squares():
            index = r * width + c
            if owner[index] >= 0:
                if (owner[index], number) not in reported:
                    reported.add((owner[index], number))
                    found.append(
                        Violation(
                            Rule.ROOMS_TOUCH, (r, c), f"rooms {owner[index]} and {number} overlap"
                        )
                    )
                continue
            owner[index] = number
            if cells[index] == CORRIDOR:
                found.append(
                    Violation(Rule.CORRIDOR_IN_ROOM, (r, c), f"corridor inside room {number}")
                )
            elif cells[index] == ROCK:
                found.append(Violation(Rule.ROOM_SHAPE, (r, c), f"rock inside room {number}"))
    for index, cell in enumerate(cells):
        if cell == ROOM and owner[index] < 0:
            found.append(
                Violation(Rule.ROOM_SHAPE, divmod(index, width), "room floor outside every room")
            )
    return owner


def _check_touching(
    dungeon: Dungeon, owner: list[int], reported: set[tuple[int, int]], found: list[Violation]
) -> None:
    """Rooms closer than one square, diagonals included; each pair reported once."""
    width, height = dungeon.width, dungeon.height
    for number, room in enumerate(dungeon.rooms):
        top, left = max(room.row - 1, 0), max(room.column - 1, 0)
        bottom, right = min(room.bottom + 1, height - 1), min(room.right + 1, width - 1)
        for r in range(top, bottom + 1):
            for c in range(left, right + 1):
                other = owner[r * width + c]
                pair = (min(number, other), max(number, other))
                if other >= 0 and other != number and pair not in reported:
                    reported.add(pair)
                    found.append(
                        Violation(
                            Rule.ROOMS_TOUCH,
                            (r, c),
                            f"room {other} touches room {number}; rooms need rock or "
                            f"corridor between them",
                        )
                    )


def _check_border(dungeon: Dungeon, found: list[Violation]) -> None:
    width, height, cells = dungeon.width, dungeon.height, dungeon.cells
    edge = [(0, c) for c in range(width)]
    if height > 1:
        edge += [(r, 0) for r in range(1, height - 1)]
        edge += [(r, width - 1) for r in range(1, height - 1) if width > 1]
        edge += [(height - 1, c) for c in range(width)]
    for r, c in sorted(edge):
        if cells[r * width + c] != ROCK:
            found.append(Violation(Rule.BORDER, (r, c), "an outermost square must stay rock"))


def _check_connected(dungeon: Dungeon, found: list[Violation]) -> None:
    width, height, cells = dungeon.width, dungeon.height, dungeon.cells
    part = [0] * len(cells)
    first: Position | None = None
    parts = 0
    for start in range(len(cells)):
        if cells[start] == ROCK or part[start]:
            continue
        parts += 1
        part[start] = parts
        stack, size = [start], 0
        while stack:
            index = stack.pop()
            size += 1
            r, c = divmod(index, width)
            for near, inside in (
                (index - width, r > 0),
                (index + width, r < height - 1),
                (index - 1, c > 0),
                (index + 1, c < width - 1),
            ):
                if inside and cells[near] != ROCK and not part[near]:
                    part[near] = parts
                    stack.append(near)
        if first is None:
            first = divmod(start, width)
        else:
            found.append(
                Violation(
                    Rule.CONNECTED,
                    divmod(start, width),
                    f"{size} floor squares here cannot be reached from {first}",
                )
            )
