"""Who hears a game besides the actor: spectators, listeners for events, and chat.

What a caller may rely on:

* **Pushes** go only to clients that asked for them (``EXTEND``): the *listeners*,
  players and spectators alike (:meth:`Audience.push`).
* **Spectators** get the whole map (``VIEW``) after every change, the latest only:
  one whose replies are backlogged is sent no stale maps, just the latest once it
  has caught up (:meth:`Audience.show`, then :meth:`Audience.catch_up` from the
  game's task while :attr:`Audience.behind` is set), so a burst of moves does not
  cut it off.
* **The board** (``EXTEND board``): a spectator that asked for it gets, besides the
  map, every level (``LEVEL``) and a ``BOARD`` line per player (:mod:`server.game.board`),
  only what changed, and the latest in full once it catches up. It is built only
  while such a spectator watches.
* **Chat** reaches every player and spectator that asked for it (:meth:`Audience.shout`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from protocol.replies import Message, Push, View
from worlds.api import PlayerId, World

from .alarm import Alarm
from .board import Scene, scene_of
from .outbox import Outbox


class Shown(Protocol):
    """How the players on the board are named (a :class:`~server.game.roster.Roster`)."""

    def shown(self) -> Mapping[PlayerId, str]:
        """How each player in the game is shown."""
        ...


class Audience:
    """The spectators and listeners of one game; see the module docstring."""

    __slots__ = (
        "_alarm",
        "_behind",
        "_last_scene",
        "_last_view",
        "_max_bytes",
        "_roster",
        "listeners",
        "watchers",
    )

    def __init__(self, alarm: Alarm, roster: Shown, max_map_bytes: int) -> None:
        """``alarm`` makes the game's task look again (a spectator fell behind);
        ``roster`` names each player on the board; a ``LEVEL`` larger than
        ``max_map_bytes`` is not sent."""
        self.watchers: set[Outbox] = set()
        self.listeners: set[Outbox] = set()
        """Players and spectators who asked for events."""
        self._behind: set[Outbox] = set()  # spectators that missed a view
        self._last_view: tuple[str, ...] | None = None
        self._last_scene: Scene | None = None
        self._alarm = alarm
        self._roster = roster
        self._max_bytes = max_map_bytes

    @property
    def behind(self) -> bool:
        """Whether a spectator waits to be sent the latest map."""
        return bool(self._behind)

    def watch(self, client: Outbox) -> None:
        self.watchers.add(client)
        if client.wants.events:
            self.listeners.add(client)

    def unwatch(self, client: Outbox) -> None:
        self.watchers.discard(client)
        self.listeners.discard(client)
        self._behind.discard(client)

    def push(self, line: Push, *, but: Outbox | None = None) -> None:
        """``line`` to every listener (but ``but``)."""
        for client in list(self.listeners):
            if client is not but:
                client.push(line)

    def shout(self, message: Message, players: Iterable[Outbox]) -> None:
        """Chat: to every one of ``players`` and every spectator who asked for it."""
        for client in (*players, *self.watchers):
            if client.wants.chat:
                client.push(message)

    def greet(self, client: Outbox, world: World) -> None:
        """A new spectator's first look: the whole map, and the board if it asked."""
        client.send(View(world.render(None)))
        if client.wants.board:
            for line in self._scene(world).pushes(max_bytes=self._max_bytes):
                client.push(line)

    def show(self, world: World) -> None:
        """Send spectators the whole map of ``world`` (and the board, to those that
        asked for it), if it changed since they last saw it."""
        if not self.watchers:
            return
        drawn = world.render(None)
        # Who is where costs a line per player: told only if a spectator asked for it.
        scene = self._scene(world) if any(client.wants.board for client in self.watchers) else None
        if drawn == self._last_view and scene == self._last_scene:
            return
        lines: list[Push] = [] if drawn == self._last_view else [View(drawn)]
        if scene is not None:
            lines += scene.pushes(since=self._last_scene, max_bytes=self._max_bytes)
        self._last_view, self._last_scene = drawn, scene
        for client in list(self.watchers):
            if client.backlogged:
                if not self._behind:
                    self._alarm.wake()  # the game's task looks again soon
                self._behind.add(client)
            else:
                self._behind.discard(client)
                for line in lines:
                    client.push(line)

    def catch_up(self) -> None:
        """Send the latest map (and board) to each spectator that missed one and has
        caught up."""
        rows = self._last_view
        if rows is None:
            self._behind.clear()
            return
        for client in list(self._behind):
            if client not in self.watchers:
                self._behind.discard(client)
            elif not client.backlogged:
                self._behind.discard(client)
                client.push(View(rows))
                scene = self._last_scene
                for line in scene.pushes(max_bytes=self._max_bytes) if scene else ():
                    client.push(line)

    def forget_view(self) -> None:
        """A fresh world: the next :meth:`show` sends its map whatever it looks like."""
        self._last_view = None
        self._last_scene = None

    def _scene(self, world: World) -> Scene:
        """The board a spectator with the ``board`` capability is shown (server.game.board)."""
        return scene_of(world, self._roster.shown())
