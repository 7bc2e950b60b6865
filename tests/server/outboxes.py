"""An :class:`~server.game.outbox.Outbox` kept in memory (its own
:class:`~server.game.outbox.Identity` and :class:`~server.game.outbox.Wants` too): a client
for unit tests of :class:`~server.game.game.Game`, its parts and
:class:`~server.lobby.lobby.Lobby`, with no socket.

Its identity (name, capabilities...) is read-only, so a game or lobby that tried to
change a client would fail the test with ``AttributeError``.
"""

from __future__ import annotations

import itertools
from typing import Any

import structlog
import trio

from protocol.replies import Board, Bye, FinalReply, LevelView, Lose, Push, Reply, Win

_ids = itertools.count(1)


class MemoryOutbox:
    """A client that keeps what it is sent; see the module docstring."""

    def __init__(
        self,
        name: str | None = None,
        *,
        events: bool = False,
        chat: bool = False,
        bot: bool = False,
        board: bool = False,
        login: str | None = None,
        dialect: str = "2013",
        address: str = "192.0.2.1",
    ) -> None:
        self._id = next(_ids)
        self._address = address
        self._name = name
        self._events = events
        self._chat = chat
        self._bot = bot
        self._board = board
        self._login = login
        self._dialect = dialect
        self.replies: list[Reply] = []
        """Every reply and push, in the order sent."""
        self.final: FinalReply | None = None
        self.reason: str | None = None
        self.waiting: trio.Event | None = None
        """The last event a game or the lobby told this client to wait for."""
        self.on_players = False
        """Whether that wait was for other players (``QUIT`` would not wait for it)."""
        self.backlogged = False
        self.log: Any = structlog.get_logger("test").bind(conn=self._id)

    def __repr__(self) -> str:
        return f"<MemoryOutbox {self._id} {self._name!r}>"

    @property
    def who(self) -> MemoryOutbox:
        return self

    @property
    def wants(self) -> MemoryOutbox:
        return self

    id = property(lambda self: self._id)
    name = property(lambda self: self._name)
    address = property(lambda self: self._address)
    events = property(lambda self: self._events)
    chat = property(lambda self: self._chat)
    board = property(lambda self: self._board)
    redirect = property(lambda self: False)
    probe = property(lambda self: False)
    bot = property(lambda self: self._bot)
    login = property(lambda self: self._login)
    dialect = property(lambda self: self._dialect)

    @property
    def closed(self) -> bool:
        return self.reason is not None

    def send(self, reply: Reply) -> None:
        assert not self.closed, f"{reply!r} sent to {self!r} after its final line"
        self.replies.append(reply)

    def push(self, line: Push) -> None:
        assert isinstance(line, Push), f"{line!r} pushed: it is a reply"
        if isinstance(line, Board | LevelView) and not self._board:
            return  # as a connection drops what its client did not ask for (EXTEND board)
        self.send(line)

    def finish(self, final: FinalReply, *, reason: str) -> None:
        if self.closed:
            return
        assert isinstance(final, Win | Lose | Bye)
        self.replies.append(final)
        self.final = final
        self.reason = reason

    def wait_for(self, done: trio.Event, *, on_players: bool = False) -> None:
        self.waiting = done
        self.on_players = on_players

    # -- for the tests ------------------------------------------------------------

    def lines(self) -> list[str]:
        """Every line sent, as the 2013 dialect writes it, and forget them."""
        lines = [line for reply in self.replies for line in reply.lines()]
        self.replies.clear()
        return lines

    def of(self, kind: type[Reply]) -> list[Any]:
        """The replies of ``kind`` sent so far."""
        return [reply for reply in self.replies if isinstance(reply, kind)]
