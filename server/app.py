"""The server: listeners, the connections they accept, and the games they play.

:meth:`Server.run` owns everything it starts: the games' tasks (through the
:class:`~server.lobby.Lobby`), the accept loop and every connection task live in
its nurseries, so when ``run`` returns nothing is left running and every replay
is closed. :meth:`Server.shutdown` stops accepting, sends every client a ``BYE``
line, gives them ``linger`` seconds to read it, and then ``run`` returns.

A watchdog task checks every connection's time limits (idle, unread replies)
every :func:`watchdog_tick` seconds; see :mod:`server.connection`.
"""

from __future__ import annotations

import contextlib
import itertools
from functools import partial

import structlog
import trio

from protocol.replies import Bye

from .config import ServerConfig
from .connection import Connection
from .dialects import Listen, parse_listen
from .game import Game
from .lobby import Lobby

MAX_TICK = 1.0
"""Seconds between the watchdog's rounds at most; shorter limits get a finer tick."""


def watchdog_tick(config: ServerConfig) -> float:
    """How often the watchdog looks: often enough that no limit runs over by a tenth."""
    limits = [config.send_timeout]
    if config.idle_timeout is not None:
        limits.append(config.idle_timeout)
    return min(MAX_TICK, *(limit / 10 for limit in limits))


class Server:
    """A Dungeon of Doom server; see the module docstring."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.log = structlog.get_logger("server")
        self.lobby = Lobby(config)
        self.connections: set[Connection] = set()
        self.port: int | None = None
        """The port actually bound (useful with port 0), once :meth:`run` has started;
        the first listener's, when there are several."""
        self.listening: list[Listen] = []
        """Every port bound and its dialect, once :meth:`run` has started."""
        self._ids = itertools.count(1)
        self._accepting = trio.CancelScope()
        self._stopping = False

    @property
    def games(self) -> dict[str, Game]:
        """Every game on the server, by name; ``default`` is always there."""
        return self.lobby.games

    def game_for(self, connection: Connection) -> Game:
        """The game a connection plays in (the default game until it joins another)."""
        return connection.game or self.lobby.default

    async def run(self, *, task_status: trio.TaskStatus[Server] = trio.TASK_STATUS_IGNORED) -> None:
        """Listen and serve until :meth:`shutdown`; reports itself to ``nursery.start``."""
        config = self.config
        wanted = [parse_listen(text, config.dialect) for text in config.listen] or [
            Listen(config.port, config.dialect)
        ]
        groups: list[tuple[str, list[trio.SocketListener]]] = []
        listeners: list[trio.SocketListener] = []
        try:
            for listen in wanted:
                bound = await trio.open_tcp_listeners(listen.port, host=config.host)
                listeners += bound
                groups.append((listen.dialect, bound))
                port = bound[0].socket.getsockname()[1]
                self.listening.append(Listen(port, listen.dialect))
        except BaseException:
            for listener in listeners:
                await listener.aclose()
            raise
        self.port = self.listening[0].port
        game = self.lobby.default
        self.log.info(
            "server listening",
            host=config.host,
            port=self.port,
            listening=[str(listen) for listen in self.listening],
            world=game.world_name,
            map=config.map or "(default)",
            seed=config.seed,
        )
        try:
            async with trio.open_nursery() as games:
                await games.start(self.lobby.run)
                games.start_soon(self._watchdog)
                async with trio.open_nursery() as connections:
                    with self._accepting:
                        async with trio.open_nursery() as accepting:
                            for dialect, bound in groups:
                                accepting.start_soon(
                                    partial(
                                        trio.serve_listeners,
                                        partial(self._serve_connection, dialect=dialect),
                                        bound,
                                        handler_nursery=connections,
                                    )
                                )
                            task_status.started(self)
                    self._say_goodbye(connections)
                # Every connection has left its game: the games can close their replays.
                games.cancel_scope.cancel()
        finally:
            for listener in listeners:
                await listener.aclose()
            self.log.info("server stopped")

    def shutdown(self) -> None:
        """Stop accepting, tell every client, and let :meth:`run` return. Idempotent."""
        if not self._stopping:
            self._stopping = True
            self.log.info("server shutting down", connections=len(self.connections))
            self._accepting.cancel()

    async def _watchdog(self) -> None:
        tick = watchdog_tick(self.config)
        while True:
            await trio.sleep(tick)
            now = trio.current_time()
            for connection in list(self.connections):
                connection.check_time(now)

    def _say_goodbye(self, connections: trio.Nursery) -> None:
        # The games end with the server, whoever is still in them: their replays say so.
        self.lobby.close_all()
        for connection in list(self.connections):
            connection.finish(Bye("the server is shutting down; goodbye"), reason="server shutdown")
        # Connections close themselves after at most ``linger`` seconds; this is the backstop.
        connections.cancel_scope.deadline = trio.current_time() + 2 * self.config.linger + 1

    async def _serve_connection(self, stream: trio.SocketStream, *, dialect: str) -> None:
        connection_id = next(self._ids)
        if self._stopping or len(self.connections) >= self.config.max_connections:
            await self._refuse(stream, connection_id)
            return
        connection = Connection(self, stream, connection_id, dialect=dialect)
        self.connections.add(connection)
        try:
            await connection.run()
        finally:
            self.connections.discard(connection)

    async def _refuse(self, stream: trio.SocketStream, connection_id: int) -> None:
        limit = self.config.max_connections
        self.log.warning(
            "connection refused", conn=connection_id, reason="server full", limit=limit
        )
        with trio.move_on_after(self.config.linger):
            with contextlib.suppress(trio.BrokenResourceError):
                await stream.send_all(
                    Bye(f"the server is full ({limit} connections); try again later").to_bytes()
                )
        with trio.CancelScope(shield=True), trio.move_on_after(self.config.linger):
            await stream.aclose()


async def serve(config: ServerConfig, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
    """Run a server with ``config`` until cancelled; ``nursery.start(serve, config)`` gives it."""
    await Server(config).run(task_status=task_status)
