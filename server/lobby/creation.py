"""Creating a game: the limits on ``CREATE``, its world built off the loop, its name claimed.

What a caller may rely on:

* ``CREATE`` adds a game once its world is built, off the event loop
  (:mod:`server.game.builds`): the reply (``GAME`` or ``ERROR``) comes when the world is
  ready, and the client's next command is read after it; every other client plays
  on meanwhile.
* **Limits**, each refused with an ``ERROR`` that names the setting, in this order
  (:func:`refusal`, a pure function of the command and a :class:`Census`):
  no game while the server stops; a name no game here, being built here or on
  another node of the cluster has; ``max_games`` games at once (those being built
  count); ``max_games_per_address`` games the clients of one address hold
  (:mod:`server.lobby.seating`); ``max_games_per_client`` games a client has created that
  still exist; ``max_players_per_game`` players (``players=``, also the limit when
  none is asked for); rounds from ``min_turn_timeout`` to ``max_turn_timeout``
  seconds (``turn=``); ``max_world_builds`` worlds being built at once (``CREATE``
  is refused, not queued). Then ``world_build_timeout`` seconds to build the world.
* A game's name is claimed in the cluster's directory (:mod:`server.cluster`)
  before its world is built, and released if the build fails. A game whose creator
  has gone by the time it is ready is added all the same, and waits for its first
  player as any other.
* ``map=default`` is the world's default map, in every world (what ``GAMES`` shows).
* A map for a created game must be one the world ships, or a spec that names
  no file or folder (such as a generator's settings): clients cannot make the
  server open files of their choosing.
* A plugin that raises while a world is loaded or opened ends that ``CREATE`` (an
  ``ERROR`` to the client, one log event), never the server.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import structlog
import trio

from protocol.commands import Create
from protocol.replies import Error, GameInfo
from worlds.api import WorldError, WorldPlugin
from worlds.errors import MapError
from worlds.limits import Limits, MapFiles
from worlds.registry import LimitedPlugin, UnknownWorld

from ..cluster.directory import Directory
from ..game.builds import BuildTimeout, Opened, WorldBuilder
from ..game.outbox import Outbox
from ..game.spec import GameSpec
from ..setup.config import ServerConfig
from .seating import Seating

__all__ = ["Census", "Creations", "Holder", "game_spec", "refusal"]

# The lobby's logger: these events were the lobby's before creating a game had a
# module of its own, and whoever reads the logs filters on it.
log = structlog.get_logger("server.lobby")


class Created(Protocol):
    """A game just added, as its creator is answered (:class:`~server.game.game.Game`)."""

    def info(self) -> GameInfo:
        """The game as ``GAMES`` lists it."""
        ...


class Holder(Protocol):
    """The lobby, as creating a game needs it (:class:`~server.lobby.lobby.Lobby` is the one)."""

    config: ServerConfig
    directory: Directory
    builder: WorldBuilder
    seating: Seating[Any]
    owned: dict[int, set[str]]
    """The games each client (by id) created that still exist or are being built."""
    draining: bool
    nursery: trio.Nursery | None
    """Where the games' tasks run; ``None`` unless the lobby runs."""

    @property
    def games(self) -> Mapping[str, object]:
        """The games held, by name."""
        ...

    def plugin(self, name: str) -> WorldPlugin:
        """The world plugin called ``name``; raises :class:`UnknownWorld`."""
        ...

    def add(self, spec: GameSpec, *, opened: Opened) -> Created:
        """Hold a game as ``spec`` says, whose world is open, and run it."""
        ...


def game_spec(
    config: ServerConfig,
    name: str,
    plugin: WorldPlugin,
    map_spec: str | None,
    seed: int,
    limit: int | None,
    turn: float | None = None,
    *,
    owner: int | None = None,
    start_full: bool = False,
) -> GameSpec:
    """The spec of a game of a server with ``config``: what the settings give every game
    (``turn`` unless asked for, the missed turns, the map's size), and the rest as asked
    (``owner``: the id of the client that created it; ``None``: the server's own)."""
    return GameSpec(
        name,
        plugin,
        map_spec,
        seed,
        limit=limit,
        turn_timeout=turn or config.turn_timeout,
        max_missed_turns=config.max_missed_turns,
        start_full=start_full,
        owner=owner,
        unjoined_timeout=None if owner is None else config.unjoined_game_timeout,
        max_map_bytes=config.max_map_bytes,
    )


@dataclass(frozen=True, slots=True)
class Census:
    """What the server holds when a ``CREATE`` comes: all :func:`refusal` weighs
    besides the command and the settings."""

    draining: bool
    """The server is stopping."""
    name_taken: bool
    """A game here, one being built here, or one on another node has the name."""
    games: int
    """Games held here, those being built included."""
    share: str | None
    """Why the client's address may hold no more games (:meth:`Seating.refusal`)."""
    owned: int
    """Games the client created that still exist or are being built."""
    builds_busy: bool
    """``max_world_builds`` worlds are being built (:meth:`WorldBuilder.busy`)."""
    running: bool
    """The lobby runs games."""


def refusal(command: Create, config: ServerConfig, census: Census) -> str | None:
    """Why ``command`` may not create a game, naming the limit; ``None`` if it may."""
    if census.draining:
        return "this server is stopping and takes no new games; create it on another"
    if census.name_taken:
        return f"there is already a game called {command.game}"
    if census.games >= config.max_games:
        return f"the server holds {config.max_games} games already (max_games); join one"
    if census.share is not None:
        return census.share
    if census.owned >= config.max_games_per_client:
        return (
            f"you have created {census.owned} games that are still open; at most "
            f"{config.max_games_per_client} (max_games_per_client)"
        )
    if command.players is not None and command.players > config.max_players_per_game:
        return f"players= may be at most {config.max_players_per_game} here (max_players_per_game)"
    turn = command.turn
    if turn is not None and not config.min_turn_timeout <= turn <= config.max_turn_timeout:
        return (
            f"turn= takes from {config.min_turn_timeout:g} to {config.max_turn_timeout:g} "
            "seconds here (min_turn_timeout, max_turn_timeout)"
        )
    if census.builds_busy:
        return (
            f"the server is building {config.max_world_builds} worlds already "
            "(max_world_builds); try again in a moment"
        )
    if not census.running:
        return "the server is not running games"
    return None


class _Refused(Exception):
    """The directory refused a name (taken elsewhere, or the directory unreachable)."""


class Creations:
    """The games clients are creating on one lobby; see the module docstring."""

    def __init__(self, host: Holder) -> None:
        self._host = host
        self._building: set[str] = set()  # names of games whose world is being built
        config = host.config
        self.client_limits = Limits(
            cells=config.max_map_cells,
            generated_cells=config.max_generated_cells,
            files=MapFiles(folder=None if config.maps_dir is None else Path(config.maps_dir)),
        )
        """What a client's ``CREATE`` may ask of a world (the operator's ``--map`` is trusted)."""

    def census(self, client: Outbox, command: Create) -> Census:
        """What the lobby holds now, as :func:`refusal` weighs ``client``'s ``command``."""
        host, name = self._host, command.game
        return Census(
            draining=host.draining,
            name_taken=name in host.games
            or name in self._building
            or host.directory.elsewhere(name) is not None,
            games=len(host.games) + len(self._building),
            share=host.seating.refusal(client),
            owned=len(host.owned.get(client.who.id, ())),
            builds_busy=host.builder.busy(),
            running=host.nursery is not None,
        )

    def create(self, client: Outbox, command: Create) -> None:
        """Answer ``CREATE``: refuse it at once, or start building its world."""
        host = self._host
        refused = refusal(command, host.config, self.census(client, command))
        if refused is not None:
            client.send(Error(refused))
            return
        try:
            plugin = host.plugin(command.world)
        except UnknownWorld as error:
            client.send(Error(str(error)))
            return
        except Exception as error:
            log.warning("world not loaded", world=command.world, error=repr(error))
            client.send(Error(f"the {command.world} world cannot be loaded"))
            return
        # The clients' limits bound what the spec may name and cost (worlds.mapspec).
        plugin = LimitedPlugin(plugin, self.client_limits)
        done = trio.Event()
        self._building.add(command.game)
        host.owned.setdefault(client.who.id, set()).add(command.game)
        host.seating.creators[command.game] = client.who.address
        client.wait_for(done)
        assert host.nursery is not None
        host.nursery.start_soon(self._build, client, command, plugin, done)

    async def _build(
        self, client: Outbox, command: Create, plugin: WorldPlugin, done: trio.Event
    ) -> None:
        """Build the world of a ``CREATE`` off the loop, then add the game and answer."""
        host, name = self._host, command.game
        reply: Error | None = None
        try:
            taken = await host.directory.claim(name)
            if taken is not None:
                raise _Refused(taken)
            opened = await host.builder.open(plugin, command.map, command.seed)
        except _Refused as refused:
            reply = Error(str(refused))
        except BuildTimeout as error:
            reply = Error(str(error))
        except (MapError, WorldError, ValueError) as error:
            reply = Error(f"the game cannot be opened: {error}")
        except Exception as error:
            log.error(
                "world failed to open",
                game=name,
                world=plugin.name,
                map=command.map,
                error=repr(error),
            )
            reply = Error(f"the {plugin.name} world failed to open that map (a server bug)")
        finally:
            self._building.discard(name)
            owned = host.owned.get(client.who.id)
            if owned is not None:
                owned.discard(name)
            done.set()
        if reply is not None:
            host.seating.creators.pop(name, None)
            host.directory.release(name)  # a refused claim holds nothing to release
            client.send(reply)
            return
        # A creator that has gone meanwhile made the game all the same: like any other,
        # it waits for its first player (Lobby.client_gone).
        limit = command.players or host.config.max_players_per_game
        spec = game_spec(
            host.config,
            name,
            plugin,
            command.map,
            command.seed,
            limit,
            command.turn,
            owner=client.who.id,
            start_full=command.start_full,
        )
        game = host.add(spec, opened=opened)
        host.directory.publish()
        log.info("game created", game=name, world=plugin.name, conn=client.who.id)
        client.send(game.info())
