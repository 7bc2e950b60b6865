"""A game's replay and record: what happened in it, kept as it happens.

What a caller may rely on:

* The replay of a world is opened with its first join (a world nobody joined has
  none) and closed when the world's game ends; every join, name, action and leave
  goes into it before the reply that follows from it is written (:meth:`flush`).
* When a world's game ends, its record (:class:`records.model.GameRecord`) goes to
  ``on_finished``: each player with how they left and the gold they held (those
  still in it, ``unfinished``). A failure to record is logged, never raised.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from records.model import GameRecord, Tally
from worlds.api import PlayerId, PlayerKind, PlayerStatus, WorldPlugin

from ..replay.writer import ReplayShelf, ReplayWriter, header_for
from .builds import Opened

_LEAVINGS = frozenset({"quit", "disconnected", "unfinished"})
"""How the record calls a player's leaving, by the reason the game gives (anything
else, such as ``removed`` for missed turns or ``moved`` to another game, is ``removed``)."""


class Chronicle:
    """The replay being written and the record being tallied of one game."""

    def __init__(
        self,
        name: str,
        plugin: WorldPlugin,
        map_spec: str | None,
        seed: int,
        *,
        replays: ReplayShelf | None,
        on_finished: Callable[[GameRecord], None] | None,
        max_map_bytes: int,
        log: Any,
    ) -> None:
        self._name = name
        self._plugin = plugin
        self._map_spec = map_spec
        self._seed = seed
        self._replays = replays
        self._on_finished = on_finished
        self._max_map_bytes = max_map_bytes
        self._log = log
        self.tally = Tally(name, plugin.name, map_spec, seed)
        """What the game's record will say (``on_finished`` gets it when the game ends)."""
        self.replay: ReplayWriter | None = None

    def begin(self, opened: Opened, turn_timeout: float | None) -> None:
        """The first player joins ``opened``'s world: its replay begins."""
        if self.replay is not None or self._replays is None:
            return
        self.replay = ReplayWriter(
            self._replays,
            header_for(
                self._name,
                self._plugin,
                self._map_spec,
                self._seed,
                opened.view,
                turn_timeout,
                view_digest=opened.view_digest,
                max_bytes=self._max_map_bytes,
            ),
        )

    def joined(
        self,
        number: int,
        player: PlayerId,
        kind: PlayerKind,
        name: str | None,
        claimed: bool,
        dialect: str,
    ) -> None:
        """``player`` joined in round ``number``; ``claimed``: under its login's name."""
        person = "bot" if kind is PlayerKind.BOT else "person"
        self.tally.joined(player, name, person, claimed=claimed, dialect=dialect)
        replay = self.replay
        if replay is not None:
            replay.join(number, player, kind)
            if name is not None:
                replay.name(number, player, name)
            replay.flush()

    def named(self, number: int, player: PlayerId, name: str, *, claimed: bool) -> None:
        self.tally.named(player, name, claimed=claimed)
        if self.replay is not None:
            self.replay.name(number, player, name)

    def finished(self, player: PlayerId, outcome: str, gold: int, moves: int | None) -> None:
        """``player`` escaped or won (``outcome``), or lost, holding ``gold``."""
        self.tally.left(player, "win" if outcome in ("escaped", "won") else "lose", gold, moves)

    def left(self, number: int, player: PlayerId, why: str, status: PlayerStatus | None) -> None:
        """``player``, who did not win or die, left for ``why`` holding what ``status`` says."""
        self._tally_leave(player, why, status)
        if self.replay is not None:
            self.replay.leave(number, player, why)
            self.replay.flush()

    def _tally_leave(self, player: PlayerId, why: str, status: PlayerStatus | None) -> None:
        outcome = why if why in _LEAVINGS else "removed"
        if status is None:
            self.tally.left(player, outcome)
        else:
            self.tally.left(player, outcome, status.gold)

    def flush(self) -> None:
        if self.replay is not None:
            self.replay.flush()

    def failed(self) -> None:
        """The world failed: a failure is worth its record, actions or not."""
        if self.replay is not None:
            self.replay.begin()

    def close(
        self,
        number: int,
        reason: str,
        remaining: Iterable[tuple[PlayerId, PlayerStatus | None]],
    ) -> None:
        """The world's game is over after ``number`` rounds for ``reason``; the
        ``remaining`` players are recorded as unfinished. Never raises for the record."""
        replay, self.replay = self.replay, None
        if replay is not None:
            replay.close(number, reason)
        tally = self.tally
        if tally.empty:
            return
        for player, status in remaining:
            self._tally_leave(player, "unfinished", status)
        # (a replay begins with the first action: a game nobody acted in has no file)
        path = None if replay is None else replay.path
        record = tally.finish(rounds=number, end=reason, replay=None if path is None else str(path))
        if record is not None and self._on_finished is not None:
            try:
                self._on_finished(record)
            except Exception:
                self._log.exception("recording the game failed", record=record.id)
