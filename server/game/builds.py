"""Opening worlds off the event loop: a map generated or read never stalls other players.

A world plugin's ``open`` is ordinary blocking code (it reads files, generates
mazes). :class:`WorldBuilder` runs it in a worker thread, so that the loop keeps
serving every other client meanwhile, and bounds what that may cost.

What a caller may rely on:

* At most ``max_builds`` worlds are built at once (a :class:`trio.CapacityLimiter`);
  :meth:`WorldBuilder.busy` says when that many are running or waiting, so that a
  client's ``CREATE`` can be refused rather than queued without end. Restarts wait
  for their turn instead.
* :meth:`WorldBuilder.open` gives up after ``timeout`` seconds with
  :class:`BuildTimeout`. A thread cannot be stopped, so the abandoned build runs to
  its end and keeps its place among the ``max_builds`` until then: a flood of slow
  builds is refused, never piled up.
* Whatever the plugin raises reaches the caller unchanged; the builder never
  swallows an error, and never raises on the loop for a plugin's sake.
* The whole map a spectator would see is measured once, in the thread
  (:class:`Opened`), so that the loop never renders a board only to learn that it
  is too big to send.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import structlog
import trio

from worlds.api import DEFAULT_MAP_SPEC, World, WorldPlugin

from ..replay.format import view_digest

log = structlog.get_logger("server.builds")


class BuildTimeout(Exception):
    """A world took longer than the builder's time limit; ``str()`` is for the client."""


@dataclass(frozen=True, slots=True)
class Opened:
    """A fresh world and what was measured of it before anyone joined."""

    world: World
    map_bytes: int
    """Bytes of the whole map as ``MAP`` or ``VIEW`` sends it (rows and their line ends)."""
    view: tuple[str, ...] | None
    """The spectator's whole map, when it is at most ``max_map_bytes``; else ``None``."""
    view_digest: str
    """SHA-256 of the spectator's whole map (rows joined by LF), however large."""
    template: World | None = None
    """An untouched copy of ``world`` (when asked for): what a restart falls back on."""
    seconds: float = 0.0
    """How long opening and measuring took: a restart of a world that opens in less
    than :data:`QUICK` is done on the loop, which costs less than a thread's hand-off."""


QUICK = 0.002
"""Seconds under which a world's rebuild is done on the loop (see :attr:`Opened.seconds`)."""


def measure(
    world: World, max_map_bytes: int, *, template: bool = False, since: float | None = None
) -> Opened:
    """``world`` with its map measured (blocking: run it off the loop for big worlds);
    ``since`` is when opening it began (``time.perf_counter``)."""
    began = time.perf_counter() if since is None else since
    rows = world.render(None)
    size = sum(len(row) + 1 for row in rows)
    digest = view_digest(rows)
    spare = None
    if template:
        try:
            spare = copy.deepcopy(world)
        except Exception as error:  # a plugin's world that cannot be copied: no fallback
            log.warning("world not copied for restarts", error=repr(error))
    view = rows if size <= max_map_bytes else None
    return Opened(world, size, view, digest, spare, time.perf_counter() - began)


def open_world(
    plugin: WorldPlugin, spec: str | None, seed: int, max_map_bytes: int, template: bool = False
) -> Opened:
    """``plugin.open`` measured (blocking); ``template`` also keeps an untouched copy.

    ``default`` is the world's default map in every world (what ``GAMES`` shows for a
    game opened on it), whatever the world's own name for it (the crawler's ``tutorial``)."""
    began = time.perf_counter()
    if spec == DEFAULT_MAP_SPEC:
        spec = None
    return measure(plugin.open(spec, seed=seed), max_map_bytes, template=template, since=began)


def copy_world(opened: Opened, max_map_bytes: int) -> Opened:
    """A fresh world from ``opened.template`` (which must be set; blocking)."""
    assert opened.template is not None
    began = time.perf_counter()
    world = copy.deepcopy(opened.template)
    return measure(world, max_map_bytes, template=True, since=began)


class WorldBuilder:
    """Builds worlds in worker threads; see the module docstring."""

    def __init__(self, max_builds: int, timeout: float, max_map_bytes: int) -> None:
        self.max_builds = max_builds
        self.timeout = timeout
        self.max_map_bytes = max_map_bytes
        self._limiter = trio.CapacityLimiter(max_builds)
        self._asked = 0  # builds running or waiting for a place, not yet abandoned

    def busy(self) -> bool:
        """Whether ``max_builds`` worlds are being built (or wait to be) right now."""
        return self._asked >= self.max_builds or self._limiter.available_tokens == 0

    async def open(
        self, plugin: WorldPlugin, spec: str | None, seed: int, *, template: bool = False
    ) -> Opened:
        """``plugin.open(spec, seed=seed)`` in a worker thread, measured; ``template``
        also keeps an untouched copy. Raises :class:`BuildTimeout` or the plugin's error."""
        job = partial(open_world, plugin, spec, seed, self.max_map_bytes, template)
        return await self.run(job, f"the {plugin.name} world")

    async def run(self, job: Callable[[], Opened], what: str) -> Opened:
        """``job()`` (a blocking build) in a worker thread, within the limits; ``what``
        names it in the :class:`BuildTimeout` message."""
        self._asked += 1
        try:
            with trio.move_on_after(self.timeout):
                return await trio.to_thread.run_sync(
                    job, limiter=self._limiter, abandon_on_cancel=True
                )
        finally:
            self._asked -= 1
        raise BuildTimeout(
            f"{what} took more than {self.timeout:g} seconds to build "
            f"(world_build_timeout); ask for a smaller one"
        )
