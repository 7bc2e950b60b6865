"""A generated dungeon as a classic map (RULES §1): floor, walls, gold and exits.

Room floor and corridors become floor ``.``, rock becomes wall ``#`` (so the
rock border is a wall border). Exits go on squares of distinct rooms, gold on
other floor squares, all drawn from ``random.Random(seed)``. Given a dungeon
that passes :func:`mapgen.validate.validate`, every floor square reaches every
other, so from any start a player can reach all the gold and every exit: the map
is winnable by every player as long as the others leave them ``goal`` coins,
which the defaults allow for four players. The result loads through
:func:`worlds.classic.mapfile.parse_map` unchanged.
"""

from __future__ import annotations

import random
from typing import Final

from dungeon_of_doom.mapgen.dungeon import CORRIDOR, ROCK, ROOM, Dungeon
from dungeon_of_doom.mapgen.formats import Format, one_file
from dungeon_of_doom.mapgen.settings import GenerationError

from .mapfile import EXIT, FLOOR, GOLD, WALL, ClassicMap

__all__ = ["FLOOR_PER_GOLD", "FORMAT", "PLAYERS_WHO_CAN_WIN", "ROOMS_PER_EXIT", "to_classic"]

FLOOR_PER_GOLD: Final = 25
"""One coin per this many floor squares (and never fewer coins than winners), by default."""
PLAYERS_WHO_CAN_WIN: Final = 4
"""The default target is the gold divided by this: so many players can all win."""
ROOMS_PER_EXIT: Final = 3
"""One exit per this many rooms (at least two), by default."""


def to_classic(
    dungeon: Dungeon,
    *,
    seed: int = 0,
    name: str | None = None,
    gold: int | None = None,
    exits: int | None = None,
    goal: int | None = None,
) -> ClassicMap:
    """The classic map of ``dungeon``; ``None`` settings take the defaults above."""
    floor = [index for index, cell in enumerate(dungeon.cells) if cell != ROCK]
    rooms = dungeon.rooms
    exits = max(2, len(rooms) // ROOMS_PER_EXIT) if exits is None else exits
    gold = max(PLAYERS_WHO_CAN_WIN, len(floor) // FLOOR_PER_GOLD) if gold is None else gold
    goal = max(1, gold // PLAYERS_WHO_CAN_WIN) if goal is None else goal
    if not 1 <= exits <= len(rooms):
        raise GenerationError(f"exits go in distinct rooms: 1 to {len(rooms)}, not {exits}")
    if gold < 0 or not 0 <= goal <= gold:
        raise GenerationError(f"the target {goal} needs 0 to {gold} gold on the map")
    if gold + exits > len(floor):
        raise GenerationError(f"{gold} gold and {exits} exits do not fit on {len(floor)} squares")

    rng = random.Random(seed)
    width = dungeon.width
    tiles = bytearray(dungeon.cells.translate(_TILES))
    for number in sorted(rng.sample(range(len(rooms)), exits)):
        r, c = rng.choice(list(rooms[number].squares()))
        tiles[r * width + c] = ord(EXIT)
    free = [index for index in floor if tiles[index] != ord(EXIT)]
    for index in rng.sample(free, gold):
        tiles[index] = ord(GOLD)
    text = tiles.decode("ascii")
    rows = tuple(text[i : i + width] for i in range(0, len(text), width))
    return ClassicMap(name if name is not None else f"Generated dungeon {seed}", goal, rows)


_TILES: Final = bytes.maketrans(
    bytes((ROCK, ROOM, CORRIDOR)), (WALL + FLOOR + FLOOR).encode("ascii")
)

FORMAT: Final = Format(
    one_file(lambda dungeon, seed: to_classic(dungeon, seed=seed).to_text()),
    "a classic map file with gold and exits",
)
"""``dod-generate --format classic`` (declared as an entry point of mapgen's formats)."""
