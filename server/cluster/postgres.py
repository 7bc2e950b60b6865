"""The cluster's directory kept in PostgreSQL (``--cluster postgresql://...``).

What a caller may rely on, beyond :class:`~server.cluster.directory.Directory`:

* Every database call runs in a worker thread (synchronous psycopg: its async API
  does not run under trio) and gives up after :data:`DB_TIMEOUT` seconds, so a
  PostgreSQL that is gone or slow never holds up the event loop or play. While it
  cannot be reached, ``CREATE`` is refused with a clear reason, games already placed
  go on, and the node registers again and puts its games back once it is reached.
* The node beats every ``heartbeat`` seconds; a node that has not beaten for three
  is gone, and any node's next beat removes it and its games from the directory.
* The local copy of the other nodes' games follows ``LISTEN``/``NOTIFY`` on its own
  connection and thread; it is read whole again after every reconnection.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import threading
from collections.abc import Callable
from typing import Any, Final, TypeVar

import psycopg
import structlog
import trio

from . import schema
from .directory import LocalGames, LocalNames
from .shared import SharedDirectory, describe_cluster

DB_TIMEOUT: Final = 3.0
"""Seconds any one call to PostgreSQL may take before the directory counts it as gone."""
LISTEN_POLL: Final = 0.25
"""Seconds the listening thread waits for a notification before it checks for a stop."""
LIFE_IN_BEATS: Final = 3

log = structlog.get_logger("dungeon_of_doom.server.cluster")
T = TypeVar("T")


class DirectoryDown(Exception):
    """PostgreSQL could not be reached, or did not answer in time."""


def _connect(url: str) -> psycopg.Connection[Any]:
    # tcp_user_timeout bounds a call on a link that went silent (no RST ever comes).
    millis = int(DB_TIMEOUT * 1000)
    return psycopg.connect(
        url,
        autocommit=True,
        connect_timeout=max(1, round(DB_TIMEOUT)),
        tcp_user_timeout=millis,
        keepalives=1,
        keepalives_idle=max(1, round(DB_TIMEOUT)),
        keepalives_interval=1,
        keepalives_count=2,
        options=f"-c statement_timeout={millis}",
    )


class PostgresDirectory(SharedDirectory):
    """The directory of a cluster whose nodes share one PostgreSQL database."""

    def __init__(self, url: str, *, advertise: str | None, heartbeat: float) -> None:
        super().__init__(advertise=advertise, heartbeat=heartbeat)
        self.url = url
        self._published: dict[str, str | None] = {}
        """What this node believes the directory holds for each of its names."""
        self._published_names: set[str] = set()
        self._lock = trio.Lock()
        self._threads = trio.CapacityLimiter(4)
        self._connection: psycopg.Connection[Any] | None = None

    # -- the directory interface ----------------------------------------------------------

    async def run(
        self,
        local_games: LocalGames,
        local_names: LocalNames,
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Register, then beat and follow the directory until cancelled.

        Reports itself started once registered and the local copy read, or after
        :data:`DB_TIMEOUT` seconds if PostgreSQL does not answer (play starts anyway).
        """
        self._local_games = local_games
        self._local_names = local_names
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self._follow)
            with trio.move_on_after(DB_TIMEOUT):
                await self._beat()
                await self.copied.wait()
            task_status.started()
            try:
                await self._beat_forever()
            finally:
                with trio.CancelScope(shield=True):
                    await self._leave()

    async def _leave(self) -> None:
        """Take this node and its games out of the directory now (the node stops)."""
        if not self.reachable:
            return
        with contextlib.suppress(DirectoryDown):
            await self._execute(schema.LEAVE, {"node": self.node})
            log.info("cluster left", node=self.node)

    async def claim(self, name: str) -> str | None:
        if not self.reachable:
            return self._unreachable()
        if name in self._remote:
            return f"there is already a game called {name}"
        try:
            won = await self._execute(schema.CLAIM, self._key(name))
        except DirectoryDown:
            return self._unreachable()
        if won is None:
            return f"there is already a game called {name}"
        self._claimed.add(name)
        self._published[name] = None
        return None

    # -- talking to PostgreSQL --------------------------------------------------------------

    async def _call(self, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        """``work`` on this node's connection, in a thread, one at a time, in order."""
        async with self._lock:
            connection = self._connection
            self._connection = None  # whatever happens, only a call that succeeds gives it back

            def run() -> tuple[psycopg.Connection[Any], T]:
                db = connection if connection is not None and not connection.closed else None
                if db is None:
                    db = _connect(self.url)
                try:
                    return db, work(db)
                except BaseException:
                    db.close()
                    raise

            try:
                with trio.fail_after(DB_TIMEOUT):
                    db, result = await trio.to_thread.run_sync(
                        run, abandon_on_cancel=True, limiter=self._threads
                    )
            except (trio.TooSlowError, psycopg.Error, OSError) as error:
                self._down(error)
                raise DirectoryDown(str(error)) from None
            self._connection = db
            return result

    async def _execute(self, statement: str, params: dict[str, Any]) -> tuple[Any, ...] | None:
        """Run one statement; its first row, if it returns rows."""

        def execute(db: psycopg.Connection[Any]) -> tuple[Any, ...] | None:
            cursor = db.execute(statement, params)
            return cursor.fetchone() if cursor.description is not None else None

        return await self._call(execute)

    def _down(self, error: BaseException) -> None:
        if self.reachable:
            log.warning("cluster directory unreachable", node=self.node, error=repr(error))
        self._gone_down()

    async def _beat(self) -> None:
        """Say this node lives, reap the nodes that do not, and put this node's games right."""
        registered = self.reachable
        params = {
            "node": self.node,
            "address": self.advertise,
            "relay": self.relay_address,
            "life": self._life(),
            "secret": secrets.token_hex(32),
        }

        self._beaten_at = trio.current_time()

        def beat(db: psycopg.Connection[Any]) -> bool:
            with db.transaction():
                if not registered:
                    # Nodes starting together must not create the tables at once.
                    db.execute("SELECT pg_advisory_xact_lock(%s)", (schema.SCHEMA_LOCK,))
                    for statement in schema.STATEMENTS:
                        db.execute(statement)
                    row = db.execute(schema.SECRET, params).fetchone()
                    assert row is not None
                    self.secret = str(row[0])
                if db.execute(schema.BEAT, params).fetchone() is not None:
                    return False
                db.execute(schema.REGISTER, params)
                return True

        try:
            joined = await self._call(beat)
            if joined:
                # Gone from the directory (never in it, or reaped while unreachable):
                # every game of this node goes back in.
                self._published.clear()
                self._published_names.clear()
            if not self.reachable:
                log.info("cluster joined", node=self.node, address=self.advertise, again=joined)
            self.reachable = True
            await self._execute(schema.REAP, {})
            await self._sync()
        except DirectoryDown:
            pass

    def _life(self) -> float:
        return LIFE_IN_BEATS * self.heartbeat

    async def _sync(self) -> None:
        """Bring this node's rows in the directory in line with its games."""
        sync = self._sync_begins()
        wanted = self._wanted()
        for name, text in wanted.items():
            if name in self._published and self._published[name] == text:
                continue
            row = await self._execute(schema.PUT, self._key(name, info=text))
            if row is None:
                # Taken by another node while this one was cut off: it stays playable
                # here, under this node's own GAMES, but the cluster lists the other.
                log.warning("game name taken elsewhere while unreachable", game=name)
            self._published[name] = text
        for name in [name for name in self._published if name not in wanted]:
            await self._execute(schema.DROP, self._key(name))
            del self._published[name]
        await self._sync_names()
        self._sync_done(sync)

    async def _barrier(self, token: str) -> None:
        # PostgreSQL delivers notifications in commit order, so this one comes back to the
        # listening thread after every change committed before it.
        payload = json.dumps({"op": "barrier", "name": token, "node": self.node})
        with contextlib.suppress(DirectoryDown):
            await self._execute(schema.BARRIER, {"payload": payload})

    async def _sync_names(self) -> None:
        """Bring the names this node's players go by in the directory up to date."""
        names = set(self._local_names())
        added = names - self._published_names
        gone = self._published_names - names
        if not added and not gone:
            return

        def write(db: psycopg.Connection[Any]) -> None:
            with db.transaction(), db.cursor() as cursor:
                if gone:
                    cursor.executemany(schema.UNNAME, [self._key(name) for name in gone])
                if added:
                    cursor.executemany(schema.NAME, [self._key(name) for name in added])

        await self._call(write)
        self._published_names = names

    async def _beat_forever(self) -> None:
        while True:
            with trio.move_on_after(self.heartbeat):
                await self._wake.wait()
            self._wake = trio.Event()
            if self.reachable:
                try:
                    await self._sync()
                except DirectoryDown:
                    continue
            if trio.current_time() >= self._next_beat():
                await self._beat()

    _beaten_at: float = -1e9

    def _next_beat(self) -> float:
        return self._beaten_at + self.heartbeat

    # -- the local copy -----------------------------------------------------------------

    async def _follow(self) -> None:
        """Run the listening thread until cancelled; it stops within :data:`LISTEN_POLL`."""
        stop = threading.Event()
        try:
            await trio.to_thread.run_sync(
                self._listen, stop, abandon_on_cancel=True, limiter=trio.CapacityLimiter(1)
            )
        finally:
            stop.set()

    def _listen(self, stop: threading.Event) -> None:
        """In a thread: follow the directory's notifications, reconnecting as needed."""
        while not stop.is_set():
            try:
                with _connect(self.url) as db:
                    db.execute(f"LISTEN {schema.CHANNEL}")
                    rows = db.execute(schema.SNAPSHOT, {"node": self.node}).fetchall()
                    names = db.execute(schema.NAMES, {"node": self.node}).fetchall()
                    trio.from_thread.run_sync(self._replace, rows, names)
                    while not stop.is_set():
                        for note in db.notifies(timeout=LISTEN_POLL):
                            trio.from_thread.run_sync(self._apply, note.payload)
            except (psycopg.Error, OSError) as error:
                log.debug("cluster listener reconnecting", error=repr(error))
                stop.wait(self.heartbeat)
            except trio.RunFinishedError:
                return


def cluster_status(url: str) -> str:
    """The live nodes of the cluster at ``url`` and their games, as lines of text
    (``dod-server --cluster-status``)."""
    with _connect(url) as db:
        nodes = db.execute(schema.STATUS_NODES).fetchall()
        games = db.execute(schema.STATUS_GAMES).fetchall()
    return describe_cluster(nodes, games)
