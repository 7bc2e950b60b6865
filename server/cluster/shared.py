"""What every shared directory has: the local copy of the other nodes' games and names,
the names this node holds, and carrying clients to other nodes.

:class:`SharedDirectory` keeps the local copy from change records (JSON objects: ``put``
and ``delete`` of a game, ``name`` and ``unname`` of a player's name, each with its
node), whatever brings them: PostgreSQL's ``NOTIFY`` (:mod:`server.cluster.postgres`)
or the parent of ``--workers`` (:mod:`server.cluster.embedded`).

A player's name is held by its lookalike keys (:func:`name_keys`), each claimed in the
directory by one node at most: :meth:`SharedDirectory.claim_name` claims a ``HELLO``'s
name before it is answered, and every sync lets go of the keys no player of this node
uses any more and claims those of a name in play that it does not hold (a name that
cannot be claimed then is reported lost). A client carried to another node lets its
name go here first (:meth:`SharedDirectory.carry` flushes), so that the game's node can
claim it.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Collection, Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

import structlog
import trio

from dungeon_of_doom.protocol.commands import Join, Watch
from dungeon_of_doom.protocol.replies import GameInfo
from dungeon_of_doom.records.names import LookalikeNames

from ..game.outbox import Outbox
from .directory import (
    SETTLE_TIMEOUT,
    Leases,
    LocalGames,
    LocalNames,
    LogFor,
    LostClaims,
    RemoteGame,
    ServeRelayed,
    _nothing_lost,
    name_keys,
)
from .links import Links
from .relay import Relay, Relayable
from .relay_port import serve_relays

log = structlog.get_logger("dungeon_of_doom.server.cluster")


class _Pending:
    """A claim of a name under way, which every ``HELLO`` of that name meanwhile shares."""

    def __init__(self, name: str, keys: tuple[str, ...]) -> None:
        self.name, self.keys = name, keys
        self.done = trio.Event()
        self.refusal: str | None = "the cluster's directory did not answer in time"


def info_text(info: GameInfo) -> str:
    """A game's description as the directory keeps it."""
    return json.dumps(dataclasses.asdict(info), sort_keys=True)


def read_info(text: str | None) -> GameInfo | None:
    """A game's description as the directory keeps it; ``None`` if there is none yet."""
    if text is None:
        return None
    try:
        return GameInfo(**json.loads(text))
    except (TypeError, ValueError):
        return None  # written by another version of the server: shown once it rewrites it


def describe_cluster(
    nodes: Iterable[tuple[str, str, str, datetime, int]],
    games: Sequence[tuple[str, str, str | None]],
) -> str:
    """``dod-server --cluster-status``'s text, whichever directory it read: ``nodes`` as
    (id, address, relay, started, names in play), ``games`` as (name, node, info text)."""
    nodes = list(nodes)
    lines = [f"{len(nodes)} node(s)"]
    for node, address, relay, started, players in nodes:
        held = [(name, info) for name, holder, info in games if holder == node]
        lines.append(
            f"node {node[:12]} at {address} (relay {relay}), up since {started:%Y-%m-%d %H:%M:%S}, "
            f"{len(held)} game(s), {players} name(s) in play"
        )
        for name, text in held:
            info = read_info(text)
            lines.append(f"  {name + ' (being built)' if info is None else info.line()}")
    return "\n".join(lines)


class SharedDirectory:
    """The parts of a directory shared by every kind; see the module docstring."""

    def __init__(self, *, advertise: str | None, heartbeat: float) -> None:
        self.node = uuid.uuid4().hex
        self.advertise = advertise
        self.heartbeat = heartbeat
        self.reachable = False
        """Whether the directory can be reached now (the node is registered)."""
        self.lost: LostClaims = _nothing_lost
        self.leases: Leases = self
        """This directory in the role of :class:`~server.cluster.directory.Leases`."""
        self._remote: dict[str, RemoteGame] = {}
        self._claimed: set[str] = set()
        """Names this node holds in the directory: built games and those being built."""
        self._published: dict[str, str | None] = {}
        """What this node last sent the directory of each game it holds (None: not yet)."""
        self._claiming: set[str] = set()
        """Game names whose claim is under way (held already, should it commit)."""
        self._held_keys: dict[str, str] = {}
        """The lookalike keys of players' names this node holds, each with the name
        that claimed it."""
        self._name_claims: dict[str, _Pending] = {}
        """Claims of players' names under way, by their first key."""
        self._local_games: LocalGames = lambda: ()
        self._local_names: LocalNames = lambda: ()
        self._names: LookalikeNames[str] = LookalikeNames()
        """The names other nodes' players go by, each with its node."""
        self.relay_address = ""
        """``HOST:PORT`` of this node's relay port, once bound."""
        self.secret: str | None = None
        """The cluster's shared secret, once known."""
        self.links = Links()
        """How links to other nodes are made (:func:`~server.cluster.directory.open_directory`
        sets the operator's)."""
        self._nursery: trio.Nursery | None = None
        self._wake = trio.Event()
        self.copied = trio.Event()
        """Set once the local copy has been read whole (the first time)."""
        self._syncs_begun = 0
        self._syncs_done = 0
        self._synced = trio.Event()
        self._barriers: dict[str, trio.Event] = {}
        """Round trips under way (:meth:`caught_up`), by their token."""
        self._next_barrier: trio.Event | None = None
        """Set when the round trip the callers of :meth:`caught_up` now wait for is done."""
        self._barrier_running = False

    def listening(self, host: str, port: int) -> None:
        if self.advertise is None:
            self.advertise = f"{host}:{port}"

    def publish(self) -> None:
        self._wake.set()

    def release(self, name: str) -> None:
        if name in self._claimed:
            self._claimed.discard(name)
            self._wake.set()

    async def flush(self) -> None:
        with trio.move_on_after(SETTLE_TIMEOUT):
            wanted = self._syncs_begun + 1  # the next sync to begin sees this node as it is now
            self._wake.set()
            while self._syncs_done < wanted and self.reachable:
                await self._synced.wait()
            if self.reachable:
                await self._flushed()

    async def _flushed(self) -> None:
        """What a directory adds to a sync before other nodes can see it (nothing here)."""

    def _sync_begins(self) -> int:
        self._syncs_begun += 1
        return self._syncs_begun

    def _sync_done(self, sync: int) -> None:
        self._syncs_done = sync
        self._wake_flushes()

    def _gone_down(self) -> None:
        """The directory cannot be reached: callers of :meth:`flush` and
        :meth:`caught_up` return at once rather than wait out :data:`SETTLE_TIMEOUT` for
        a sync or a round trip that failed."""
        self.reachable = False
        self._wake_flushes()
        for passed in self._barriers.values():
            passed.set()

    def _wake_flushes(self) -> None:
        self._synced.set()
        self._synced = trio.Event()

    async def caught_up(self) -> None:
        if self._nursery is None or not self.reachable:
            return
        with trio.move_on_after(SETTLE_TIMEOUT):
            if self._next_barrier is None:
                self._next_barrier = trio.Event()
                if not self._barrier_running:
                    self._barrier_running = True
                    self._nursery.start_soon(self._run_barriers)
            await self._next_barrier.wait()

    async def _run_barriers(self) -> None:
        """One round trip at a time, for every caller of :meth:`caught_up` that came
        before it began."""
        try:
            while self._next_barrier is not None:
                done, self._next_barrier = self._next_barrier, None
                token = uuid.uuid4().hex
                passed = self._barriers[token] = trio.Event()
                try:
                    with trio.move_on_after(SETTLE_TIMEOUT):
                        await self._barrier(token)
                        await passed.wait()
                finally:
                    self._barriers.pop(token, None)
                    done.set()
        finally:
            self._barrier_running = False

    async def _barrier(self, token: str) -> None:
        """Send a change record ``{"op": "barrier", "name": token}`` of this node through
        the directory, behind every change it holds now: once it is back (:meth:`_apply`),
        the local copy holds them all."""
        raise NotImplementedError

    # -- players' names and the lease ----------------------------------------------------

    def lapsed(self) -> bool:
        """Whether this node's lease is unconfirmed now (each kind keeps its own)."""
        raise NotImplementedError

    async def confirm(self) -> bool:
        """Whether the lease is confirmed, renewing it first if it has lapsed."""
        raise NotImplementedError

    def holds_name(self, name: str) -> bool:
        return all(key in self._held_keys for key in name_keys(name))

    async def claim_name(self, name: str) -> str | None:
        refusal = await self._claim_name(name)
        if refusal == self._names_unreachable() and name in self._names:
            # The local copy knows another node's player goes by it: say so, as when
            # the directory answers.
            return self._playing_elsewhere(name)
        return refusal

    @staticmethod
    def _playing_elsewhere(name: str) -> str:
        return f"{name} is playing on another node of this cluster; choose another name"

    async def _claim_name(self, name: str) -> str | None:
        for _ in range(2):  # a claim under way of a lookalike, then one of its own
            if self.holds_name(name):
                return None
            if not self.reachable:
                return self._names_unreachable()
            keys = name_keys(name)
            pending = self._name_claims.get(keys[0])
            if pending is not None:
                await pending.done.wait()
                continue
            pending = self._name_claims[keys[0]] = _Pending(name, keys)
            try:
                with trio.move_on_after(SETTLE_TIMEOUT):
                    won = await self._claim_keys(name, keys)
                    if won is None:
                        pending.refusal = self._names_unreachable()
                    elif won:
                        for key in keys:
                            self._held_keys[key] = name
                        pending.refusal = None
                    else:
                        pending.refusal = self._playing_elsewhere(name)
            finally:
                del self._name_claims[keys[0]]
                pending.done.set()
            return pending.refusal
        return self._names_unreachable()

    async def _claim_keys(self, name: str, keys: tuple[str, ...]) -> bool | None:
        """Claim every key of ``name`` for this node at once, or none: whether they are
        this node's now; ``None`` if the directory could not be reached."""
        raise NotImplementedError

    def _wanted_keys(self) -> dict[str, str]:
        """The keys this node must hold, each with a name that needs it: those of its
        players' names, and of claims under way. (A name claimed for a ``HELLO`` whose
        answer then waits, for a fresh world or the lease, may be let go meanwhile: the
        sync after its player is seated claims it again.)"""
        wanted: dict[str, str] = {}
        for name in self._local_names():
            for key in name_keys(name):
                wanted.setdefault(key, name)
        for pending in self._name_claims.values():
            for key in pending.keys:
                wanted.setdefault(key, pending.name)
        return wanted

    def _names_to_claim(self) -> list[str]:
        """Names this node's players go by whose keys it does not all hold (each once)."""
        missing: dict[tuple[str, ...], str] = {}
        for name in self._local_names():
            keys = name_keys(name)
            if keys[0] not in self._name_claims and not self.holds_name(name):
                missing.setdefault(keys, name)
        return list(missing.values())

    def _let_go(self, keys: Collection[str]) -> None:
        for key in keys:
            self._held_keys.pop(key, None)

    def _tell_lost(self, games: Collection[str], names: Collection[str]) -> None:
        """Tell the lobby of claims another node holds now (once each)."""
        if games or names:
            log.warning(
                "cluster claims lost", node=self.node, games=sorted(games), names=sorted(names)
            )
            self.lost(games, names)

    @staticmethod
    def _names_unreachable() -> str:
        return (
            "the cluster's directory cannot be reached, so no name can be taken now; "
            "try again in a moment, or play without HELLO"
        )

    def elsewhere(self, name: str) -> RemoteGame | None:
        return self._remote.get(name)

    def remote_games(self) -> Iterable[RemoteGame]:
        return self._remote.values()

    def name_elsewhere(self, name: str) -> bool:
        return name in self._names

    async def serve_relays(
        self,
        host: str,
        serve: ServeRelayed,
        log_for: LogFor | None = None,
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        listeners = await trio.open_tcp_listeners(0, host=host)
        port = listeners[0].socket.getsockname()[1]
        advertised = (self.advertise or f"{host}:0").rpartition(":")[0]
        self.relay_address = f"{advertised}:{port}"
        task_status.started()
        await serve_relays(
            listeners,
            node=self.node,
            secret=lambda: self.secret,
            serve=serve,
            links=self.links,
            log_for=log_for,
        )

    def carry(self, client: Outbox, remote: RemoteGame, command: Join | Watch) -> bool:
        if (
            self._nursery is None
            or self.secret is None
            or not remote.relay
            or not isinstance(client, Relayable)
        ):
            return False
        relay = Relay(client, remote.relay, self.secret, target=remote.node, links=self.links)
        client.relay = relay
        # What the client sent behind the command is read once the link is open (then
        # forwarded after it), or has failed (then answered here).
        client.wait_for(relay.opened)
        self._nursery.start_soon(self._carry, relay, client.who.name, command)
        return True

    async def _carry(self, relay: Relay, name: str | None, command: Join | Watch) -> None:
        """Run ``relay``, once the directory no longer holds the client's name for this
        node (it has left every game here), so that the game's node can claim it."""
        if name is not None:
            await self.flush()
        await relay.run(command)

    def _claimed_game(self, name: str, won: bool | None) -> str | None:
        """What :meth:`claim` answers once the directory has said whether ``name`` is
        this node's (None: it could not be asked); a name won is published from now on."""
        if won is None:
            return self._unreachable()
        if not won:
            return f"there is already a game called {name}"
        self._claimed.add(name)
        self._published[name] = None
        return None

    @staticmethod
    def _unreachable() -> str:
        return (
            "the cluster's directory cannot be reached, so no game can be created now; "
            "games already running play on: try again in a moment"
        )

    def _unclaimed(self, under_way: Collection[str]) -> Iterator[str]:
        """The names this node published but no longer claims (nor is claiming: those in
        ``under_way``), each checked as the caller asks for it, once the caller's
        release of the one before has been sent: a claim begun while a release waits
        its turn is never released after it (it would take the claim just won, and the
        node would go on acting on a name another node can take)."""
        for name in list(self._published):
            if name not in self._claimed and name not in under_way:
                yield name

    def _key(self, name: str, **more: Any) -> dict[str, Any]:
        return {"name": name, "node": self.node, **more}

    def _wanted(self) -> dict[str, str | None]:
        """What the directory should hold for each name this node holds."""
        wanted: dict[str, str | None] = dict.fromkeys(self._claimed)
        for info in self._local_games():
            if info.name in self._claimed:
                wanted[info.name] = info_text(info)
        return wanted

    # -- the local copy -----------------------------------------------------------------

    def _replace(
        self, rows: list[tuple[str, str, str, str, str | None]], names: list[tuple[str, str]]
    ) -> None:
        self._names = LookalikeNames()
        for name, node in names:
            self._names[name] = node
        self._remote = {
            name: RemoteGame(name, node, address, relay, read_info(info))
            for name, node, address, relay, info in rows
        }
        self.copied.set()

    def _apply(self, payload: str) -> None:
        try:
            change = json.loads(payload)
            name, node = change["name"], change["node"]
        except (ValueError, KeyError, TypeError):
            log.warning("cluster notification unreadable", payload=payload[:200])
            return
        op = change.get("op")
        if op == "barrier":
            passed = self._barriers.get(name) if node == self.node else None
            if passed is not None:
                passed.set()
            return
        if node == self.node:
            return
        if op == "name":
            self._names[name] = node
            return
        if op == "unname":
            if self._names.get(name) == node:
                del self._names[name]
            return
        if op == "delete":
            held = self._remote.get(name)
            if held is not None and held.node == node:
                del self._remote[name]
            return
        self._remote[name] = RemoteGame(
            name,
            node,
            str(change.get("address") or "?"),
            str(change.get("relay") or ""),
            read_info(change.get("info")),
        )
