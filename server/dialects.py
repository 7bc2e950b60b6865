"""Where the server meets a client's dialect: listeners, greetings, the end of a game.

The bytes of every dialect are :mod:`protocol.dialects`' business; this module holds
what the server does around them, and nothing of any world's rules:

* **Listeners.** Each listening port speaks one dialect (``--listen 40005:2015``),
  so one server can serve clients of every era at once, in the same games: a 2015
  bot and a 2013 ``nc`` player may meet in one dungeon, each reading its own bytes.
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

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import trio

from protocol.dialects import DEFAULT_DIALECT, DIALECTS, UnknownDialect
from protocol.replies import Bye, Gold, TurnBegins
from worlds.api import PlayerKind, WorldError

if TYPE_CHECKING:
    from .connection import Connection

__all__ = ["GAME_OVER", "Listen", "TurnReminder", "greet", "parse_listen", "parse_listens"]

GAME_OVER: Final = "the game is over"


@dataclass(frozen=True, slots=True)
class Listen:
    """One listening port and the dialect its clients speak."""

    port: int
    dialect: str = DEFAULT_DIALECT

    def __str__(self) -> str:
        return f"{self.port}:{self.dialect}"


def parse_listen(text: str, default_dialect: str = DEFAULT_DIALECT) -> Listen:
    """``PORT`` or ``PORT:DIALECT`` (``40005:2015``); raises ``ValueError`` with a message
    for the person who typed it."""
    port_text, _, dialect = text.strip().partition(":")
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"expected PORT or PORT:DIALECT, not {text!r}") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"a port is from 0 to 65535, not {port}")
    dialect = dialect or default_dialect
    if dialect not in DIALECTS:
        raise UnknownDialect(
            f"unknown dialect {dialect!r} in {text!r}; known dialects: {', '.join(DIALECTS)}"
        )
    return Listen(port, dialect)


def parse_listens(text: str, default_dialect: str = DEFAULT_DIALECT) -> list[Listen]:
    """Comma-separated :func:`parse_listen` specs (``"40004,40005:2015"``); ``""``: none."""
    return [parse_listen(part, default_dialect) for part in text.split(",") if part.strip()]


def greet(connection: Connection) -> None:
    """Put a greeting dialect's client in the default game and tell it what it needs
    (once the game's world is ready, if it is being restarted)."""
    game = connection.server.game_for(connection)
    if not game.hold(connection, lambda: _enter(connection)):
        _enter(connection)


def _enter(connection: Connection) -> None:
    game = connection.server.game_for(connection)
    connection.send(Gold(game.world.goal))  # unasked, the goal: "GOLD <n>"
    try:
        game.join(connection, PlayerKind.BOT if connection.bot else PlayerKind.HUMAN)
    except WorldError as error:
        connection.finish(Bye(str(error)), reason="world full")
        return
    if not getattr(game.world, "has_turns", False):
        # Its clients act only on STARTTURN; here every player may always act.
        connection.push(TurnBegins(0))
    connection.turn_reminder = TurnReminder(connection, trio.current_time())


def _turn_points(connection: Connection) -> int | None:
    """The action points of the client's turn, if it is theirs now (0: a world without turns)."""
    game, player = connection.game, connection.player
    if game is None or player is None:
        return None
    world = game.world
    if not getattr(world, "has_turns", False):
        return 0
    if getattr(world, "turn", None) != player:
        return None
    return int(world.action_points(player))  # type: ignore[attr-defined]


class TurnReminder:
    """Tells a silent greeting-dialect client again that it is its turn (module docstring)."""

    FIRST: Final = 2.0
    """Seconds of silence before the first reminder."""
    LONGEST: Final = 64.0

    def __init__(self, connection: Connection, now: float) -> None:
        self._connection = connection
        self._since = now
        self._wait = self.FIRST

    def acted(self, now: float) -> None:
        """The client sent a command at ``now``."""
        self._since = now
        self._wait = self.FIRST

    def check(self, now: float) -> None:
        """Remind the client if it has been silent long enough (the watchdog's tick)."""
        connection = self._connection
        if connection.over or connection.reason is not None or now - self._since < self._wait:
            return
        points = _turn_points(connection)
        if points is None:  # not its turn: nothing to remind it of; count from now
            self.acted(now)
            return
        connection.push(TurnBegins(points))
        self._since = now
        self._wait = min(self._wait * 2, self.LONGEST)
