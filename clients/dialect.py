"""The replies of every known dialect, as the client library reads them.

The reading itself is the protocol's (:mod:`protocol.reading`, by the lines the
dialects of :mod:`protocol.dialects` declare they write, used by a tolerant
:class:`~protocol.connection.ClientProtocol`); this module gives the client library's
callers the names they match pushes and replies against.
"""

from __future__ import annotations

from dungeon_of_doom.protocol.reading import (
    Blank,
    Failed,
    GoalIs,
    Greeted,
    TolerantReader,
    TreasureChanged,
    TurnStarted,
    Unasked,
    ViewChanged,
    not_your_turn,
)

__all__ = [
    "Blank",
    "Failed",
    "GoalIs",
    "Greeted",
    "TolerantReader",
    "TreasureChanged",
    "TurnStarted",
    "Unasked",
    "ViewChanged",
    "not_your_turn",
]
