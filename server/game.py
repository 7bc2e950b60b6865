"""A game: one world, the connections playing in it, and the commands they send.

Commands are handled synchronously, straight into the world: trio runs one task
at a time, so the connection task that read a command can update the world and
queue every reply without handing the work to another task.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import structlog

from protocol.commands import Command, Hello, Look, Map, Move, Pickup, Stay
from protocol.replies import Bye, Error, Gold, HelpReply, LookReply, Lose, MapReply, Notice, Win
from worlds.api import (
    Died,
    Escaped,
    Event,
    PlayerId,
    PlayerKind,
    ResultEvent,
    World,
    WorldError,
    WorldPlugin,
)
from worlds.api import Notice as WorldNotice

from .render import help_reply, result_reply

if TYPE_CHECKING:
    from .connection import Connection

log = structlog.get_logger("server.game")


class Game:
    """One world and its players. A broken world is logged, its players told, and it restarts."""

    def __init__(self, name: str, plugin: WorldPlugin, map_spec: str | None, seed: int) -> None:
        self.name = name
        self.plugin = plugin
        self.map_spec = map_spec
        self.seed = seed
        self.world: World = plugin.open(map_spec, seed=seed)
        self.players: dict[PlayerId, Connection] = {}
        self.names: dict[str, PlayerId] = {}
        self._next_player = 1
        self._log = log.bind(game=name, world=plugin.name)

    @property
    def world_name(self) -> str:
        return self.plugin.name

    # -- membership -------------------------------------------------------------

    def join(self, connection: Connection, kind: PlayerKind = PlayerKind.HUMAN) -> PlayerId:
        """Put ``connection`` in the world; raises :class:`WorldFull`."""
        player = self._next_player
        self.world.join(player, kind)
        self._next_player += 1
        self.players[player] = connection
        connection.joined(self, player)
        self._log.info("player joined", conn=connection.id, player=player)
        return player

    def leave(self, connection: Connection) -> None:
        """Take ``connection``'s player out of the game (like death, RULES §1)."""
        player = connection.player
        if player is None or self.players.get(player) is not connection:
            return
        del self.players[player]
        if connection.name is not None:
            self.names.pop(connection.name, None)
        try:
            self.world.leave(player)
        except Exception:
            self._crash("leave")

    # -- commands ---------------------------------------------------------------

    def help(self) -> HelpReply:
        return help_reply(self.world, self.world_name)

    def handle(self, connection: Connection, command: Command) -> None:
        """Apply one game command from ``connection`` and queue every reply it causes."""
        try:
            self._handle(connection, command)
        except WorldError as error:
            connection.send(Error(str(error)))
        except Exception:
            self._crash(command.verb)

    def _handle(self, connection: Connection, command: Command) -> None:
        player = connection.player
        if player is None:
            player = self.join(connection)
        kind = type(command)
        world = self.world
        if kind is Look:
            connection.send(LookReply(world.look(player)))
        elif kind is Move:
            direction = command.direction  # type: ignore[attr-defined]
            if direction not in world.directions:
                allowed = ", ".join(sorted(d.name for d in world.directions))
                connection.send(
                    Error(f"MOVE {direction.name} is not allowed here; directions: {allowed}")
                )
                return
            self._dispatch(world.resolve(((player, command),)))
        elif kind is Pickup:
            self._dispatch(world.resolve(((player, command),)))
        elif kind is Stay:
            if not world.allows_stay:
                connection.send(Error(f"STAY is not available in the {self.world_name} world"))
                return
            self._dispatch(world.resolve(((player, command),)))
        elif kind is Hello:
            name = command.name  # type: ignore[attr-defined]
            if name is not None and not self._rename(connection, name):
                return
            connection.send(Gold(world.goal))
        elif kind is Map:
            connection.send(MapReply(world.render(player)))
        else:
            connection.send(Error(f"{command.verb} is not a game command"))

    def _rename(self, connection: Connection, name: str) -> bool:
        holder = self.names.get(name)
        if holder is not None and holder != connection.player:
            connection.send(Error(f"the name {name!r} is taken in this game; choose another"))
            return False
        if connection.name is not None:
            self.names.pop(connection.name, None)
        self.names[name] = connection.player  # type: ignore[assignment]
        connection.name = name
        return True

    def _dispatch(self, events: list[Event]) -> None:
        """Send each event to whom it concerns, in order."""
        players = self.players
        for event in events:
            if isinstance(event, ResultEvent):
                target = players.get(event.player)
                if target is not None:
                    target.send(result_reply(event))
            elif isinstance(event, Escaped):
                self._finish(
                    event.player, Win(event.text), "escaped", gold=event.gold, moves=event.moves
                )
            elif isinstance(event, Died):
                self._finish(event.player, Lose(event.text), "died")
            elif isinstance(event, WorldNotice):
                self._notify(event.player, event.text)

    def _notify(self, player: PlayerId | None, text: str) -> None:
        targets = (
            self.players.values() if player is None else filter(None, [self.players.get(player)])
        )
        reply = Notice(text)
        for connection in targets:
            if connection.extended:
                connection.send(reply)

    def _finish(self, player: PlayerId, final: Win | Lose, outcome: str, **context: int) -> None:
        connection = self.players.pop(player, None)
        if connection is None:
            return
        if connection.name is not None:
            self.names.pop(connection.name, None)
        self._log.info(f"player {outcome}", conn=connection.id, player=player, **context)
        connection.finish(final, reason=f"player {outcome}")

    def _crash(self, during: str) -> None:
        """The world raised something unexpected: log it, end the game for its players, restart."""
        self._log.exception("world failed", during=during)
        for connection in list(self.players.values()):
            connection.finish(
                Bye(
                    f"the {self.world_name} game stopped because of an internal error; "
                    "please reconnect"
                ),
                reason="world failed",
            )
        self.players.clear()
        self.names.clear()
        self.world = self.plugin.open(self.map_spec, seed=self.seed)
