"""Who hears a game besides the actor: spectators, listeners for events, and chat.

What a caller may rely on:

* **Pushes** go only to clients that asked for them (``EXTEND``): the *listeners*,
  players and spectators alike (:meth:`Audience.push`).
* **Spectators** get the whole map (``VIEW``) after every change, the latest only:
  one whose replies are backlogged is sent no stale maps, just the latest once it
  has caught up (:meth:`Audience.show`, then :meth:`Audience.catch_up` from the
  game's task while :attr:`Audience.behind` is set), so a burst of moves does not
  cut it off.
* **Chat** reaches every player and spectator that asked for it (:meth:`Audience.shout`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from protocol.replies import Message, Push, View
from worlds.api import World

from .outbox import Outbox


class Audience:
    """The spectators and listeners of one game; see the module docstring."""

    __slots__ = ("_behind", "_last_view", "_wake", "listeners", "watchers")

    def __init__(self, wake: Callable[[], None]) -> None:
        """``wake()`` makes the game's task look again (a spectator fell behind)."""
        self.watchers: set[Outbox] = set()
        self.listeners: set[Outbox] = set()
        """Players and spectators who asked for events."""
        self._behind: set[Outbox] = set()  # spectators that missed a view
        self._last_view: tuple[str, ...] | None = None
        self._wake = wake

    @property
    def behind(self) -> bool:
        """Whether a spectator waits to be sent the latest map."""
        return bool(self._behind)

    def watch(self, client: Outbox) -> None:
        self.watchers.add(client)
        if client.events:
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
            if client.chat:
                client.push(message)

    def show(self, world: World) -> None:
        """Send spectators the whole map of ``world``, if it changed since they last saw it."""
        if not self.watchers:
            return
        drawn = world.render(None)
        if drawn == self._last_view:
            return
        self._last_view = drawn
        view = View(drawn)
        for client in list(self.watchers):
            if client.backlogged:
                if not self._behind:
                    self._wake()  # the game's task looks again soon
                self._behind.add(client)
            else:
                self._behind.discard(client)
                client.push(view)

    def catch_up(self) -> None:
        """Send the latest map to each spectator that missed one and has caught up."""
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

    def forget_view(self) -> None:
        """A fresh world: the next :meth:`show` sends its map whatever it looks like."""
        self._last_view = None
