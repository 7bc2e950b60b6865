"""The server's one fast path: each connection's command loop, built once.

Everything else in the server is plain code: ordinary methods calling ordinary
methods, so that a reader (or a static walker) can follow a command from the socket
to the world. This module is the one exception, and holds every speed trick the
session keeps. A :class:`FastPath` is built once for each connection the server
serves (:meth:`server.app.Server.serve_stream`) and is the
:class:`~server.session.transport.Session` its transport drives, in place of the
connection's own plain methods, which it does exactly as they do:

==========================================  ==========================================
the plain path (``Connection``)             the fast path (:class:`FastPath`)
==========================================  ==========================================
``data_received``: a method that hands      the protocol's own ``receive_data``,
the bytes to the protocol                   bound once
``settle``: a method that asks the lobby    the replays' shelf's own ``flush`` (what
to settle (it flushes the replays' shelf)   the lobby's ``settle`` does), bound once
``handle_input``: asks                      the same loop with each of those written
``transport.backlogged``,                   in place: the queue against the high
``protocol.next_event()`` (also when        mark, the protocol's ``drained`` flag
nothing is left), ``transport.heard`` and   (what ``next_event`` would answer),
``handle(command)`` for each command        ``got_command`` set, ``handle``'s body
``ROUTES``: each command to its handler,    each route bound to the connection once;
which sends a game command to the lobby     in the dialects that never keep a client
(``_to_game``) unless the game is over for  after its final line nor greet it (2013,
the client or it is owed an endless         2016), a game command goes to the lobby
``APGET``                                   itself
==========================================  ==========================================

What that saves, counted by ``python -m bench.instructions`` (valgrind; every command
from the socket back to the socket) against ``--plain-path``: about 6,600 instructions a
``LOOK`` and a ``MOVE``, 6.7 % and 5.3 % of each (docs/performance.md, "Plain code, one
fast path"). The rule the project keeps: a trick stays only where it saves at least 1 %
of a command, and only here.

What keeps the two paths one: ``tests/server/test_fast_path.py`` drives every verb of
every dialect through both, on two servers alike, and compares every byte the client
reads. A change to :meth:`Connection.handle_input
<server.session.client.Connection.handle_input>` or :meth:`Connection.handle
<server.session.client.Connection.handle>` is made here too, or that test fails.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import trio

from dungeon_of_doom.protocol.commands import Command
from dungeon_of_doom.protocol.errors import RemoteProtocolError
from dungeon_of_doom.protocol.framing import NeedData

from .client import Connection
from .transport import Input

__all__ = ["FastPath"]

_WANT_DATA = Input.WANT_DATA
# A member looked up on its class goes through EnumType.__getattr__'s slot (about 850
# instructions a time in Python 3.11): the loop reads these module globals instead.
_PAUSED = Input.PAUSED
_ENDED = Input.ENDED


def _routes(connection: Connection) -> dict[type[Command], Callable[[Command], None]]:
    """Where each command of ``connection`` goes (:attr:`Connection.ROUTES`), bound to it
    once. In a dialect that never keeps a client after its game's final line and greets
    nobody, a game command goes straight to the lobby: :meth:`Connection._to_game` would
    find it never ``over`` and owed no endless turn's ``APGET``."""
    dialect = connection.protocol.dialect
    straight = dialect.closes_after_final and not dialect.greets
    to_lobby = partial(connection.lobby.command, connection)
    return {
        kind: to_lobby if straight and route is Connection._to_game else partial(route, connection)
        for kind, route in connection.ROUTES.items()
    }


def _unrecorded() -> None:
    """No replays are kept: nothing to make lasting before a reply."""


class FastPath:
    """One connection's command loop (module docstring): the session its transport drives."""

    # One per connection: compact, no __dict__ (issue 31).
    __slots__ = ("_connection", "_counts", "_routes", "data_received", "settle")

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._counts = connection.server.counts.commands
        self._routes = _routes(connection)
        self.data_received: Callable[[bytes], None] = connection.protocol.receive_data
        """:meth:`Connection.data_received`, bound once: the protocol's own."""
        replays = connection.lobby.replays
        self.settle: Callable[[], None] = _unrecorded if replays is None else replays.flush
        """:meth:`Connection.settle`, bound once: what the lobby's ``settle`` calls."""

    def input_ended(self, idle: bool) -> None:
        self._connection.input_ended(idle)

    def read_ahead(self) -> bool:
        """:meth:`Connection.read_ahead` (a held client's input, off the hot path)."""
        return self._connection.read_ahead()

    def handle_input(self) -> Input | trio.Event:
        """:meth:`Connection.handle_input`, one frame for the whole batch."""
        connection = self._connection
        protocol = connection.protocol
        transport = connection.transport
        high_mark = transport.high_mark
        routes = self._routes
        counts = self._counts
        result: Input | trio.Event
        if connection.view_late:  # or greet_late, which sets it too
            connection.greeted()
        while transport.reason is None:
            if connection.waiting is not None:
                result, connection.waiting = connection.waiting, None
                break
            if len(transport.pending) > high_mark:  # transport.backlogged
                result = _PAUSED
                break
            if protocol.drained:  # what protocol.next_event() would answer
                result = _WANT_DATA
                break
            try:
                event = protocol.next_event()
            except RemoteProtocolError as error:
                if connection.refused(error):
                    result = _ENDED
                    break
                continue
            if not isinstance(event, Command):  # one check a command, not two
                if isinstance(event, NeedData):
                    result = _WANT_DATA
                    break
                transport.close("client closed the connection")  # EndOfInput
                result = _ENDED
                break
            transport.got_command = True  # transport.heard()
            # connection.handle(event):
            kind = type(event)
            connection.look_again_told = False
            if connection.turn_reminder is not None:
                connection.turn_reminder.acted(trio.current_time())
            counts[kind] += 1
            if connection.relay is not None:
                connection.relay.forward(event)  # another node of the cluster answers it
                continue
            try:
                routes[kind](event)
                if connection.pushes_view:
                    connection.show_view()
            except Exception as error:
                connection.failed(event, error)
        else:
            result = _ENDED
        if protocol.owed:  # connection.answer_telnet()
            telnet = protocol.data_to_send()
            if telnet:
                transport.write_first(telnet)
        return result
