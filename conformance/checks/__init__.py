"""Every check of the suite, in the order a run makes them.

``hello.gold`` comes first: if it fails before the server has said anything,
the runner skips the rest (see :mod:`conformance.runner`).
"""

from __future__ import annotations

from typing import Final

from ..registry import Check
from . import extensions, game, input, players

__all__ = ["ALL_CHECKS"]

ALL_CHECKS: Final[tuple[Check, ...]] = (
    *game.checks,
    *input.checks,
    *players.checks,
    *extensions.checks,
)
