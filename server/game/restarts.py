"""A game's world slot: the world it plays in now, and how a fresh one replaces it.

What a caller may rely on:

* **Restarts never stall the server.** A world that took less than
  :data:`~server.game.builds.QUICK` to build is rebuilt at once, on the loop
  (:meth:`WorldSlot.build_now`); any other is rebuilt off the loop by the game's own
  task (:meth:`WorldSlot.build`), in a worker thread within the builder's limits.
* Meanwhile the game's commands and ``JOIN``\\ s wait (:meth:`WorldSlot.hold`): each
  client reads nothing more until the world is ready, and its step is done then,
  in the order it came (:meth:`WorldSlot.release`). A step that ends the fresh world
  at once leaves the steps after it waiting for the world after that, so that none
  reaches a world about to be replaced.
* What a rebuild tries, in order: the map as it reads now; if it no longer opens
  (edited with a typo, removed), the map that was loaded; a permanent game without a
  copy of it falls back on the world's own map, then on the world it has. When
  nothing opens, the held steps are refused (:meth:`WorldSlot.refuse_held`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import trio

from protocol.replies import Error
from worlds.api import World

from .builds import QUICK, Opened, WorldBuilder, copy_world, measure, open_world
from .outbox import Outbox
from .spec import GameSpec

Attempt = tuple[str | None, Callable[[], Opened]]
"""What a rebuild tries: what it falls back on (``None``: the map itself), and how."""


class WorldSlot:
    """The world of one game and its rebuilding; see the module docstring."""

    def __init__(
        self, spec: GameSpec, builder: WorldBuilder | None, opened: Opened | None, log: Any
    ) -> None:
        self._spec = spec
        self._builder = builder
        self._log = log
        self.opened = opened or open_world(
            spec.plugin, spec.map_spec, spec.seed, spec.max_map_bytes
        )
        self.world: World = self.opened.world
        """The world played in now (``opened``'s)."""
        self.building = False
        """Whether a fresh world is being built off the loop (steps wait: :meth:`hold`)."""
        self._ready = trio.Event()
        self._ready.set()
        self._held: list[tuple[Outbox, Callable[[], None]]] = []

    def too_big(self) -> str | None:
        """Why the whole map may not be sent (``MAP``, ``VIEW``), or ``None`` if it may."""
        size, most = self.opened.map_bytes, self._spec.max_map_bytes
        if size <= most:
            return None
        return (
            f"the map of {self._spec.name} is {size} bytes; this server sends whole maps of "
            f"at most {most} bytes (max_map_bytes); use LOOK"
        )

    @property
    def quick(self) -> bool:
        """Whether a fresh world is built on the loop (see :data:`~server.game.builds.QUICK`)."""
        return self._builder is None or self.opened.seconds < QUICK

    # -- building ------------------------------------------------------------------------

    def attempts(self) -> list[Attempt]:
        spec = self._spec
        plugin, seed, size = spec.plugin, spec.seed, spec.max_map_bytes
        keep = self.opened.template is not None
        attempts: list[Attempt] = [
            (None, partial(open_world, plugin, spec.map_spec, seed, size, keep))
        ]
        if keep:
            attempts.append(("the loaded map", partial(copy_world, self.opened, size)))
        elif spec.permanent:
            attempts.append(("the world's own map", partial(open_world, plugin, None, seed, size)))
        if spec.permanent:
            attempts.append(("the world as it was", partial(measure, self.world, size)))
        return attempts

    def build_now(self) -> tuple[Opened, str | None] | None:
        """A fresh world built on the loop, and what it fell back on; ``None`` if none opens."""
        for kept, attempt in self.attempts():
            try:
                return attempt(), kept
            except Exception as error:
                self._failed(error)
        return None

    def start_building(self) -> None:
        """From now on, steps wait (:meth:`hold`) until :meth:`build` is done."""
        if not self.building:
            self.building = True
            self._ready = trio.Event()

    async def build(self) -> tuple[Opened, str | None] | None:
        """A fresh world built off the loop, and what it fell back on; ``None`` if none opens."""
        builder = self._builder
        assert builder is not None
        for kept, attempt in self.attempts():
            try:
                return await builder.run(attempt, f"the {self._spec.world_name} world"), kept
            except Exception as error:
                self._failed(error)
        return None

    def install(self, opened: Opened, kept: str | None) -> None:
        if kept is not None:
            self._log.warning("game restarted on a fallback", kept=kept)
        self.opened = opened
        self.world = opened.world
        self.building = False

    def _failed(self, error: Exception) -> None:
        self._log.error("game restart failed", error=str(error) or repr(error))

    # -- what waits for the fresh world -------------------------------------------------

    def hold(self, client: Outbox, step: Callable[[], None]) -> bool:
        """While a fresh world is built, keep ``step`` (a command of ``client``'s) for
        when it is ready, and make the client read nothing more until then.
        Returns whether it was held (``False``: the world is ready, do it now)."""
        if not self.building:
            return False
        self._held.append((client, step))
        client.wait_for(self._ready)
        return True

    def release(self) -> None:
        """Do what waited for the world, in the order it came, then let the clients on
        (the steps after one that ended the fresh world wait for the next)."""
        held, self._held = self._held, []
        ready = self._ready
        for index, (client, step) in enumerate(held):
            if self.building:
                later = held[index:]
                self._held[:0] = later
                for waiting, _ in later:
                    waiting.wait_for(self._ready)
                break
            if not client.closed:
                step()
        ready.set()

    def refuse_held(self, message: str) -> None:
        """No fresh world will come: what waited for one is told ``message``."""
        self.building = False
        held, self._held = self._held, []
        for client, _ in held:
            if not client.closed:
                client.send(Error(message))
        self._ready.set()

    def stop(self) -> None:
        """The game is closed: nothing waits for a world that will not come."""
        self._ready.set()
