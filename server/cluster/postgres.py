"""The cluster's directory kept in PostgreSQL (``--cluster postgresql://...``).

What a caller may rely on, beyond :class:`~server.cluster.directory.Directory`:

* Every database call runs in a worker thread (synchronous psycopg: its async API
  does not run under trio) and is answered or given up within :data:`DB_TIMEOUT`
  seconds, waiting its turn included, so a PostgreSQL that is gone or slow never holds
  up the event loop or play. While it cannot be reached, ``CREATE`` and a ``HELLO``
  that needs a name are refused with a clear reason, and the node registers again
  once it is reached.
* The node beats every ``heartbeat`` seconds; a node that has not beaten for three
  is gone (judged on the database's clock, :data:`~server.cluster.schema.ALIVE`), and
  any node's next beat or claim removes it and its claims from the directory.
* **The lease.** Each beat, and each claim, renews this node's row; the node counts
  its lease as confirmed until :data:`LEASE_SHARE` of a life after it *sent* the last
  renewal that succeeded, on its own monotonic clock, so it stops counting on it
  before the database can judge it gone (a paused process, a cut link: whatever made
  it late). Its next beat then finds its row there (no claim of it can have passed to
  another node: a claim takes only a free name) or gone, and then claims each of its
  games and names again in one transaction and reports those another node took.
* The local copy of the other nodes' games follows ``LISTEN``/``NOTIFY`` on its own
  connection and thread; it is read whole again after every reconnection.
"""

from __future__ import annotations

import contextlib
import json
import math
import secrets
import threading
from collections.abc import Callable
from functools import partial
from typing import Any, Final, TypeVar

import psycopg
import structlog
import trio

from . import schema
from .directory import SETTLE_TIMEOUT, LocalGames, LocalNames, name_keys
from .postgres_calls import (
    DB_TIMEOUT,
    DirectoryDown,
    claiming,
    first,
    listen,
    make_schema,
    run_on,
)
from .shared import SharedDirectory

PROBES: Final = 4
"""Probes of a PostgreSQL that cannot be reached that may be under way at once."""
LIFE_IN_BEATS: Final = 3
LEASE_SHARE: Final = 0.9
"""The share of a life after a renewal was sent that the node counts on it: less than
all of it, for the two clocks' rates and the statement's own time."""

log = structlog.get_logger("dungeon_of_doom.server.cluster")
T = TypeVar("T")


class PostgresDirectory(SharedDirectory):
    """The directory of a cluster whose nodes share one PostgreSQL database."""

    def __init__(self, url: str, *, advertise: str | None, heartbeat: float) -> None:
        super().__init__(advertise=advertise, heartbeat=heartbeat)
        self.url = url
        self._lock = trio.Lock()
        self._threads = trio.CapacityLimiter(4)
        self._probes = trio.CapacityLimiter(PROBES)
        """Probes' threads under way, those given up on included (:meth:`_beat_forever`)."""
        self._relisten = trio.Event()
        self._connection: psycopg.Connection[Any] | None = None
        self._schema_made = False
        self._joined = False
        """Whether this node has been registered before (a join after is a rejoin)."""
        self._claims_made = 0
        """This node's claims so far: each claim's number (see ``schema.BEAT``)."""
        self._lease_end = -math.inf
        """When this node stops counting on its lease (``trio.current_time()``)."""
        self._beat_wanted = False
        """A beat is wanted before the next heartbeat (the lease is to be confirmed)."""
        self._beat_done = trio.Event()
        """Set when the beat under way, or the next, has ended (either way)."""

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

    def lapsed(self) -> bool:
        return trio.current_time() >= self._lease_end

    async def confirm(self) -> bool:
        with trio.move_on_after(SETTLE_TIMEOUT):
            while self.lapsed():
                done = self._beat_done
                self._beat_wanted = True
                self._wake.set()
                await done.wait()
                if self.lapsed() and not self.reachable:
                    break  # that beat failed: the caller is told now, not in 5 s
        return not self.lapsed()

    async def claim(self, name: str) -> str | None:
        if not self.reachable:
            return self._unreachable()
        if name in self._remote:
            return f"there is already a game called {name}"
        self._claiming.add(name)
        try:
            won = await self._renewing(self._claim_game(name))
        except DirectoryDown:
            return self._unreachable()
        finally:
            self._claiming.discard(name)
        return self._claimed_game(name, won)

    async def _claim_keys(self, name: str, keys: tuple[str, ...]) -> bool | None:
        params = self._key(name, keys=list(keys), claim=self._number(), **self._beat_params())
        try:
            return await self._renewing(claiming(schema.CLAIM_NAME, params))
        except DirectoryDown:
            return None

    async def _renewing(self, work: Callable[[psycopg.Connection[Any]], T | None]) -> T | None:
        """``work``, a transaction that renews this node's row first (``None``: the row
        is gone), counted as a renewal of the lease when it has succeeded."""
        sent = trio.current_time()
        result = await self._call(work)
        if result is None:
            self._beat_wanted = True
            self._wake.set()
        else:
            self._renewed(sent)
        return result

    def _renewed(self, sent: float) -> None:
        self._lease_end = max(self._lease_end, sent + LEASE_SHARE * self._life())

    # -- talking to PostgreSQL --------------------------------------------------------------

    async def _call(
        self, work: Callable[[psycopg.Connection[Any]], T], *, probe: bool = False
    ) -> T:
        """``work`` on this node's connection, in a thread, one at a time, in order;
        given up after :data:`DB_TIMEOUT` seconds, its wait for its turn included. A
        ``probe`` (a beat while PostgreSQL cannot be reached) takes a connection of its
        own and waits for no other call, so that several may be trying at once."""
        if probe:
            return await self._probe(work)
        try:
            with trio.fail_after(DB_TIMEOUT):
                async with self._lock:
                    connection = self._connection
                    self._connection = None  # only a call that succeeds gives it back
                    db, result = await trio.to_thread.run_sync(
                        partial(run_on, self.url, connection, work),
                        abandon_on_cancel=True,
                        limiter=self._threads,
                    )
        except (trio.TooSlowError, psycopg.Error, OSError) as error:
            self._down(error)
            raise DirectoryDown(str(error)) from None
        self._connection = db
        return result

    async def _probe(self, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        """``work`` on a connection of its own (:meth:`_call`'s ``probe``), which becomes
        the node's connection if it has none when it succeeds."""
        try:
            with trio.fail_after(DB_TIMEOUT):
                db, result = await trio.to_thread.run_sync(
                    partial(run_on, self.url, None, work),
                    abandon_on_cancel=True,
                    limiter=self._probes,
                )
        except (trio.TooSlowError, psycopg.Error, OSError) as error:
            if not self.reachable:  # else a later probe got through: this one tells nothing
                self._down(error)
            raise DirectoryDown(str(error)) from None
        if self._connection is None and not self._lock.locked():
            self._connection = db
        else:
            assert self._nursery is not None
            self._nursery.start_soon(partial(trio.to_thread.run_sync, db.close))
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

    def _beat_params(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "address": self.advertise,
            "relay": self.relay_address,
            "life": self._life(),
        }

    async def _beat(self, *, probe: bool = False) -> None:
        """Say this node lives, reap the nodes that do not, and put this node's games
        right; if this node was reaped meanwhile, register again and claim again what
        it held, and tell the lobby what another node took. (``probe``: while PostgreSQL
        cannot be reached, see :meth:`_beat_forever`.)"""
        self._beat_wanted = False
        registered = self.reachable
        sent = self._beaten_at = trio.current_time()
        games = sorted(self._claimed)
        held = dict(self._held_keys)
        params = {
            **self._beat_params(),
            "secret": secrets.token_hex(32),
            "games": sorted(self._claimed | self._claiming),
            "keys": sorted({*held, *self._wanted_keys()}),
            "upto": self._claims_made,
        }
        # Numbers for the claims made again should this node find itself reaped.
        numbers = {name: self._number() for name in [*games, *set(held.values())]}

        def beat(db: psycopg.Connection[Any]) -> tuple[set[str], set[str]] | None:
            if not self._schema_made:
                with db.transaction():
                    make_schema(db)
                    row = db.execute(schema.SECRET, params).fetchone()
                    assert row is not None
                    self.secret = str(row[0])
                self._schema_made = True
            if first(db, schema.BEAT, params):
                return None
            with db.transaction():
                db.execute(schema.REGISTER, params)
                won_games = {
                    name
                    for name in games
                    if first(db, schema.CLAIM, {**params, "name": name, "claim": numbers[name]})
                    == 1
                }
                by_name: dict[str, list[str]] = {}
                for key, name in held.items():
                    by_name.setdefault(name, []).append(key)
                won_keys = set()
                for name, keys in sorted(by_name.items()):
                    claim = {**params, "name": name, "keys": sorted(keys), "claim": numbers[name]}
                    if first(db, schema.CLAIM_NAME, claim) == 1:
                        won_keys.update(keys)
                return won_games, won_keys

        try:
            rejoined = await self._call(beat, probe=probe)
        except DirectoryDown:
            self._beat_ended()
            return
        self._renewed(sent)
        if rejoined is not None:
            self._rejoined(games, held, *rejoined)
        if not registered and not self.reachable:
            log.info("cluster joined", node=self.node, address=self.advertise, again=self._joined)
            if self._joined:
                self._listen_again()  # its connection may be stuck in the cut just healed
        self._joined = self.reachable = True
        self._beat_ended()
        if probe:
            self._wake.set()  # the loop syncs: never two syncs at once
            return
        with contextlib.suppress(DirectoryDown):
            await self._sync()

    def _beat_ended(self) -> None:
        self._beat_done.set()
        self._beat_done = trio.Event()

    def _rejoined(
        self, games: list[str], held: dict[str, str], won_games: set[str], won_keys: set[str]
    ) -> None:
        """This node registered anew (it was reaped, or it starts): every game and name
        it held is claimed again; those another node took are lost."""
        self._published.clear()  # every game's description goes back in
        lost_games = {name for name in games if name not in won_games and name in self._claimed}
        for name in lost_games:
            self._claimed.discard(name)
        lost_keys = {key for key in held if key not in won_keys}
        lost_names = {held[key] for key in lost_keys}
        self._let_go(lost_keys)
        if games or held:
            log.info("cluster rejoined", node=self.node, games=len(games), names=len(held))
        self._tell_lost(lost_games, lost_names)

    def _life(self) -> float:
        return LIFE_IN_BEATS * self.heartbeat

    async def _sync(self) -> None:
        """Bring this node's rows in the directory in line with its games and names."""
        sync = self._sync_begins()
        wanted = self._wanted()
        lost = []
        for name, text in wanted.items():
            if name in self._published and self._published[name] == text:
                continue
            row = await self._execute(schema.PUT, self._key(name, info=text))
            if row is None and name in self._claimed:
                # The row is gone (let go by a sync that crossed this game's claim, or
                # this node was reaped): claimed again, or lost if another node has it.
                won = await self._renewing(self._claim_game(name))
                if won is None:
                    continue  # reaped: the next beat claims every game again
                if not won:
                    self._claimed.discard(name)
                    lost.append(name)
                    continue
                row = await self._execute(schema.PUT, self._key(name, info=text))
            if row is not None:
                self._published[name] = text
        for name in self._unclaimed(self._claiming):
            # ``upto`` is read with no wait since the check: a claim of ``name`` begun
            # after it has a higher number, and this release leaves it be.
            await self._execute(schema.DROP, self._key(name, upto=self._claims_made))
            if name not in self._claimed:
                self._published.pop(name, None)
        self._tell_lost(lost, ())
        await self._sync_names()
        self._sync_done(sync)

    def _claim_game(self, name: str) -> Callable[[psycopg.Connection[Any]], bool | None]:
        """The call that claims the game ``name`` for this node, renewing it first
        (``None``: this node was reaped)."""
        return claiming(schema.CLAIM, self._key(name, claim=self._number(), **self._beat_params()))

    def _number(self) -> int:
        """A claim's number: this node's claims so far (see
        :data:`~server.cluster.schema.BEAT`)."""
        self._claims_made += 1
        return self._claims_made

    async def _barrier(self, token: str) -> None:
        # PostgreSQL delivers notifications in commit order, so this one comes back to the
        # listening thread after every change committed before it.
        payload = json.dumps({"op": "barrier", "name": token, "node": self.node})
        with contextlib.suppress(DirectoryDown):
            await self._execute(schema.BARRIER, {"payload": payload})

    async def _sync_names(self) -> None:
        """Let go of the keys no player here needs; claim those of names in play."""
        wanted = self._wanted_keys()
        gone = sorted(key for key in self._held_keys if key not in wanted)
        if gone:
            # Not held from now on: a HELLO meanwhile claims it anew (behind this call),
            # rather than count on a key that is being let go.
            self._let_go(gone)
            release = {"node": self.node, "keys": gone, "upto": self._claims_made}
            await self._execute(schema.UNNAME, release)
        lost = []
        for name in self._names_to_claim():
            won = await self._claim_keys(name, name_keys(name))
            if won is None:
                raise DirectoryDown("a name's claim failed")
            if won:
                for key in name_keys(name):
                    self._held_keys[key] = name
            else:
                lost.append(name)
        self._tell_lost((), lost)

    async def _beat_forever(self) -> None:
        """Beat every heartbeat, and sync when told to. While PostgreSQL cannot be
        reached, probe it every quarter heartbeat instead, each probe on a connection of
        its own and :data:`PROBES` at most under way: a probe stuck in a cut (a connection
        waiting for an answer that never comes) does not hold up the one that finds the
        cut healed, so the node is back within a fraction of a heartbeat."""
        while True:
            with trio.move_on_at(self._next_beat()):
                await self._wake.wait()
            self._wake = trio.Event()
            if self.reachable:
                try:
                    await self._sync()
                except DirectoryDown:
                    continue
            if trio.current_time() < self._next_beat():
                continue
            if self.reachable:
                await self._beat()
                continue
            self._beaten_at = trio.current_time()  # the next probe a quarter heartbeat on
            if self._probes.borrowed_tokens < PROBES:
                assert self._nursery is not None
                self._nursery.start_soon(partial(self._beat, probe=True))

    _beaten_at: float = -1e9

    def _next_beat(self) -> float:
        """When the next beat is due: a heartbeat after the last, a quarter heartbeat
        when the lease is to be confirmed or PostgreSQL cannot be reached (never sooner:
        a PostgreSQL that refuses at once is not asked in a loop)."""
        quick = self._beat_wanted or not self.reachable
        return self._beaten_at + self.heartbeat / (4 if quick else 1)

    # -- the local copy -----------------------------------------------------------------

    async def _follow(self) -> None:
        """Run the listening thread until cancelled, a new one each time the node joins
        again after losing PostgreSQL (:meth:`_listen_again`); each stops within
        :data:`~server.cluster.postgres_calls.LISTEN_POLL` once told to, and what an old
        one still reads is dropped."""
        while True:
            stop = threading.Event()
            try:
                async with trio.open_nursery() as listening:
                    # A limiter of its own: an old thread left behind keeps its token.
                    limiter = trio.CapacityLimiter(1)
                    listening.start_soon(
                        partial(trio.to_thread.run_sync, abandon_on_cancel=True, limiter=limiter),
                        self._listen,
                        stop,
                    )
                    await self._relisten.wait()
                    self._relisten = trio.Event()
                    stop.set()  # before the thread is left: nothing it reads is applied
                    listening.cancel_scope.cancel()
            finally:
                stop.set()

    def _listen_again(self) -> None:
        """Follow the directory on a new connection now (the old may hang in a cut)."""
        self._relisten.set()

    def _listen(self, stop: threading.Event) -> None:
        """In a thread: follow the directory's notifications (:func:`listen`)."""
        listen(self.url, self.node, self.heartbeat, stop, self._replace, self._apply)
