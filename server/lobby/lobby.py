"""The games on one server: the default game, those clients create, and moving between them.

What a caller may rely on:

* The default game (``default``) always exists; a client plays in it until
  it joins or watches another. It restarts with a fresh world whenever it ends.
* The lobby knows which client plays or watches which game (:meth:`Lobby.game_for`,
  :meth:`Lobby.seat`), and sends each game command there (:meth:`Lobby.command`, its
  one door for them); a client is an :class:`~server.game.outbox.Outbox` to it, never
  changed by it.
* The lobby holds every game it made (:meth:`Lobby.add`, from a
  :class:`~server.game.spec.GameSpec`) and is what each game tells (its
  :class:`~server.game.spec.GameHooks`): whether a game that ended is kept, that one
  has gone, each finished game's record (to the records, if any), whether a client
  may chat and whether a fresh world may begin.
* ``CREATE`` adds a game once its world is built, off the event loop; its limits
  and what else it promises are in :mod:`server.lobby.creation`. A created game that
  ends restarts too while someone watches it; otherwise it is removed.
* **Limit**, refused with an ``ERROR`` that names the setting:
  ``max_games_per_address`` games the clients of one address hold (created and
  not ended, played in or watched; checked on ``CREATE``, ``JOIN`` and ``WATCH``),
  so one address cannot take every game.
* **No squatting**: a created game nobody has joined is removed after
  ``unjoined_game_timeout`` seconds, whether its creator stays or not (its address holds
  it meanwhile); one that has been played goes with its creator once nobody is in it.
* A plugin that raises while a world is opened, joined or restarted ends that
  request (an ``ERROR`` to the client, one log event), never the server.
* :meth:`Lobby.run` owns every game's task and every build; when it returns, every
  game is closed and its replay written to the end. :meth:`Lobby.close_all` does
  that at once, so that the players a shutdown sends away are not recorded as
  having left a game that went on.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar, Protocol, TypeVar, cast

import trio

from dungeon_of_doom.protocol.commands import Command, Create, Games, Hello, Join, Watch
from dungeon_of_doom.protocol.replies import Error, GameInfo, GameOver, GamesReply, Redirect
from dungeon_of_doom.records.model import GameRecord
from dungeon_of_doom.records.names import name_taken
from dungeon_of_doom.worlds.api import PlayerId, PlayerKind, WorldError, WorldPlugin
from dungeon_of_doom.worlds.registry import load_plugin

from ..cluster.directory import Directory, LocalDirectory, RemoteGame
from ..game.builds import Opened, WorldBuilder, open_world
from ..game.game import Game
from ..game.outbox import Outbox
from ..game.spec import GameSpec
from ..ratelimit import TokenBucket
from ..replay.shelf import ReplayShelf
from ..setup.config import ServerConfig
from .claims import ClusterClaims
from .creation import Creations, game_spec
from .seating import DEFAULT_GAME, Seating

__all__ = ["DEFAULT_GAME", "Lobby"]


_C = TypeVar("_C", bound=Command)
_Answer = Callable[["Lobby", Outbox, Command], None]


def _answers(
    kind: type[_C], handler: Callable[[Lobby, Outbox, _C], None]
) -> tuple[type[Command], _Answer]:
    """One entry of :attr:`Lobby._COMMANDS`. It is looked up by the command's exact class,
    so ``handler`` only ever gets a ``kind``; the cast records that invariant."""
    return kind, cast(_Answer, handler)


class Records(Protocol):
    """Where finished games are recorded (:class:`records.writer.RecordWriter`)."""

    def submit(self, record: GameRecord) -> None:
        """Record ``record`` (never blocks; written by the records' own task)."""
        ...

    def refusal(self) -> str | None:
        """Why no game may begin now (too many wait to be recorded), or ``None``."""
        ...


class Lobby:
    """Every game on a server; see the module docstring."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        records: Records | None = None,
        directory: Directory | None = None,
    ) -> None:
        self.config = config
        self.directory: Directory = directory if directory is not None else LocalDirectory()
        """Which node holds which game (:mod:`server.cluster`); this server alone by default."""
        self.records = records
        """Where the record of every game that ends goes, and whether one may begin."""
        self._plugins: dict[str, WorldPlugin] = {plugin.name: plugin for plugin in config.worlds}
        self.games: dict[str, Game] = {}
        self.nursery: trio.Nursery | None = None
        """Where the games' tasks run; ``None`` unless :meth:`run` runs."""
        self.builder = WorldBuilder(
            config.max_world_builds, config.world_build_timeout, config.max_map_bytes
        )
        self.replays = (
            None
            if config.replay_dir is None
            else ReplayShelf(
                Path(config.replay_dir),
                keep=config.replay_keep,
                keep_bytes=config.replay_keep_bytes,
                rate=config.replay_rate,
                burst=config.replay_burst,
                max_bytes=config.max_replay_bytes,
            )
        )
        self._games_listed: tuple[tuple[GameInfo, ...], GamesReply] = ((), GamesReply(()))
        """The last ``GAMES`` answer and the games it lists."""
        self.seating = seating = Seating[Game](config.max_games_per_address)
        """Who plays in or watches which game, and what each address holds."""
        # Who plays in a game other than the default one (see game_for), who watches one.
        self._playing, self._watching = seating.playing, seating.watching
        self.owned: dict[int, set[str]] = {}
        """The games each client (by id) created that still exist or are being built."""
        self._played: set[str] = set()  # created games whose world has ended at least once
        self.draining = False
        """Set while the server stops: no game may be created here any more."""
        self.creations = Creations(self)
        """How a ``CREATE`` is answered (:mod:`server.lobby.creation`)."""
        self.claims = ClusterClaims(self)
        """The cluster's claims of names, and this node's lease (:mod:`server.lobby.claims`)."""
        self._lapsed = self.claims.lapsed
        self._chat: weakref.WeakKeyDictionary[Outbox, TokenBucket] = weakref.WeakKeyDictionary()
        plugin = self.plugin(config.world)
        # The server's own map, opened before it listens; a copy is kept so that a
        # restart can fall back on it if the file is later edited badly or removed.
        opened = open_world(plugin, config.map, config.seed, config.max_map_bytes, template=True)
        self.default = self.add(
            game_spec(config, DEFAULT_GAME, plugin, config.map, config.seed, config.max_players),
            opened=opened,
        )

    def plugin(self, name: str) -> WorldPlugin:
        """The world plugin called ``name``; raises :class:`UnknownWorld`."""
        plugin = self._plugins.get(name)
        if plugin is None:
            plugin = self._plugins[name] = load_plugin(name)
        return plugin

    def add(self, spec: GameSpec, *, opened: Opened) -> Game:
        """Hold a game as ``spec`` says whose world is ``opened``, and run it if the
        lobby runs."""
        game = Game(spec, self, opened=opened, builder=self.builder, replays=self.replays)
        self.games[spec.name] = game
        if spec.owner is not None:
            self.owned.setdefault(spec.owner, set()).add(spec.name)
        if self.nursery is not None:
            self.nursery.start_soon(game.run)
        return game

    # -- what each game tells the lobby (server.game.spec.GameHooks) ------------------

    def kept(self, game: Game) -> bool:
        """Whether a game that ended starts again; one that does not is removed."""
        if game is self.default or game.watchers:
            if game.spec.owner is not None:
                self._played.add(game.name)
            return True
        self._forget(game)
        return False

    def gone(self, game: Game, why: str) -> None:
        """Take a created game off the server (nobody joined it, or it cannot restart);
        its spectators are told and sent back to the default game."""
        if game is self.default:
            return
        self._forget(game)
        notice = GameOver(f"{game.name} is removed: {why}")
        for client in list(game.watchers):
            client.push(notice)
            self.leave(client, "game removed")
        if not game.closed:
            game.close(f"removed: {why}")

    def finished(self, record: GameRecord) -> None:
        """A game's record, for the records (if the server keeps them)."""
        if self.records is not None:
            self.records.submit(record)

    def may_begin(self) -> str | None:
        """Why no game may begin now (``None``: they may): the records' backlog."""
        return None if self.records is None else self.records.refusal()

    def may_chat(self, client: Outbox) -> bool:
        """Whether ``client`` may send one more ``SHOUT`` now; if not, it is told."""
        bucket = self._chat.get(client)
        if bucket is None:
            bucket = self._chat[client] = TokenBucket(self.config.chat_rate, self.config.chat_burst)
        if bucket.take():
            return True
        client.send(
            Error(
                f"too many messages: at most {self.config.chat_burst} at once and "
                f"{self.config.chat_rate:g} a second (chat_rate); wait a moment"
            )
        )
        return False

    def _forget(self, game: Game) -> None:
        if self.games.get(game.name) is game:
            self._played.discard(game.name)
            del self.games[game.name]
            self.seating.creators.pop(game.name, None)
            if game.spec.owner is not None:
                self.directory.release(game.name)
        for client in [client for client, place in self._playing.items() if place is game]:
            self.seating.unseat(self._playing, client)  # its players go back to the default game
        owner = game.spec.owner
        if owner is not None:
            owned = self.owned.get(owner)
            if owned is not None:
                owned.discard(game.name)
                if not owned:
                    del self.owned[owner]

    def worlds_played(self) -> set[str]:
        """The worlds of the games here (``LEADERBOARD`` may name each)."""
        return {game.world_name for game in self.games.values()}

    def client_gone(self, client: Outbox) -> None:
        """``client`` has ended. A game it created that nobody has joined yet waits for
        its first player (module docstring); one played, with nobody in it, goes."""
        for name in self.owned.pop(client.who.id, ()):
            game = self.games.get(name)
            if game is None or name not in self._played or game.players or game.watchers:
                continue
            why = "it was played, and its creator left with nobody in it"
            game.log_removed(why)
            self.gone(game, why)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Run every game's task until cancelled, then close every game."""
        try:
            async with trio.open_nursery() as nursery:
                self.nursery = nursery
                for game in self.games.values():
                    nursery.start_soon(game.run)
                await nursery.start(self.directory.run, self._created_infos, self._names_in_play)
                task_status.started()
                await trio.sleep_forever()
        finally:
            self.nursery = None
            self.close_all()

    def settle(self) -> None:
        """Make lasting what the commands just handled changed, before any reply that
        tells of it is written: every game's unwritten replay lines go to the operating
        system (one shelf holds them all: :meth:`ReplayShelf.flush`)."""
        if self.replays is not None:
            self.replays.flush()

    def close_all(self) -> None:
        """End every game now: the server is stopping (idempotent)."""
        for game in list(self.games.values()):
            if not game.closed:
                game.close("server stopped")

    # -- the lobby's commands -------------------------------------------------------------

    def handle(self, client: Outbox, command: Command) -> None:
        """Answer ``GAMES``, ``CREATE``, ``JOIN`` or ``WATCH``."""
        self._COMMANDS[type(command)](self, client, command)

    def _games(self, client: Outbox, command: Games) -> None:
        games = [game.info() for game in self.games.values()]
        games += [
            remote.info
            for remote in self.directory.remote_games()
            if remote.info is not None and remote.name not in self.games
        ]
        listed = tuple(games)
        # The last answer again while it lists the same games (Game.info() keeps each
        # line while it holds): a reply checks every line it is built with.
        if listed != self._games_listed[0]:
            self._games_listed = (listed, GamesReply(listed))
        client.send(self._games_listed[1])

    def _names_in_play(self) -> set[str]:
        """Every name a player of this node goes by (for the directory)."""
        return {name for game in self.games.values() for name in game.names}

    def _created_infos(self) -> list[GameInfo]:
        """The games clients created here, as ``GAMES`` lists them (for the directory)."""
        return [game.info() for game in self.games.values() if game.spec.owner is not None]

    _COMMANDS: ClassVar[dict[type[Command], _Answer]] = dict(
        (
            _answers(Games, _games),
            _answers(
                Create, lambda lobby, client, command: lobby.creations.create(client, command)
            ),
            _answers(
                Join, lambda lobby, client, command: lobby._carry(client, command, lobby._join)
            ),
            _answers(
                Watch, lambda lobby, client, command: lobby._carry(client, command, lobby._watch)
            ),
        )
    )
    """The lobby's commands, by kind; the session sends it no other."""

    # -- where each client is ----------------------------------------------------------

    def game_for(self, client: Outbox) -> Game:
        """The game ``client`` watches, or plays in (else the default game)."""
        return self._watching.get(client) or self._playing.get(client) or self.default

    def hello(self, client: Outbox, command: Hello) -> None:
        """``HELLO``, as :meth:`command`, once a name is this node's (:mod:`.claims`)."""
        if command.name is not None and not self.directory.leases.holds_name(command.name):
            self.claims.claim_then(client, command.name, lambda: self.hello(client, command))
            return
        if command.name is not None:
            self.directory.publish()
        self.command(client, command)

    def command(self, client: Outbox, command: Command) -> None:
        """A game command (any the session does not answer): to ``client``'s game; on a
        cluster's node, one on a name not held, or under a lapsed lease, waits (:mod:`.claims`)."""
        watched = self._watching.get(client)
        game = watched or self._playing.get(client, self.default)
        if self._lapsed is not None and self.claims.holds_up(client, game, watched is not None):
            self.claims.hold_up(client, watched is not None, lambda: self.command(client, command))
            return
        if watched is not None:
            watched.handle_watcher(client, command)
        else:
            game.handle(client, command)

    def watching(self, client: Outbox) -> Game | None:
        """The game ``client`` watches, if it watches one."""
        return self._watching.get(client)

    def seat(self, client: Outbox) -> tuple[Game, PlayerId] | None:
        """The game ``client`` plays in and its player there, if it plays."""
        if client in self._watching:
            return None
        game = self._playing.get(client, self.default)
        player = game.player_of(client)
        return None if player is None else (game, player)

    def listen(self, client: Outbox) -> None:
        """``client`` asked for events: its game (if any) pushes them from now on."""
        self.game_for(client).listen(client)

    def leave(self, client: Outbox, why: str) -> None:
        """``client`` stops playing or watching, whichever it does (``why``: for the
        others and the record: ``quit``, ``disconnected``, ``moved``...)."""
        (self.seating.unseat(self._playing, client) or self.default).leave(client, why)
        watched = self.seating.unseat(self._watching, client)
        if watched is not None:
            watched.unwatch(client)

    def resume(self, old: Outbox, new: Outbox) -> Game | None:
        """``new`` plays ``old``'s player from now on (a logged-in player came back,
        :mod:`server.lobby.ladder`); the game, or ``None`` if that player is gone."""
        game = self._playing.get(old, self.default)
        self.leave(new, "moved")
        if not game.resume(old, new):
            return None
        self.seating.unseat(self._playing, old)
        if game is not self.default:
            self.seating.seat(self._playing, new, game)
        return game

    def _find(self, client: Outbox, name: str) -> Game | None:
        game = self.games.get(name)
        if game is None:
            remote = self.directory.elsewhere(name)
            if remote is not None:
                client.send(Error(f"the game {name} is played on {remote.address}; connect there"))
            else:
                client.send(Error(f"there is no game called {name}; send GAMES for the list"))
        return game

    def _carry(
        self,
        client: Outbox,
        command: Join | Watch,
        here: Callable[[Outbox, str], None],
        *,
        settled: bool = False,
    ) -> None:
        """``command`` for a game here; or ``client`` sent on to the node of the cluster
        that holds it, if another does and the client can be carried. A game nobody is
        known to hold is looked for again once the local copy of the directory has caught
        up (``settled``): a client told a game exists on another node finds it here."""
        local = self.games.get(command.game)
        remote = None if local is not None else self.directory.elsewhere(command.game)
        if self._lapsed is not None:
            if local is None and remote is None and not settled:
                again = lambda: self._carry(client, command, here, settled=True)  # noqa: E731
                self.claims.after_catching_up(client, again)
                return
            if local is not None and self.claims.fenced(client, local, watching=False):
                self.claims.when_confirmed(client, lambda: self._carry(client, command, here))
                return
        if (
            remote is not None
            and client.wants.redirect
            and remote.address != self.directory.advertise
        ):
            # (Workers of one machine share one address: a client sent there could land here.)
            self._redirect(client, remote)
        elif remote is not None and self.directory.carry(client, remote, command):
            self.leave(client, "moved")
        else:
            here(client, command.game)

    def _redirect(self, client: Outbox, remote: RemoteGame) -> None:
        """Tell ``client`` where ``remote`` lives (``EXTEND redirect``). It leaves its game
        here first, and is told only once the directory no longer holds its name for this
        node, so that the game's node lets it say ``HELLO`` with that name at once."""
        self.leave(client, "moved")
        answer = Redirect(remote.name, remote.address)
        if self.nursery is None:
            client.send(answer)
            return
        done = trio.Event()
        client.wait_for(done)

        async def tell() -> None:
            try:
                await self.directory.flush()
                client.send(answer)
            finally:
                done.set()

        self.nursery.start_soon(tell)

    def _join(self, client: Outbox, name: str) -> None:
        game = self._find(client, name)
        if game is None:
            return
        if game.hold(client, lambda: self._join(client, name)):
            return
        if game.player_of(client) is not None:
            client.send(game.info())
            return
        if game.full():
            client.send(Error(f"the game {name} is full ({game.spec.limit} players)"))
            return
        share = self.seating.refusal(client, name)
        if share is not None:
            client.send(Error(share))
            return
        asked = client.who.name
        if asked is not None and asked in game.names:
            client.send(Error(name_taken(asked, game.names, name, "choose another first")))
            return
        if asked is not None and not self.directory.leases.holds_name(asked):
            # Carried here from another node, which let the name go for this one to take.
            self.claims.claim_then(client, asked, lambda: self._join(client, name))
            return
        self.leave(client, "moved")
        try:
            game.join(client, PlayerKind.BOT if client.who.bot else PlayerKind.HUMAN)
        except WorldError as error:
            client.send(Error(str(error)))
            return
        except Exception:
            game.failed("join")
            client.send(Error(f"the game {name} failed as you joined (a server bug)"))
            return
        if game is not self.default:
            self.seating.seat(self._playing, client, game)
        client.send(game.info())

    def _watch(self, client: Outbox, name: str) -> None:
        game = self._find(client, name)
        if game is None:
            return
        refusal = game.too_big()
        if refusal is not None:
            client.send(Error(refusal.replace("use LOOK", "it cannot be watched")))
            return
        share = self.seating.refusal(client, name)
        if share is not None:
            client.send(Error(share))
            return
        self.leave(client, "moved")
        self.seating.seat(self._watching, client, game)
        game.watch(client)
