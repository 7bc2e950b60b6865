"""Rock hardness: veins of harder and softer rock that corridors wind around.

:func:`rock_hardness` gives one byte per square, row-major: 255 on the
outermost squares (the immutable border) and 1–254 inside. The inside is value
noise: random hardness on a coarse lattice (one point every :data:`VEIN` squares)
smoothly interpolated, plus a little per-square grain, so hardness changes
gradually and forms the ridges and valleys a tunnel follows. It uses only the
``random.Random`` it is given, in a fixed order, so a seed gives the same rock on
every machine; the work is linear in the number of squares.
"""

from __future__ import annotations

import random
from typing import Final

__all__ = ["BORDER", "VEIN", "rock_hardness"]

BORDER: Final = 255
VEIN: Final = 5
"""Squares between lattice points: about the width of a vein of rock."""
_GRAIN: Final = 40
"""Largest per-square variation, out of 254: enough to break ties, not to hide the veins."""


def _smooth(t: float) -> float:
    # Smoothstep: hardness changes without the creases of linear interpolation.
    return t * t * (3 - 2 * t)


def rock_hardness(width: int, height: int, rng: random.Random) -> bytearray:
    """One hardness byte per square; see the module docstring."""
    lattice_w = width // VEIN + 2
    lattice = [[rng.random() for _ in range(lattice_w)] for _ in range(height // VEIN + 2)]
    weights = [(c // VEIN, _smooth(c % VEIN / VEIN)) for c in range(width)]
    span = 254 - _GRAIN
    hardness = bytearray(width * height)
    for r in range(height):
        upper, lower = lattice[r // VEIN], lattice[r // VEIN + 1]
        t = _smooth(r % VEIN / VEIN)
        column = [a + (b - a) * t for a, b in zip(upper, lower, strict=True)]
        grain = rng.choices(range(_GRAIN + 1), k=width)
        base = r * width
        for c, (k, s) in enumerate(weights):
            left = column[k]
            hardness[base + c] = 1 + int((left + (column[k + 1] - left) * s) * span) + grain[c]
    for c in range(width):
        hardness[c] = hardness[(height - 1) * width + c] = BORDER
    for r in range(height):
        hardness[r * width] = hardness[r * width + width - 1] = BORDER
    return hardness
