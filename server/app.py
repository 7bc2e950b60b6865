"""The server: listeners, the connections they accept, and the games they play.

:meth:`Server.run` owns everything it starts: the games' tasks (through the
:class:`~server.lobby.lobby.Lobby`), the accept loop and every connection task live in
its nurseries, so when ``run`` returns nothing is left running and every replay
is closed. :meth:`Server.shutdown` stops accepting, sends every client a ``BYE``
line, gives them ``linger`` seconds to read it, and then ``run`` returns.

A watchdog task checks every connection's time limits (idle, unread replies)
every :func:`watchdog_tick` seconds; see :mod:`server.session.transport`.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Coroutine
from functools import partial

import structlog
import trio

from protocol.connection import ServerProtocol
from protocol.replies import Bye, Message

from .cluster.handshake import Passenger
from .cluster.links import Links
from .cluster.opening import open_directory
from .cluster.workers import open_shared_listeners
from .game.game import Game
from .lobby.ladder import Ladder
from .lobby.lobby import Lobby
from .lobby.recording import record_writer
from .metrics import Counts
from .session.admission import Admission
from .session.client import Connection
from .session.fast_path import FastPath
from .session.poller import Poller
from .session.transport import GONE
from .setup.config import ServerConfig
from .setup.listening import Listen, ListenError, ports_to_listen
from .setup.logs import LogAllowance, RateLimitedLogger, dropped_lines

DRAIN_CHECK = 0.1
"""Seconds between looks, while draining, at whether every created game has ended."""
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

    fast_path = True
    """Whether connections are served through the fast path
    (:mod:`server.session.fast_path`), as they always are but where a test or a
    measurement compares it with the plain path, which answers the same bytes."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.log = structlog.get_logger("server")
        records = record_writer(config)
        self.directory = open_directory(
            config.cluster,
            advertise=config.advertise,
            heartbeat=config.heartbeat,
            links=Links.from_config(config) if config.cluster else None,
        )
        """Which node holds which game (:mod:`server.cluster`); this server alone by default."""
        self.lobby = Lobby(config, records=records, directory=self.directory)
        self.ladder = Ladder(config, self.lobby, records)
        """Records, ratings and claimed names (:mod:`server.lobby.ladder`)."""
        self.connections: set[Connection] = set()
        self.port: int | None = None
        """The port actually bound (useful with port 0), once :meth:`run` has started;
        the first listener's, when there are several."""
        self.listening: list[Listen] = []
        """Every port bound and the dialect it speaks, once :meth:`run` has started."""
        self._ids = itertools.count(1)
        self.admission = Admission(config)
        """Open connections by address, every way in (TCP, HTTP, WebSocket) together."""
        self._client_logs: dict[str, RateLimitedLogger] = {}
        """Each client address's logger and allowance of log events; see :meth:`client_log`."""
        self._accepting = trio.CancelScope()
        self._stopping = False
        self.counts = Counts()
        """What the server has counted since it started (for ``/metrics``)."""
        self.poller = Poller() if Poller.available() else None
        """Serves every TCP client that waits for input from one task (server.session.poller)."""
        self.writers: trio.Nursery | None = None
        """Where TCP connections start their writer tasks while :meth:`run` runs: each
        one started when a connection has output from elsewhere to write, ending once it
        is written, and never outliving its connection (server.session.transport)."""

    @property
    def ready(self) -> bool:
        """Whether the server listens and accepts players (not yet, or no longer, if not)."""
        return self.port is not None and not self._stopping and not self.lobby.draining

    @property
    def games(self) -> dict[str, Game]:
        """Every game on the server, by name; ``default`` is always there."""
        return self.lobby.games

    async def run(self, *, task_status: trio.TaskStatus[Server] = trio.TASK_STATUS_IGNORED) -> None:
        """Listen and serve until :meth:`shutdown`; reports itself to ``nursery.start``."""
        config = self.config
        wanted = ports_to_listen(config.listen, config.port, config.dialect)
        groups: list[tuple[str, list[trio.SocketListener]]] = []
        listeners: list[trio.SocketListener] = []
        try:
            for listen in wanted:
                try:
                    # Several processes share the port under --workers (server.cluster.workers).
                    opener = open_shared_listeners if config.reuse_port else trio.open_tcp_listeners
                    bound = await opener(listen.port, host=config.host)
                except OSError as error:
                    reason = error.strerror or str(error)
                    raise ListenError(
                        f"cannot listen on {config.host}:{listen.port}: {reason}"
                    ) from error
                listeners += bound
                groups.append((listen.dialect, bound))
                self.listening.append(Listen(bound[0].socket.getsockname()[1], listen.dialect))
        except BaseException:
            for listener in listeners:
                await listener.aclose()
            raise
        self.port = self.listening[0].port
        self.ladder.listening(config.host, self.port)
        self.directory.listening(config.host, self.port)
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
            async with (
                self.ladder.running(),
                trio.open_nursery() as self.writers,
                trio.open_nursery() as games,
            ):
                await games.start(
                    self.directory.serve_relays, config.host, self._relayed, self.client_log
                )
                await games.start(self.lobby.run)
                if self.poller is not None:
                    await games.start(self.poller.run)
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
                            self.ladder.serving()
                    for listener in listeners:  # the port is let go now, not after the goodbyes
                        listener.socket.close()
                    self._say_goodbye(connections)
                # Every connection has left its game: the games can close their replays.
                games.cancel_scope.cancel()
        finally:
            self.writers = None
            for listener in listeners:
                await listener.aclose()
            self.log.info("server stopped", log_lines_dropped=dropped_lines())

    async def drain(self, timeout: float) -> None:
        """Take no new client or game, tell the players, and return once every created
        game has ended (each recorded as it ends) or ``timeout`` seconds have passed."""
        self.lobby.draining = True
        created = [game for game in self.lobby.games.values() if game.spec.owner is not None]
        self.log.info("server draining", timeout=timeout, games=len(created))
        notice = Message(
            "",
            f"this server is stopping; running games may finish within {timeout:g} seconds, "
            "and no new game can be created here",
        )
        for connection in list(self.connections):
            connection.push(notice)
        with trio.move_on_after(timeout):
            while any(game.spec.owner is not None for game in self.lobby.games.values()):
                await trio.sleep(DRAIN_CHECK)

    def shutdown(self) -> None:
        """Stop accepting, tell every client, and let :meth:`run` return. Idempotent."""
        if not self._stopping:
            self._stopping = True
            self.log.info("server shutting down", connections=len(self.connections))
            self._accepting.cancel()

    def client_log(self, host: str) -> RateLimitedLogger:
        """The logger for events about the client at ``host``: all its connections share
        it and one allowance (``client_log_burst`` events, then ``client_log_rate`` a
        second)."""
        logger = self._client_logs.get(host)
        if logger is None:
            config = self.config
            allowance = LogAllowance(config.client_log_rate, config.client_log_burst)
            logger = self._client_logs[host] = RateLimitedLogger(self.log, allowance)
        return logger

    def _forget_quiet_addresses(self) -> None:
        """Drop the logger of addresses that are gone and whose bucket refilled,
        reporting what was suppressed first."""
        now = trio.current_time()
        for host, logger in list(self._client_logs.items()):
            if host in self.admission:
                continue
            allowance = logger.allowance
            if allowance.suppressed:
                logger.bind(peer=host).flush_suppressed()
            elif allowance.refilled(now):
                del self._client_logs[host]

    async def _watchdog(self) -> None:
        tick = watchdog_tick(self.config)
        sweeps = itertools.cycle(range(max(1, round(10 / tick))))
        while True:
            await trio.sleep(tick)
            now = trio.current_time()
            for connection in list(self.connections):
                connection.check_time(now)
            if not next(sweeps):  # about every ten seconds
                self._forget_quiet_addresses()

    def _say_goodbye(self, connections: trio.Nursery) -> None:
        # The games end with the server, whoever is still in them: their replays say so.
        self.lobby.close_all()
        for connection in list(self.connections):
            connection.finish(Bye("the server is shutting down; goodbye"), reason="server shutdown")
        # Connections close themselves after at most ``linger`` seconds; this is the backstop.
        connections.cancel_scope.deadline = trio.current_time() + 2 * self.config.linger + 1

    def _serve_connection(
        self, stream: trio.SocketStream, *, dialect: str
    ) -> Coroutine[object, None, None]:
        # A function that returns serve_stream's coroutine, not a coroutine function of
        # its own: every connection's task waits one coroutine frame less deep (issue 31).
        try:
            host, port = stream.socket.getpeername()[:2]
        except OSError:  # gone before we looked
            host, port = "?", 0
        return self.serve_stream(stream, host=str(host), port=int(port), dialect=dialect)

    async def serve_stream(
        self,
        stream: trio.abc.Stream,
        *,
        host: str,
        port: int = 0,
        dialect: str | None = None,
        count_socket: bool = True,
        count_address: bool = True,
        prepare: Callable[[Connection], None] | None = None,
    ) -> None:
        """Serve one client on ``stream`` (TCP, a WebSocket adapter, a memory stream)
        until it leaves; ``host`` is its address, which the per-address limit counts;
        ``dialect`` what its client speaks (default: the ``dialect`` setting).

        ``count_socket=False``: the stream's socket is counted already (the web face
        counts its HTTP sockets, :mod:`server.session.admission`); ``count_address=False``: so
        is its address's share.

        Returns when the connection has ended and ``stream`` is closed.
        """
        connection_id = next(self._ids)
        config = self.config
        refusal: str | None = None
        if self._stopping or self.lobby.draining:
            refusal = "the server is shutting down; goodbye"
        else:
            refusal = self.admission.refusal(host, socket=count_socket, address=count_address)
        log = self.client_log(host)
        if refusal is not None:
            self.counts.refused += 1
            log.bind(conn=connection_id, peer=f"{host}:{port}").warning(
                "connection refused", reason=refusal
            )
            await self._refuse(stream, refusal, dialect or config.dialect)
            return
        connection = Connection(
            self,
            stream,
            connection_id,
            peer=f"{host}:{port}",
            log=log,
            dialect=dialect or config.dialect,
        )
        if prepare is not None:
            prepare(connection)
        self.counts.connections += 1
        self.connections.add(connection)
        # Counted by take/release rather than by a context manager: no generator kept a
        # connection (issue 31).
        self.admission.take(host, socket=count_socket, address=count_address)
        try:
            await connection.run(FastPath(connection) if self.fast_path else None)
        finally:
            self.admission.release(host, socket=count_socket, address=count_address)
            self.connections.discard(connection)

    async def _relayed(self, stream: trio.abc.Stream, passenger: Passenger) -> None:
        """A client another node of the cluster carries here, as it was there."""

        await self.serve_stream(
            stream,
            host=passenger.host,
            port=passenger.port,
            dialect=passenger.dialect,
            prepare=lambda connection: connection.arrive(passenger),
        )

    async def _refuse(self, stream: trio.abc.Stream, why: str, dialect: str) -> None:
        # In the client's own dialect, through the protocol like every other byte.
        farewell = ServerProtocol(dialect=dialect).send(Bye(why))
        with trio.move_on_after(self.config.linger):
            with contextlib.suppress(*GONE):
                await stream.send_all(farewell)
        with trio.CancelScope(shield=True), trio.move_on_after(self.config.linger):
            await stream.aclose()


async def serve(
    config: ServerConfig, *, task_status: trio.TaskStatus[Server] = trio.TASK_STATUS_IGNORED
) -> None:
    """Run a server with ``config`` until cancelled; ``nursery.start(serve, config)`` gives it."""
    await Server(config).run(task_status=task_status)
