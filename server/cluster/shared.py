"""What every shared directory has: the local copy of the other nodes' games and names,
the names this node holds, and carrying clients to other nodes.

:class:`SharedDirectory` keeps the local copy from change records (JSON objects: ``put``
and ``delete`` of a game, ``name`` and ``unname`` of a player's name, each with its
node), whatever brings them: PostgreSQL's ``NOTIFY`` (:mod:`server.cluster.postgres`)
or the parent of ``--workers`` (:mod:`server.cluster.embedded`).
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

import structlog
import trio

from dungeon_of_doom.protocol.commands import Join, Watch
from dungeon_of_doom.protocol.replies import GameInfo
from dungeon_of_doom.records.names import LookalikeNames

from ..game.outbox import Outbox
from .directory import SETTLE_TIMEOUT, LocalGames, LocalNames, LogFor, RemoteGame, ServeRelayed
from .links import Links
from .relay import Relay, Relayable
from .relay_port import serve_relays

log = structlog.get_logger("dungeon_of_doom.server.cluster")


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
        self._remote: dict[str, RemoteGame] = {}
        self._claimed: set[str] = set()
        """Names this node holds in the directory: built games and those being built."""
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
        self._nursery.start_soon(relay.run, command)
        return True

    @staticmethod
    def _unreachable() -> str:
        return (
            "the cluster's directory cannot be reached, so no game can be created now; "
            "games already running play on: try again in a moment"
        )

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
