"""A game's states and what moves it between them, written down as data (as h11 does).

:data:`TRANSITIONS` is the whole state machine: a pair (state, event) it lacks is a
server bug, raised as :class:`LifecycleError` rather than guessed at. The game
(:class:`~server.game.game.Game`) tells its :class:`Lifecycle` every event and asks it
what state it is in; docs/architecture.md draws the table.

A game is ``OPEN`` with a world nobody has joined yet, ``PLAYING`` once someone has,
``OVER`` while its finished world is put aside (a fresh one is then built at once,
built off the loop, ``RESTARTING``, or not at all), and ``CLOSED`` for good.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Final


class State(enum.Enum):
    OPEN = "open"
    """A world ready that nobody has joined yet."""
    PLAYING = "playing"
    """Someone has joined this world."""
    OVER = "over"
    """The world's game has ended; its replay and record are closed."""
    RESTARTING = "restarting"
    """A fresh world is being built off the loop; commands wait for it."""
    CLOSED = "closed"
    """The game is gone (removed, or the server stopped)."""


class Event(enum.Enum):
    JOINED = "a player joined"
    ALL_LEFT = "the last player left (won, died, quit, removed)"
    NO_WIN_LEFT = "nobody still playing can win any more"
    WORLD_FAILED = "the world raised"
    REBUILT = "a fresh world is ready"
    REBUILDING = "a fresh world is being built off the loop"
    NOT_KEPT = "the game is not to be restarted"
    GAVE_UP = "no fresh world could be built"
    UNJOINED = "nobody joined in time"
    STOPPED = "the game was closed"


S, E = State, Event

TRANSITIONS: Final[Mapping[tuple[State, Event], State]] = {
    (S.OPEN, E.JOINED): S.PLAYING,
    (S.OPEN, E.WORLD_FAILED): S.OVER,  # the first join failed in the world
    (S.OPEN, E.UNJOINED): S.CLOSED,
    (S.OPEN, E.STOPPED): S.CLOSED,
    (S.PLAYING, E.JOINED): S.PLAYING,
    (S.PLAYING, E.ALL_LEFT): S.OVER,
    (S.PLAYING, E.NO_WIN_LEFT): S.OVER,
    (S.PLAYING, E.WORLD_FAILED): S.OVER,
    (S.PLAYING, E.STOPPED): S.CLOSED,
    (S.OVER, E.REBUILT): S.OPEN,
    (S.OVER, E.REBUILDING): S.RESTARTING,
    (S.OVER, E.NOT_KEPT): S.CLOSED,
    (S.OVER, E.GAVE_UP): S.CLOSED,
    (S.OVER, E.STOPPED): S.CLOSED,
    (S.RESTARTING, E.REBUILT): S.OPEN,
    (S.RESTARTING, E.GAVE_UP): S.CLOSED,
    (S.RESTARTING, E.STOPPED): S.CLOSED,
    (S.CLOSED, E.STOPPED): S.CLOSED,
}
"""Every legal move: (state, event) -> the next state."""


class LifecycleError(RuntimeError):
    """An event that cannot happen in the game's state: a server bug."""


class Lifecycle:
    """Where one game is in :data:`TRANSITIONS`."""

    __slots__ = ("state",)

    def __init__(self) -> None:
        self.state = State.OPEN

    def advance(self, event: Event) -> State:
        """Move on by ``event``; raises :class:`LifecycleError` for a move not in the table."""
        try:
            self.state = TRANSITIONS[self.state, event]
        except KeyError:
            raise LifecycleError(
                f"{event.name} cannot happen to a game {self.state.value}"
            ) from None
        return self.state
