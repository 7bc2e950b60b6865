"""A game's replay and record (:class:`Chronicle`), and the one step of play that keeps
them (:class:`Play`): what happened in the game, kept as it happens.

What a caller may rely on:

* The replay of a world is opened with its first join (a world nobody joined has
  none) and closed when the world's game ends; every join, name, action and leave
  goes into it before the reply that follows from it is written (:meth:`Chronicle.flush`).
* Every action is played by :class:`Play`, whichever pacing decides when: it is
  counted for the record, written into the replay, resolved by the world, told to
  whom it concerns and shown to spectators, and then the steward is asked whether
  the world's game is over, in that order and in this one place.
* :attr:`Chronicle.round` counts the rounds resolved in the world (each action, in a
  world without rounds); every record of the replay carries it.
* When a world's game ends, its record (:class:`records.model.GameRecord`) goes to
  the game's owner: each player with how they left and the gold they held (those
  still in it, ``unfinished``). A failure to record is logged, never raised.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any, Protocol, cast

from protocol.replies import RoundEnded
from records.model import GameRecord, Tally
from worlds.api import Action, Event, PlayerId, PlayerKind, PlayerStatus, World
from worlds.turns import TurnBasedWorld

from ..replay.format import header_for
from ..replay.shelf import ReplayShelf
from ..replay.writer import ReplayWriter
from .audience import Audience
from .builds import Opened
from .restarts import WorldSlot
from .spec import GameSpec

_LEAVINGS = frozenset({"quit", "disconnected", "unfinished"})
"""How the record calls a player's leaving, by the reason the game gives (anything
else, such as ``removed`` for missed turns or ``moved`` to another game, is ``removed``)."""


class Recorder(Protocol):
    """Where the record of a world's game goes when it ends (the game's owner)."""

    def finished(self, record: GameRecord) -> None: ...


class Chronicle:
    """The replay being written and the record being tallied of one game."""

    def __init__(
        self, spec: GameSpec, replays: ReplayShelf | None, recorder: Recorder, log: Any
    ) -> None:
        self._spec = spec
        self._replays = replays
        self._recorder = recorder
        self._log = log
        self.tally = Tally(spec.name, spec.world_name, spec.map_spec, spec.seed)
        """What the game's record will say (the owner gets it when the game ends)."""
        self.replay: ReplayWriter | None = None
        self.round = 0
        """Rounds resolved in this world (each action, in a world without rounds)."""

    def begin(self, opened: Opened, turn_timeout: float | None) -> None:
        """The first player joins ``opened``'s world: its replay begins."""
        if self.replay is not None or self._replays is None:
            return
        spec = self._spec
        self.replay = ReplayWriter(
            self._replays,
            header_for(
                spec.name,
                spec.plugin,
                spec.map_spec,
                spec.seed,
                opened.view,
                turn_timeout,
                view_digest=opened.view_digest,
                max_bytes=spec.max_map_bytes,
            ),
        )

    def joined(
        self,
        player: PlayerId,
        kind: PlayerKind,
        name: str | None,
        claimed: bool,
        dialect: str,
        probe: bool = False,
    ) -> None:
        """``player`` joined; ``claimed``: under its login's name; ``probe``: its client
        checks the server (``EXTEND probe``)."""
        person = "bot" if kind is PlayerKind.BOT else "person"
        self.tally.joined(player, name, person, claimed=claimed, dialect=dialect, probe=probe)
        replay = self.replay
        if replay is not None:
            replay.join(self.round, player, kind)
            if name is not None:
                replay.name(self.round, player, name)
            replay.flush()

    def named(self, player: PlayerId, name: str, *, claimed: bool) -> None:
        self.tally.named(player, name, claimed=claimed)
        if self.replay is not None:
            self.replay.name(self.round, player, name)

    def finished(self, player: PlayerId, outcome: str, gold: int, moves: int | None) -> None:
        """``player`` escaped or won (``outcome``), or lost, holding ``gold``."""
        self.tally.left(player, "win" if outcome in ("escaped", "won") else "lose", gold, moves)

    def left(self, player: PlayerId, why: str, status: PlayerStatus | None) -> None:
        """``player``, who did not win or die, left for ``why`` holding what ``status`` says."""
        self._tally_leave(player, why, status)
        if self.replay is not None:
            self.replay.leave(self.round, player, why)
            self.replay.flush()

    def timed_out(self, player: PlayerId) -> None:
        """``player``'s turn ran out (a turn-based world's ``time_out``)."""
        if self.replay is not None:
            self.replay.timeout(self.round, player)

    def _tally_leave(self, player: PlayerId, why: str, status: PlayerStatus | None) -> None:
        outcome = why if why in _LEAVINGS else "removed"
        if status is None:
            self.tally.left(player, outcome)
        else:
            self.tally.left(player, outcome, status.gold)

    def flush(self) -> None:
        """Hand the replay's unwritten lines to the operating system."""
        if self.replay is not None:
            self.replay.flush()

    def failed(self) -> None:
        """The world failed: a failure is worth its record, actions or not."""
        if self.replay is not None:
            self.replay.begin()

    def close(self, reason: str, remaining: Iterable[tuple[PlayerId, PlayerStatus | None]]) -> None:
        """The world's game is over for ``reason``; the ``remaining`` players are
        recorded as unfinished (a game only probes played is not: the replay's last line
        says ``probe``, and the replay list leaves it out). Never raises for the record."""
        replay, self.replay = self.replay, None
        tally = self.tally
        if replay is not None:
            replay.close(self.round, reason, {"probe": True} if tally.probing else None)
        if tally.empty:
            return
        for player, status in remaining:
            self._tally_leave(player, "unfinished", status)
        # (a replay begins with the first action: a game nobody acted in has no file)
        path = None if replay is None else replay.path
        record = tally.finish(
            rounds=self.round, end=reason, replay=None if path is None else str(path)
        )
        if record is not None:
            try:
                self._recorder.finished(record)
            except Exception:
                self._log.exception("recording the game failed", record=record.id)

    def fresh(self) -> None:
        """A fresh world: its rounds count from 0."""
        self.round = 0


class Deliverer(Protocol):
    """Who tells each event to whom it concerns (:class:`server.game.delivery.Delivery`)."""

    def deliver(
        self,
        happened: list[Event],
        actions: Sequence[tuple[PlayerId, Action]],
        unasked: Collection[PlayerId],
    ) -> None: ...


class Settler(Protocol):
    """What the play asks of the game's steward (:class:`server.game.steward.Steward`)."""

    def settle(self) -> None:
        """End the world's game if it is over."""
        ...

    def crash(self, during: str) -> None:
        """The world raised ``during`` something: end the game for its players."""
        ...


class Play:
    """The one step of play every pacing takes (module docstring): the chronicle keeps
    it, the world resolves it, the delivery tells it, the steward settles after it."""

    __slots__ = ("_audience", "_delivery", "_slot", "_steward", "chronicle")

    def __init__(
        self,
        chronicle: Chronicle,
        slot: WorldSlot,
        delivery: Deliverer,
        audience: Audience,
        steward: Settler,
    ) -> None:
        self.chronicle = chronicle
        self._slot = slot
        self._delivery = delivery
        self._audience = audience
        self._steward = steward

    @property
    def world(self) -> World:
        """The world played in now."""
        return self._slot.world

    @property
    def rounds(self) -> int:
        """Rounds resolved in the world so far (:attr:`Chronicle.round`)."""
        return self.chronicle.round

    def act(self, player: PlayerId, action: Action, *, settle: bool = True) -> None:
        """``player``'s ``action``, played now: counted, recorded, resolved, told, shown,
        then settled (``settle=False``: the caller settles, once a turn has passed)."""
        chronicle = self.chronicle
        chronicle.tally.acted(player)
        chronicle.round = number = chronicle.round + 1
        replay = chronicle.replay
        if replay is not None:
            replay.action(number, player, action)
        actions = ((player, action),)
        world = self._slot.world
        self._delivery.deliver(world.resolve(actions), actions, ())
        self._audience.show(world)
        if settle:
            self._steward.settle()

    def count(self, player: PlayerId) -> None:
        """``player`` made an action (counted when it joins its round)."""
        self.chronicle.tally.acted(player)

    def round(
        self,
        number: int,
        actions: Sequence[tuple[PlayerId, Action]],
        missed: Sequence[PlayerId],
        stays: Sequence[PlayerId],
    ) -> None:
        """Round ``number``'s ``actions`` (in join order; ``stays`` stand for ``missed``
        players), recorded, resolved together and told; listeners hear that the round
        ended. Raises what the world raises."""
        chronicle = self.chronicle
        chronicle.round = number
        replay = chronicle.replay
        if replay is not None:
            replay.actions(number, actions, missed)
        self._delivery.deliver(self._slot.world.resolve(actions), actions, missed)
        audience = self._audience
        if audience.listeners:
            audience.push(RoundEnded(number, len(actions) - len(stays), len(missed)))

    def happened(self, events: list[Event]) -> None:
        """What the world did by itself (no action caused it), told."""
        self._delivery.deliver(events, (), ())

    def time_out(self, player: PlayerId) -> None:
        """``player``'s turn ran out: recorded, then the world's ``time_out`` told (a
        world played in turns)."""
        self.chronicle.timed_out(player)
        world = cast(TurnBasedWorld, self._slot.world)
        self._delivery.deliver(world.time_out(player), (), ())

    def show(self) -> None:
        """Spectators see the map, if it changed."""
        self._audience.show(self._slot.world)

    def flush(self) -> None:
        """The replay's lines to the operating system (a round's end)."""
        self.chronicle.flush()

    def settle(self) -> None:
        """Ask the steward whether the world's game is over (after a step)."""
        self._steward.settle()

    def crash(self, during: str) -> None:
        """The world raised unexpectedly ``during`` something: the steward ends the game."""
        self._steward.crash(during)
