"""The cluster's claims, as the lobby keeps them: a node acts on a name only while it is its.

What a caller may rely on (on a node of a cluster; a server alone claims nothing):

* A ``HELLO <name>`` is answered once this node holds the name in the cluster's
  directory (:meth:`~server.cluster.directory.Leases.claim_name`), so of two nodes
  asked for one name, or for two that look alike, at once, exactly one gives it; the
  other answers ``ERROR <name> is playing on another node of this cluster; choose
  another name``. A client carried here from another node has its name claimed here
  before it is seated in a game (:meth:`ClusterClaims.claim_then`).
* While this node's lease is unconfirmed (:meth:`~server.cluster.directory.Leases.lapsed`:
  another node may hold its claims by now), no command of a created game's player or
  watcher, and none of a named player, is acted on: it waits for the lease to be
  confirmed (:meth:`ClusterClaims.when_confirmed`), at most
  :data:`~server.cluster.directory.SETTLE_TIMEOUT` seconds, and is answered
  ``ERROR`` if it cannot be. The players of the node's ``default`` game without a
  name play on.
* Claims another node holds now end what used them (:meth:`ClusterClaims.lost`): a created
  game is ended, its players told ``BYE`` and its watchers ``GAMEOVER``; a player whose
  name another node gave out is told ``BYE`` and leaves. Both name the reason.
* A ``JOIN`` or ``WATCH`` of a game this node's copy of the directory does not know is
  answered once the copy has caught up with the directory (a game created on another
  node a moment ago is found), within the same bound (:meth:`ClusterClaims.after_catching_up`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from typing import Final, Protocol

import structlog
import trio

from dungeon_of_doom.protocol.replies import Bye, Error
from dungeon_of_doom.records.names import LookalikeNames

from ..cluster.directory import Directory, LocalDirectory
from ..game.game import Game
from ..game.outbox import Outbox

__all__ = ["ClusterClaims", "Host"]

log = structlog.get_logger("dungeon_of_doom.server.lobby")

ON_HOLD: Final = (
    "this node has lost touch with the cluster's directory, so it acts for no created "
    "game and no named player until it is back; try again in a moment"
)
GAME_LOST: Final = (
    "another node of this cluster holds its name now (this node lost touch with the "
    "cluster's directory)"
)


def _playing_elsewhere(name: str) -> str:
    return f"{name} is playing on another node of this cluster; choose another name"


class Host(Protocol):
    """The lobby, as keeping the claims needs it (:class:`~server.lobby.lobby.Lobby`)."""

    directory: Directory
    games: dict[str, Game]
    nursery: trio.Nursery | None
    """Where the games' tasks run; ``None`` unless the lobby runs."""

    def gone(self, game: Game, why: str) -> None:
        """Take a created game off the server, its spectators told and sent back."""
        ...

    def leave(self, client: Outbox, why: str) -> None:
        """``client`` stops playing or watching, whichever it does."""
        ...


class ClusterClaims:
    """What the lobby does for the cluster's claims; see the module docstring."""

    def __init__(self, host: Host) -> None:
        self._host = host
        directory = host.directory
        self.lapsed: Callable[[], bool] | None = (
            None if isinstance(directory, LocalDirectory) else directory.leases.lapsed
        )
        """The directory's :meth:`~server.cluster.directory.Leases.lapsed`; ``None``
        for a server alone (its lobby skips the check altogether)."""
        directory.leases.lost = self.lost

    def fenced(self, client: Outbox, game: Game, *, watching: bool) -> bool:
        """Whether ``client``'s command in ``game`` must wait for the lease: it acts on a
        name of the directory's (a created game's, or its player's own), and the lease is
        unconfirmed now."""
        return (
            self.lapsed is not None
            and (game.spec.owner is not None or (client.who.name is not None and not watching))
            and self.lapsed()
        )

    def holds_up(self, client: Outbox, game: Game, watching: bool) -> bool:
        """Whether ``client``'s command in ``game`` must wait (:meth:`hold_up`): it plays
        under a name this node does not hold (a ``HELLO`` refused leaves the name it
        asked for), or :meth:`fenced`."""
        name = client.who.name
        if name is not None and not watching and not self._host.directory.leases.holds_name(name):
            return True
        return self.fenced(client, game, watching=watching)

    def hold_up(self, client: Outbox, watching: bool, then: Callable[[], None]) -> None:
        """Run ``then`` once :meth:`holds_up` no longer holds: the client's name claimed
        (refused at once if the local copy says another node's player goes by it), or
        the lease confirmed."""
        leases, name = self._host.directory.leases, client.who.name
        if name is not None and not watching and not leases.holds_name(name):
            if leases.name_elsewhere(name):
                client.send(Error(_playing_elsewhere(name)))
                return
            self.claim_then(client, name, then)
            return
        self.when_confirmed(client, then)

    def when_confirmed(self, client: Outbox, then: Callable[[], None]) -> None:
        """Run ``then`` once the lease is confirmed; ``ERROR`` if it cannot be in time.
        The client's next command is read after."""
        leases = self._host.directory.leases

        async def confirmed() -> str | None:
            return None if await leases.confirm() else ON_HOLD

        self._later(client, confirmed, then)

    def claim_then(self, client: Outbox, name: str, then: Callable[[], None]) -> None:
        """Claim ``name`` for this node, then run ``then``; ``ERROR`` (why not) if it is
        another node's or cannot be claimed now."""
        leases = self._host.directory.leases

        async def claimed() -> str | None:
            return await leases.claim_name(name)

        self._later(client, claimed, then)

    def after_catching_up(self, client: Outbox, then: Callable[[], None]) -> None:
        """Run ``then`` once the local copy holds every change the directory holds."""
        directory = self._host.directory

        async def caught_up() -> None:
            await directory.caught_up()

        self._later(client, caught_up, then)

    def _later(
        self,
        client: Outbox,
        wait: Callable[[], Awaitable[str | None]],
        then: Callable[[], None],
    ) -> None:
        nursery = self._host.nursery
        if nursery is None:
            client.send(Error("the server is not running games"))
            return
        done = trio.Event()
        client.wait_for(done)

        async def answer() -> None:
            try:
                refusal = await wait()
                if client.closed:
                    return
                if refusal is not None:
                    client.send(Error(refusal))
                    return
                then()
            except Exception:
                client.who.log.exception("command failed while the cluster was asked")
                client.send(Error("the server failed to handle that command (a server bug)"))
            finally:
                done.set()

        nursery.start_soon(answer)

    def lost(self, games: Collection[str], names: Collection[str]) -> None:
        """Another node holds these claims of this node's now: end what used them."""
        host = self._host
        for name in games:
            game = host.games.get(name)
            if game is None or game.spec.owner is None:
                continue
            log.warning("game ended: its name was lost", game=name)
            game.evict(Bye(f"the game {name} has ended: {GAME_LOST}"))
            host.gone(game, GAME_LOST)
        if not names:
            return
        taken: LookalikeNames[bool] = LookalikeNames()
        for lost in names:
            taken[lost] = True
        for game in list(host.games.values()):
            for player, client in list(game.players.items()):
                called = game.name_of(player)
                if called is None or called not in taken:
                    continue
                client.who.log.warning("player's name lost", name=called)
                host.leave(client, "name lost")
                client.finish(
                    Bye(
                        f"another node of this cluster gave the name {called} to another "
                        "player while this node was out of touch with the cluster's "
                        "directory; connect again and choose a name"
                    ),
                    reason="name lost",
                )
