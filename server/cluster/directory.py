"""Which node holds which game: the interface the lobby calls, and the one-process one.

What a caller may rely on:

* :meth:`Directory.claim` is the one place a game name becomes taken across the
  cluster, and :meth:`Leases.claim_name` a player's name (with every name that looks
  like it): at most one node's claim of a name succeeds while its holder lives. Each
  answers ``None`` (taken by this node now) or why not, in words for an ``ERROR``, within
  :data:`SETTLE_TIMEOUT` seconds.
* **A node acts on a name only while its lease is confirmed.** :meth:`Leases.lapsed`
  says, on this node's own clock, whether its claims may have passed to another node
  (it could not renew them in time); while it does, the lobby acts on no created game and
  no named player, and :meth:`Leases.confirm` renews the lease or says it cannot. A
  node that finds claims lost (another node holds them now) calls :attr:`Leases.lost`
  with them, and the lobby ends what used them, telling its players.
* :meth:`Directory.publish` and :meth:`Directory.release` never wait and never fail:
  the directory brings the shared copy up to date when it can.
* :meth:`Directory.elsewhere` and :meth:`Directory.remote_games` read a local copy
  only (never the network), so ``GAMES`` costs no query.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any, Final, Protocol

import trio

from dungeon_of_doom.protocol.commands import Join, Watch
from dungeon_of_doom.protocol.replies import GameInfo
from dungeon_of_doom.records.names import lookalike_keys

from ..game.outbox import Outbox
from .handshake import Passenger

SETTLE_TIMEOUT: Final = 5.0
"""Seconds :meth:`Directory.flush`, :meth:`Directory.caught_up` and
:meth:`Leases.confirm` wait at most."""

ServeRelayed = Callable[[trio.abc.Stream, Passenger], Awaitable[None]]
"""Serves a checked relayed connection to its end (the server's session, on this node)."""
LogFor = Callable[[str], Any]
"""The logger of events about an address (the server's rate-limited one)."""
LocalGames = Callable[[], Iterable[GameInfo]]
"""The games this node holds now, as ``GAMES`` would list them (built ones only)."""
LocalNames = Callable[[], Iterable[str]]
"""The names players go by in this node's games now."""
LostClaims = Callable[[Collection[str], Collection[str]], None]
"""Told the game names and the player names this node held and another node holds now."""


def _nothing_lost(games: Collection[str], names: Collection[str]) -> None:
    """What a directory tells of lost claims until the lobby listens (nothing yet held)."""


@functools.lru_cache(maxsize=8192)
def name_keys(name: str) -> tuple[str, ...]:
    """The keys a player's name is claimed by in the directory: its lookalike keys
    (:func:`records.names.lookalike_keys`), each once, in order (claims that take keys
    in one order never wait on each other in a circle)."""
    return tuple(sorted(set(lookalike_keys(name))))


@dataclass(frozen=True, slots=True)
class RemoteGame:
    """A game another node holds: where it lives, and how it was last described."""

    name: str
    node: str
    """The holding node's id (new each time a node starts)."""
    address: str
    """``HOST:PORT`` the holding node advertises for clients."""
    relay: str
    """``HOST:PORT`` of the holding node's relay port (:mod:`server.cluster.relay`)."""
    info: GameInfo | None
    """``None`` while its world is being built (the name is taken nonetheless)."""


class Directory(Protocol):
    """Where every game of the cluster lives, as the lobby asks and tells it; see the
    module docstring (what the server does with it as it starts: :class:`Node`)."""

    node: str
    """This node's id."""
    advertise: str | None
    """``HOST:PORT`` this node advertises for clients (``None`` until it listens)."""
    leases: Leases
    """The player names this node holds and the lease its claims stand on (the directory
    itself, in the role the lobby's claims use)."""

    def carry(self, client: Outbox, remote: RemoteGame, command: Join | Watch) -> bool:
        """Carry ``client`` to the node holding ``remote`` and send it ``command``
        there; ``False`` if this client cannot be carried (it is told where to go)."""

    async def run(
        self,
        local_games: LocalGames,
        local_names: LocalNames,
        *,
        task_status: trio.TaskStatus[None] = ...,
    ) -> None:
        """Keep the shared directory and the local copy current until cancelled."""

    async def claim(self, name: str) -> str | None:
        """Take ``name`` for a game of this node; ``None`` if taken, else why not."""

    def publish(self) -> None:
        """This node's games changed (one added or ended): tell the cluster soon."""

    def release(self, name: str) -> None:
        """``name`` is no longer this node's (its game ended, or its build failed)."""

    async def flush(self) -> None:
        """Return once the directory holds this node's games and names as they are now,
        so that every node's later :meth:`caught_up` sees them; at once if the directory
        is found unreachable meanwhile (a sync fails), and after :data:`SETTLE_TIMEOUT`
        seconds at most."""

    async def caught_up(self) -> None:
        """Return once the local copy holds every change the directory held when this was
        called; at once if the directory is found unreachable meanwhile, and after
        :data:`SETTLE_TIMEOUT` seconds at most. Calls made while one is under way share
        the next round trip."""

    def elsewhere(self, name: str) -> RemoteGame | None:
        """The game called ``name`` if another node holds it."""

    def remote_games(self) -> Iterable[RemoteGame]:
        """Every game other nodes hold, from the local copy."""


class Leases(Protocol):
    """The player names a node holds in the cluster, and the lease its claims stand on,
    as the lobby's claims keep them (:mod:`server.lobby.claims`); see the module
    docstring."""

    lost: LostClaims
    """Called when this node finds claims it held taken by another node (set by the lobby)."""

    async def claim_name(self, name: str) -> str | None:
        """Take the player's name ``name`` (and every lookalike of it) for this node;
        ``None`` if taken, else why not. This node holds it until no player of its games
        goes by it (the directory lets it go at its next sync)."""

    def holds_name(self, name: str) -> bool:
        """Whether this node holds ``name`` already (no claim needed to seat it)."""

    def lapsed(self) -> bool:
        """Whether this node's lease is unconfirmed now: its claims may be another's."""

    async def confirm(self) -> bool:
        """Whether the lease is confirmed, renewing it first if it has lapsed (within
        :data:`SETTLE_TIMEOUT` seconds; ``False`` if it could not be)."""

    def name_elsewhere(self, name: str) -> bool:
        """Whether a player of another node goes by ``name`` (or a lookalike of it)."""


class Node(Protocol):
    """What the server does with its node's directory as it starts serving (the lobby
    uses the rest of it, :class:`Directory`)."""

    def listening(self, host: str, port: int) -> None:
        """The node listens on ``host:port``: what it advertises unless told otherwise."""

    async def serve_relays(
        self,
        host: str,
        serve: ServeRelayed,
        log_for: LogFor | None = None,
        *,
        task_status: trio.TaskStatus[None] = ...,
    ) -> None:
        """Take clients other nodes carry here, on a port of ``host``, until cancelled;
        reports itself started once that port is bound (before :meth:`Directory.run`).
        Events about a relay connection go to ``log_for(its address)``."""


class LocalDirectory:
    """The directory of a server alone: every name is its own, no game is elsewhere."""

    node = "local"

    def __init__(self) -> None:
        self.advertise: str | None = None
        self.lost: LostClaims = _nothing_lost
        self.leases: Leases = self

    def listening(self, host: str, port: int) -> None:
        self.advertise = f"{host}:{port}"

    async def serve_relays(
        self,
        host: str,
        serve: ServeRelayed,
        log_for: LogFor | None = None,
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        task_status.started()

    def carry(self, client: Outbox, remote: RemoteGame, command: Join | Watch) -> bool:
        return False

    async def run(
        self,
        local_games: LocalGames,
        local_names: LocalNames,
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        task_status.started()

    async def claim(self, name: str) -> str | None:
        return None

    async def claim_name(self, name: str) -> str | None:
        return None

    def holds_name(self, name: str) -> bool:
        return True

    def lapsed(self) -> bool:
        return False

    async def confirm(self) -> bool:
        return True

    def publish(self) -> None:
        pass

    def release(self, name: str) -> None:
        pass

    async def flush(self) -> None:
        pass

    async def caught_up(self) -> None:
        pass

    def elsewhere(self, name: str) -> RemoteGame | None:
        return None

    def remote_games(self) -> Iterable[RemoteGame]:
        return ()

    def name_elsewhere(self, name: str) -> bool:
        return False
