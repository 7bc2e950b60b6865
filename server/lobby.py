"""The games on one server: the default game, those clients create, and moving between them.

What a caller may rely on:

* The default game (``default``) always exists; a connection plays in it until
  it joins or watches another. It restarts with a fresh world whenever it ends.
* ``CREATE`` adds a game (at most ``max_games`` in all). A created game that
  ends restarts too while someone watches it; otherwise it is removed.
* A map for a created game must be one the world ships, or a spec that names
  no file or folder (such as a generator's settings): clients cannot make the
  server open files of their choosing.
* :meth:`Lobby.run` owns every game's task; when it returns, every game is
  closed and its replay written to the end. :meth:`Lobby.close_all` does that
  at once, so that the players a shutdown sends away are not recorded as having
  left a game that went on.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import trio

from protocol.commands import Command, Create, Games, Join, Watch
from protocol.replies import Error, GamesReply
from worlds.api import PlayerKind, WorldError, WorldPlugin
from worlds.errors import MapError
from worlds.limits import Limits, MapFiles
from worlds.registry import LimitedPlugin, UnknownWorld, load_plugin

from .config import ServerConfig
from .game import Game

if TYPE_CHECKING:
    from .connection import Connection

DEFAULT_GAME = "default"


class Lobby:
    """Every game on a server; see the module docstring."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.client_limits = Limits(
            cells=config.max_map_cells,
            generated_cells=config.max_generated_cells,
            files=MapFiles(folder=None if config.maps_dir is None else Path(config.maps_dir)),
        )
        """What a client's ``CREATE`` may ask of a world (the operator's ``--map`` is trusted)."""
        self._plugins: dict[str, WorldPlugin] = {plugin.name: plugin for plugin in config.worlds}
        self.games: dict[str, Game] = {}
        self._nursery: trio.Nursery | None = None
        self.default = self._add(
            DEFAULT_GAME, self.plugin(config.world), config.map, config.seed, config.max_players
        )

    def plugin(self, name: str) -> WorldPlugin:
        """The world plugin called ``name``; raises :class:`UnknownWorld`."""
        plugin = self._plugins.get(name)
        if plugin is None:
            plugin = self._plugins[name] = load_plugin(name)
        return plugin

    def _add(
        self,
        name: str,
        plugin: WorldPlugin,
        map_spec: str | None,
        seed: int,
        limit: int | None,
        turn: float | None = None,
    ) -> Game:
        config = self.config
        game = Game(
            name,
            plugin,
            map_spec,
            seed,
            limit=limit,
            turn_timeout=turn or config.turn_timeout,
            max_missed_turns=config.max_missed_turns,
            replay_dir=None if config.replay_dir is None else Path(config.replay_dir),
            on_over=self._over,
        )
        self.games[name] = game
        if self._nursery is not None:
            self._nursery.start_soon(game.run)
        return game

    def _over(self, game: Game) -> bool:
        """Whether a game that ended starts again; one that does not is removed."""
        if game is self.default or game.watchers:
            return True
        self.games.pop(game.name, None)
        return False

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Run every game's task until cancelled, then close every game."""
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                for game in self.games.values():
                    nursery.start_soon(game.run)
                task_status.started()
                await trio.sleep_forever()
        finally:
            self._nursery = None
            self.close_all()

    def close_all(self) -> None:
        """End every game now: the server is stopping (idempotent)."""
        for game in self.games.values():
            if not game.closed:
                game.close("server stopped")

    # -- the lobby's commands -------------------------------------------------------------

    def handle(self, connection: Connection, command: Command) -> None:
        kind = type(command)
        if kind is Games:
            connection.send(GamesReply(tuple(game.info() for game in self.games.values())))
        elif kind is Create:
            self._create(connection, command)  # type: ignore[arg-type]
        elif kind is Join:
            self._join(connection, command.game)  # type: ignore[attr-defined]
        elif kind is Watch:
            self._watch(connection, command.game)  # type: ignore[attr-defined]

    def _find(self, connection: Connection, name: str) -> Game | None:
        game = self.games.get(name)
        if game is None:
            connection.send(Error(f"there is no game called {name}; send GAMES for the list"))
        return game

    def _create(self, connection: Connection, command: Create) -> None:
        if command.game in self.games:
            connection.send(Error(f"there is already a game called {command.game}"))
            return
        if len(self.games) >= self.config.max_games:
            connection.send(
                Error(f"the server holds {self.config.max_games} games already; join one")
            )
            return
        try:
            plugin = self.plugin(command.world)
        except UnknownWorld as error:
            connection.send(Error(str(error)))
            return
        except Exception as error:
            connection.send(Error(f"the {command.world} world cannot be loaded: {error}"))
            return
        # The clients' limits bound what the spec may name and cost (worlds.mapspec).
        plugin = LimitedPlugin(plugin, self.client_limits)
        spec = command.map
        try:
            game = self._add(
                command.game, plugin, spec, command.seed, command.players, command.turn
            )
        except (MapError, WorldError, ValueError) as error:
            connection.send(Error(f"the game cannot be opened: {error}"))
            return
        connection.send(game.info())

    def _join(self, connection: Connection, name: str) -> None:
        game = self._find(connection, name)
        if game is None:
            return
        if connection.game is game:
            connection.send(game.info())
            return
        if game.full():
            connection.send(Error(f"the game {name} is full ({game.limit} players)"))
            return
        if connection.name is not None and connection.name in game.names:
            connection.send(
                Error(f"the name {connection.name!r} is taken in {name}; choose another first")
            )
            return
        connection.leave_game("moved")
        try:
            game.join(connection, PlayerKind.BOT if connection.bot else PlayerKind.HUMAN)
        except WorldError as error:
            connection.send(Error(str(error)))
            return
        connection.send(game.info())

    def _watch(self, connection: Connection, name: str) -> None:
        game = self._find(connection, name)
        if game is None:
            return
        connection.leave_game("moved")
        connection.watching = game
        game.watch(connection)

