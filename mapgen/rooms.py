"""Room placement: random rectangles that never touch, inside the rock border.

:func:`place_rooms` tries random sizes and places (sizes from the settings'
ranges, each position uniform over where the room fits) until it has the
target number of rooms or has spent its attempts. A candidate is accepted when
its rectangle grown by one square on every side holds no room, so accepted
rooms never touch, diagonals included. If fewer than five rooms fit that way,
it sweeps the map in reading order placing rooms of the smallest size, first
around the rooms it has and then, if need be, on an empty map; if even that
finds fewer than five it raises :class:`GenerationError`. Checking a candidate
costs one byte search per row of the room, so placing *n* rooms is roughly
linear in *n*.
"""

from __future__ import annotations

import random
from typing import Final

from .dungeon import Room
from .settings import MIN_ROOMS, GenerationError, Settings

__all__ = ["place_rooms"]

_ATTEMPTS_PER_ROOM: Final = 30
_MIN_ATTEMPTS: Final = 1_000


class _Plan:
    """The rooms so far and the squares they reserve (each room grown by one square)."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.reserved = bytearray(width * height)
        self.rooms: list[Room] = []

    def fits(self, room: Room) -> bool:
        width, reserved = self.width, self.reserved
        for r in range(room.row, room.bottom + 1):
            start = r * width + room.column
            if reserved.find(1, start, start + room.width) >= 0:
                return False
        return True

    def add(self, room: Room) -> None:
        self.rooms.append(room)
        width = self.width
        left, right = room.column - 1, room.right + 1
        for r in range(room.row - 1, room.bottom + 2):
            self.reserved[r * width + left : r * width + right + 1] = b"\x01" * (right - left + 1)

    def sweep(self, room_width: int, room_height: int, wanted: int) -> None:
        """Add rooms of one size in reading order until ``wanted`` are placed."""
        for r in range(1, self.height - room_height):
            for c in range(1, self.width - room_width):
                if len(self.rooms) >= wanted:
                    return
                room = Room(r, c, room_height, room_width)
                if self.fits(room):
                    self.add(room)


def place_rooms(settings: Settings, rng: random.Random) -> list[Room]:
    """Rooms for a dungeon of ``settings``, in the order placed; see the module docstring."""
    width, height = settings.width, settings.height
    plan = _Plan(width, height)
    target = settings.room_target
    # Sizes are clipped to the interior so that every draw can be placed somewhere.
    low_w, high_w = settings.room_width[0], min(settings.room_width[1], width - 2)
    low_h, high_h = settings.room_height[0], min(settings.room_height[1], height - 2)
    attempts = max(_MIN_ATTEMPTS, _ATTEMPTS_PER_ROOM * target)
    while attempts and len(plan.rooms) < target:
        attempts -= 1
        room_w, room_h = rng.randint(low_w, high_w), rng.randint(low_h, high_h)
        room = Room(
            rng.randint(1, height - 1 - room_h), rng.randint(1, width - 1 - room_w), room_h, room_w
        )
        if plan.fits(room):
            plan.add(room)
    if len(plan.rooms) < MIN_ROOMS:
        plan.sweep(low_w, low_h, MIN_ROOMS)
    if len(plan.rooms) < MIN_ROOMS:
        plan = _Plan(width, height)
        plan.sweep(low_w, low_h, MIN_ROOMS)
    if len(plan.rooms) < MIN_ROOMS:
        raise GenerationError(
            f"only {len(plan.rooms)} rooms of {low_w} × {low_h} fit in {width} × {height} with "
            f"rock between them; a dungeon needs {MIN_ROOMS}: make it larger or the rooms smaller"
        )
    return plan.rooms
