"""Worlds played in turns: one player acts at a time, spending action points.

A :class:`TurnBasedWorld` is still a :class:`~worlds.api.World` (pure, deterministic,
resolved one action at a time), with a few promises more, which the server relies on:

* ``turn`` is the player whose turn it is (``None`` when nobody can play). Only that
  player's actions may be resolved; the server checks before calling ``resolve``,
  so that a refused action is never recorded in a replay.
* Every change of turn is reported: :class:`TurnEnded` for the player whose turn
  ended, then :class:`TurnStarted` for the next one. They follow the result event
  of the action that caused them, or come from ``join`` (the first player gets the
  turn at once), ``leave`` (the leaver held it) and :meth:`TurnBasedWorld.time_out`.
* The world keeps no clock. The server times turns and calls ``time_out(player)``
  when one was not played in time; that call is recorded in replays like an action.
* :class:`Defeated` ends the game for a player who did not win when someone else
  did; like :class:`~worlds.api.Died` it removes them from the world.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import ClassVar, TypeGuard

from .api import Event, PlayerId, ResultEvent, World

__all__ = [
    "Attacked",
    "Defeated",
    "HitPointsChanged",
    "PickupRefused",
    "TurnBasedWorld",
    "TurnEnded",
    "TurnEvent",
    "TurnPassed",
    "TurnStarted",
    "plays_in_turns",
]


@dataclass(frozen=True, slots=True)
class TurnEvent(Event):
    """Base class of the events only turn-based worlds report."""


@dataclass(frozen=True, slots=True)
class TurnStarted(TurnEvent):
    """``player``'s turn begins with ``points`` action points."""

    player: PlayerId
    points: int


@dataclass(frozen=True, slots=True)
class TurnEnded(TurnEvent):
    """``player``'s turn is over; ``missed`` when its time ran out unplayed."""

    player: PlayerId
    missed: bool = False


@dataclass(frozen=True, slots=True)
class HitPointsChanged(TurnEvent):
    """``player``'s hit points changed by ``change`` and are now ``points``."""

    player: PlayerId
    change: int
    points: int


@dataclass(frozen=True, slots=True)
class Defeated(TurnEvent):
    """``winner`` won the game, so it is over for ``player``, who leaves the world."""

    player: PlayerId
    winner: PlayerId


@dataclass(frozen=True, slots=True)
class Attacked(ResultEvent):
    """The result of ``ATTACK``: ``target`` is who stood there (``None``: nobody),
    ``hit`` whether the blow landed and ``damage`` what it took off."""

    target: PlayerId | None
    hit: bool
    damage: int

    @property
    def succeeded(self) -> bool:
        return self.hit


@dataclass(frozen=True, slots=True)
class TurnPassed(ResultEvent):
    """The result of ``ENDTURN``: the player gave up the rest of the turn."""

    succeeded: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class PickupRefused(ResultEvent):
    """``PICKUP`` of something the player may not take (a second sword, say)."""

    reason: str
    succeeded: ClassVar[bool] = False


class TurnBasedWorld(World):
    """A world played in turns; see the module docstring for what it promises."""

    has_turns: ClassVar[bool] = True

    @property
    @abc.abstractmethod
    def turn(self) -> PlayerId | None:
        """Whose turn it is, or ``None`` when nobody can play (no one left, game over)."""

    @abc.abstractmethod
    def time_out(self, player: PlayerId) -> list[Event]:
        """End ``player``'s turn because it was not played in time; ``[]`` if it is not theirs."""

    @abc.abstractmethod
    def action_points(self, player: PlayerId) -> int:
        """Action points left to ``player`` in this turn (0 when the turn is someone else's)."""

    @abc.abstractmethod
    def hit_points(self, player: PlayerId) -> int:
        """``player``'s hit points (0 for a player not in the world)."""


def plays_in_turns(world: World) -> TypeGuard[TurnBasedWorld]:
    """Whether ``world`` plays in turns (by its flag, so that wrappers of such worlds count)."""
    return world.has_turns
