"""Where the server meets a client's dialect: greetings, reminders, the end of a game.

The bytes of every dialect are :mod:`protocol.dialects`' business; this module holds
what the server does around them, and nothing of any world's rules. (Which port
speaks which dialect is :mod:`server.setup.listening`'s: a 2015 bot and a 2013 ``nc``
player may meet in one dungeon, each reading its own bytes.)

* **Greeting** (dialects that :attr:`~protocol.dialects.Dialect.greets`, 2015): the
  client enters the default game as it connects, is told the goal, and, in a world
  without turns, is given a turn that never ends (``STARTTURN``), since its clients
  act only when told it is their turn. In a turn-based world the world's own turns
  are told instead.
* **A reminder of the turn** (greeting dialects): a client whose turn it is (always,
  in a world without turns) and that has sent nothing for a while is told again
  (``STARTTURN``), after 2 seconds of silence, then 4, 8 and so on up to a minute,
  starting again from 2 at its next command. The 2015 bot acts only on a line from
  the server, and loses one now and then (its reader can signal its writer before
  the writer listens); the reminder gets it going again. A person at the 2015 text
  client sees the line rarely, and less the longer they think.
* **After the final line** (dialects that do not close after it, 2015): the client
  stays connected, and every game command is refused with ``the game is over``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Final

from protocol.replies import Bye, Gold, TurnBegins
from worlds.api import PlayerId, PlayerKind, World, WorldError
from worlds.turns import plays_in_turns

from ..game.outbox import Outbox
from .roles import Room

__all__ = [
    "ENDLESS_TURN_POINTS",
    "GAME_OVER",
    "TurnReminder",
    "endless_turn_points",
    "greet",
    "turn_points",
]

GAME_OVER: Final = "the game is over"

ENDLESS_TURN_POINTS: Final = 6
"""What ``APGET`` answers a greeting dialect's client in a world without turns: the
2015 skeleton's full turn (6 actions), never spent, since that turn never ends. Its
clients ask after every move and show the number (``FAIL`` there read "Failed!")."""


def endless_turn_points(world: World) -> int | None:
    """``APGET`` for a greeting dialect's client: :data:`ENDLESS_TURN_POINTS` in a world
    without turns, ``None`` (the world answers) in one with turns."""
    return None if plays_in_turns(world) else ENDLESS_TURN_POINTS


def greet(client: Outbox, game: Room) -> None:
    """Put a greeting dialect's client in ``game`` (the default game) and tell it what
    it needs, once the game's world is ready if it is being restarted: the held step
    comes back here, so the client never enters a world about to be replaced."""
    if game.restarting and game.hold(client, partial(greet, client, game)):
        return
    client.send(Gold(game.world.goal))  # unasked, the goal: "GOLD <n>"
    try:
        game.join(client, PlayerKind.BOT if client.who.bot else PlayerKind.HUMAN)
    except WorldError as error:
        client.finish(Bye(str(error)), reason="world full")
        return
    if not plays_in_turns(game.world):
        # Its clients act only on STARTTURN; here every player may always act.
        client.push(TurnBegins(0))


def turn_points(world: World, player: PlayerId) -> int | None:
    """The action points of ``player``'s turn if it is theirs now (0: a world without
    turns, where every player may always act); ``None`` if it is someone else's."""
    if not plays_in_turns(world):
        return 0
    if world.turn != player:
        return None
    return int(world.action_points(player))


class TurnReminder:
    """Tells a silent greeting-dialect client again that it is its turn (module docstring)."""

    # One per greeting-dialect connection, told of every command: no __dict__ (issue 31).
    __slots__ = ("_client", "_points", "_since", "_wait")

    FIRST: Final = 2.0
    """Seconds of silence before the first reminder."""
    LONGEST: Final = 64.0

    def __init__(self, client: Outbox, points: Callable[[], int | None], now: float) -> None:
        """``points()``: the action points of the client's turn if it is its turn now
        (:func:`turn_points` of its world and player), else ``None``."""
        self._client = client
        self._points = points
        self._since = now
        self._wait = self.FIRST

    def acted(self, now: float) -> None:
        """The client sent a command at ``now``."""
        self._since = now
        self._wait = self.FIRST

    def check(self, now: float) -> None:
        """Remind the client if it has been silent long enough (the watchdog's tick)."""
        client = self._client
        if client.closed or now - self._since < self._wait:
            return
        points = self._points()
        if points is None:  # not its turn: nothing to remind it of; count from now
            self.acted(now)
            return
        client.push(TurnBegins(points))
        self._since = now
        self._wait = min(self._wait * 2, self.LONGEST)
