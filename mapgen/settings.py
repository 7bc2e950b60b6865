"""Generator settings, checked when they are made.

A :class:`Settings` that exists is one the generator can at least attempt: every
field is in range and five rooms of the smallest size fit in the dungeon's
interior by area. Anything else raises :class:`GenerationError` with a sentence
saying which setting is wrong and why. The rule constants (:data:`MIN_ROOMS`,
:data:`MIN_ROOM_WIDTH`, :data:`MIN_ROOM_HEIGHT`) are RULES §4's own numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = [
    "MIN_ROOMS",
    "MIN_ROOM_HEIGHT",
    "MIN_ROOM_WIDTH",
    "GenerationError",
    "Settings",
    "parse_range",
]

MIN_ROOMS: Final = 5
MIN_ROOM_WIDTH: Final = 3
MIN_ROOM_HEIGHT: Final = 2
SQUARES_PER_ROOM: Final = 170
"""Interior squares per room when no room count is given: about 8 rooms in 80 × 21."""


class GenerationError(ValueError):
    """Settings that cannot give a dungeon meeting RULES §4, or a dungeon that failed to."""


def parse_range(text: str) -> tuple[int, int]:
    """``"4-12"`` as ``(4, 12)``; a single number ``"5"`` as ``(5, 5)``."""
    low, dash, high = text.strip().partition("-")
    try:
        bounds = (int(low), int(high) if dash else int(low))
    except ValueError:
        raise GenerationError(f"expected a size or a range MIN-MAX, not {text!r}") from None
    return bounds


@dataclass(frozen=True, slots=True)
class Settings:
    """How a dungeon is to be generated; the defaults make the seed's 80 × 21 dungeons."""

    width: int = 80
    height: int = 21
    rooms: int | None = None
    """How many rooms to place at most; ``None``: one per 170 interior squares (at least 5)."""
    room_width: tuple[int, int] = (4, 12)
    """Smallest and largest room width, in squares."""
    room_height: tuple[int, int] = (3, 6)
    """Smallest and largest room height, in squares."""
    winding: float = 1.0
    """How strongly corridors avoid hard rock: 0 gives straight corridors, 1 the default."""
    loops: float = 0.25
    """The chance that two neighbouring rooms already joined get a second corridor."""

    def __post_init__(self) -> None:
        for name, (low, high), least in (
            ("room width", self.room_width, MIN_ROOM_WIDTH),
            ("room height", self.room_height, MIN_ROOM_HEIGHT),
        ):
            if low < least:
                raise GenerationError(f"the {name} must be at least {least}, not {low}")
            if high < low:
                raise GenerationError(f"the {name} range {low}-{high} is empty")
        if self.rooms is not None and self.rooms < MIN_ROOMS:
            raise GenerationError(f"a dungeon needs at least {MIN_ROOMS} rooms, not {self.rooms}")
        if not 0 <= self.winding <= 100:
            raise GenerationError(f"winding must be between 0 and 100, not {self.winding}")
        if not 0 <= self.loops <= 1:
            raise GenerationError(f"loops must be between 0 and 1, not {self.loops}")
        room_w, room_h = self.room_width[0], self.room_height[0]
        if self.width - 2 < room_w or self.height - 2 < room_h:
            raise GenerationError(
                f"a {self.width} × {self.height} dungeon has no room for a {room_w} × {room_h} "
                f"room inside its rock border"
            )
        # Each room with the rock on its right and below takes (w+1) × (h+1) of a
        # (width-1) × (height-1) area; fewer than five such blocks cannot fit at all.
        most = (self.width - 1) * (self.height - 1) // ((room_w + 1) * (room_h + 1))
        if most < MIN_ROOMS:
            raise GenerationError(
                f"{MIN_ROOMS} rooms of {room_w} × {room_h} with rock between them cannot fit "
                f"in {self.width} × {self.height}; make the dungeon larger or the rooms smaller"
            )
        # More rooms than can fit would only make the generator try for ever (30
        # draws a room): a number asked for is bounded by the area, like the size.
        if self.rooms is not None and self.rooms > most:
            raise GenerationError(
                f"at most {most} rooms of {room_w} × {room_h} fit in {self.width} × "
                f"{self.height}; {self.rooms} asked"
            )

    @property
    def room_target(self) -> int:
        """The number of rooms the generator tries to place."""
        if self.rooms is not None:
            return self.rooms
        interior = (self.width - 2) * (self.height - 2)
        return max(MIN_ROOMS, interior // SQUARES_PER_ROOM)
