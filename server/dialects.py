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
* **An endless turn** (a greeting dialect in a world without turns): the turn given
  on connect never ends, but a client that has sent nothing for a while is given it
  again (``ENDTURN``, ``STARTTURN``), after 2 seconds of silence, then 4, 8 and so on
  up to a minute, starting again from 2 at its next command. The 2015 bot acts only
  on a line from the server, and loses one now and then (its reader can tell its
  writer before the writer listens); a fresh turn gets it going again. A person
  at the 2015 text client sees those lines rarely, and less the longer they think.
* **After the final line** (dialects that do not close after it, 2015): the client
  stays connected, and every game command is refused with ``the game is over``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import trio

from protocol.dialects import DEFAULT_DIALECT, DIALECTS, UnknownDialect
from protocol.replies import Bye, Gold, TurnBegins, TurnOver
from worlds.api import PlayerKind, WorldError

if TYPE_CHECKING:
    from .connection import Connection

__all__ = ["GAME_OVER", "EndlessTurn", "Listen", "greet", "parse_listen", "parse_listens"]

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
    """Put a greeting dialect's client in the default game and tell it what it needs."""
    game = connection.server.game_for(connection)
    world = game.world
    connection.send(Gold(world.goal))  # unasked, the goal: "GOLD <n>"
    try:
        game.join(connection, PlayerKind.BOT if connection.bot else PlayerKind.HUMAN)
    except WorldError as error:
        connection.finish(Bye(str(error)), reason="world full")
        return
    if not getattr(game.world, "has_turns", False):
        # Its clients act only on STARTTURN; here every player may always act.
        connection.send(TurnBegins(0))
        connection.endless_turn = EndlessTurn(connection, trio.current_time())


class EndlessTurn:
    """The turn of a greeting dialect's client in a world without turns (module docstring)."""

    FIRST: Final = 2.0
    """Seconds of silence before the turn is given again the first time."""
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
        """Give the turn again if the client has been silent long enough (the watchdog's tick)."""
        connection = self._connection
        if connection.over or connection.player is None or connection.reason is not None:
            return
        if now - self._since >= self._wait:
            connection.send(TurnOver())
            connection.send(TurnBegins(0))
            self._since = now
            self._wait = min(self._wait * 2, self.LONGEST)
