"""How a game's play is paced: when an action is played, and what a client waits for.

A :class:`~server.game.game.Game` keeps who plays and who watches; one :class:`Pacing`
beside it decides *when*: at once (:class:`Immediate`), in rounds
(:class:`server.game.rounds.Rounds`), in turns (:class:`server.game.turn_taking.Turns`), and, around
any of them, not before the game is full (:class:`StartWhenFull`).

What a caller may rely on:

* A pacing owns **one queue** of pending steps (:class:`PendingSteps`): at most one
  command a player, each with the event its client waits on. Leaving, resuming and a
  fresh world clean it up in one place each (:meth:`Pacing.forget`,
  :meth:`Pacing.resumed`, :meth:`Pacing.reset`); every waiting client is let go.
* A pacing owns its **deadline** (trio time, ``inf`` for none). The game's task calls
  :meth:`Pacing.expire` once it has passed; a pacing whose deadline changes wakes
  the game's task through :meth:`Table.wake`.
* A pacing counts missed turns and rounds, and removes a player who misses
  ``max_missed_turns`` in a row (:meth:`Table.remove_missing`).
* A pacing plays through the :class:`Table` (the game), and answers only what it
  refuses or held (``ERROR``, a look that waited); it never touches a socket.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import trio

from protocol.commands import Look, Map
from protocol.replies import Bye
from worlds.api import Action, PlayerId

from .outbox import Outbox
from .table import Table

Step = Action | Look | Map
"""What a pending step may be: an action, or a look that waits like one."""


class Pending:
    """A step held for a player, and the event its client waits on."""

    __slots__ = ("client", "done", "step")

    def __init__(self, client: Outbox, step: Step, done: trio.Event) -> None:
        self.client = client
        self.step = step
        self.done = done


class PendingSteps:
    """The one queue of steps a pacing holds, one a player, released in join order."""

    __slots__ = ("_steps",)

    def __init__(self) -> None:
        self._steps: dict[PlayerId, Pending] = {}

    def __contains__(self, player: object) -> bool:
        return player in self._steps

    def __len__(self) -> int:
        return len(self._steps)

    def __iter__(self) -> Iterator[PlayerId]:
        return iter(self._steps)

    def put(self, client: Outbox, player: PlayerId, step: Step, done: trio.Event) -> None:
        """Keep ``step`` for ``player``; its client reads on (it waits for nothing)."""
        self._steps[player] = Pending(client, step, done)

    def hold(
        self, client: Outbox, player: PlayerId, step: Step, done: trio.Event | None = None
    ) -> None:
        """Keep ``step`` for ``player``; its client reads nothing more until ``done``."""
        done = trio.Event() if done is None else done
        self._steps[player] = Pending(client, step, done)
        client.wait_for(done)

    def step_of(self, player: PlayerId) -> Step | None:
        pending = self._steps.get(player)
        return pending.step if pending is not None else None

    def take(self, player: PlayerId) -> Pending | None:
        """Remove ``player``'s step and let its client go on."""
        pending = self._steps.pop(player, None)
        if pending is not None:
            pending.done.set()
        return pending

    def take_all(self) -> list[tuple[PlayerId, Pending]]:
        """Every step, in join order, each client let go; the queue is then empty."""
        steps, self._steps = self._steps, {}
        for pending in steps.values():
            pending.done.set()
        return sorted(steps.items(), key=lambda item: item[0])

    def hand_over(self, player: PlayerId, client: Outbox) -> None:
        """``player`` plays from ``client`` now: its action counts, from there; a look
        is dropped, for nobody waits for its answer any more."""
        pending = self._steps.get(player)
        if pending is None:
            return
        if isinstance(pending.step, Look | Map):
            self.take(player)
        else:
            pending.client = client

    def clear(self) -> None:
        """Drop every step and let every client go on."""
        self.take_all()


class Pacing:
    """Plays actions at once; the base of the other pacings (module docstring)."""

    timed = False
    """Whether ``turn_timeout`` applies (``GAMES`` and replays show it)."""
    expiry = "time-out"
    """What :meth:`expire` is called in logs and records, should the world fail in it."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.pending = PendingSteps()
        self.deadline = math.inf
        self._missed: dict[PlayerId, int] = {}

    # -- what the game asks -------------------------------------------------------------

    def act(self, client: Outbox, player: PlayerId, action: Action) -> None:
        """``player`` (through ``client``) does ``action``: now, or when its time comes."""
        table = self.table
        table.tally.acted(player)
        table.round = number = table.round + 1
        replay = table.chronicle.replay
        if replay is not None:
            replay.action(number, player, action)
        # Resolved, told and settled from here, one frame for the whole action: the
        # world resolves, the telling is the game's own (Table.told), and the steward
        # is asked only when its first test (a win still possible) would not pass.
        actions = ((player, action),)
        world = table.world
        table.told(world.resolve(actions), actions, ())
        if table.crowd.watchers:
            table.show()
        if not table.players or world.unwinnable() is not None:
            table.settle()

    def waits(self, client: Outbox, player: PlayerId, step: Look | Map) -> bool:
        """Whether ``step`` (a ``LOOK`` or ``MAP``) waits; if so it is answered later."""
        return False

    def joined(self, client: Outbox, player: PlayerId) -> None:
        """``player`` joined, after the world's events were told."""

    def stays_for(self, player: PlayerId) -> bool:
        """Whether a leaving ``player`` stays until its pending action is played."""
        return False

    def changed(self) -> None:
        """A player was taken out of the world (the turn may have passed)."""

    def left(self) -> None:
        """A player left the game (a round may now be complete)."""

    def busy(self) -> bool:
        """Whether actions are in play that the game must see through before it ends."""
        return False

    def expire(self, now: float) -> None:
        """The deadline has passed (``now``)."""
        self.set_deadline(math.inf)

    def forget(self, player: PlayerId) -> None:
        """``player`` is gone: its pending step is dropped, its count of misses too."""
        self._missed.pop(player, None)
        self.pending.take(player)

    def resumed(self, player: PlayerId, client: Outbox) -> None:
        self.pending.hand_over(player, client)

    def reset(self) -> None:
        """A fresh world, or none: every pending step is dropped, every clock stopped."""
        self.pending.clear()
        self._missed.clear()
        self.set_deadline(math.inf)

    # -- for the pacings ---------------------------------------------------------------

    def set_deadline(self, deadline: float) -> None:
        if deadline != self.deadline:
            self.deadline = deadline
            self.table.wake()

    def played(self, player: PlayerId) -> None:
        """``player`` played in time: its count of misses starts again."""
        self._missed.pop(player, None)

    def missed(self, player: PlayerId) -> None:
        """``player`` missed a turn or a round; removed after ``max_missed_turns`` in a row."""
        count = self._missed[player] = self._missed.get(player, 0) + 1
        client = self.table.players.get(player)
        if client is not None and count >= self.table.max_missed_turns:
            client.finish(
                Bye(f"removed from the game after missing {count} turns in a row"),
                reason="missed turns",
            )
            self.table.leave(client, "removed")


Immediate = Pacing
"""Every action played at once, each its own round (the classic world)."""


class StartWhenFull(Pacing):
    """Around another pacing: every action, ``LOOK`` and ``MAP`` waits until ``limit``
    players are in, or ``turn_timeout`` seconds after the first waited (a player who
    never comes holds nobody up); then they are played in join order. ``LOOK`` waits
    too, so that what a player decides from never depends on who had joined by then."""

    def __init__(self, inner: Pacing, limit: int) -> None:
        super().__init__(inner.table)
        self.inner = inner
        self.pending = inner.pending  # one queue: before the start only this one holds
        self.limit = limit
        self.started = False

    @property
    def timed(self) -> bool:  # type: ignore[override]
        return self.inner.timed

    @property
    def expiry(self) -> str:  # type: ignore[override]
        return self.inner.expiry if self.started else "start"

    @property
    def deadline(self) -> float:
        return self._deadline if not self.started else self.inner.deadline

    @deadline.setter
    def deadline(self, value: float) -> None:
        self._deadline = value

    def act(self, client: Outbox, player: PlayerId, action: Action) -> None:
        if self.started:
            self.inner.act(client, player, action)
        else:
            self._wait(client, player, action)

    def waits(self, client: Outbox, player: PlayerId, step: Look | Map) -> bool:
        if self.started:
            return self.inner.waits(client, player, step)
        self._wait(client, player, step)
        return True

    def _wait(self, client: Outbox, player: PlayerId, step: Step) -> None:
        if not len(self.pending):
            self.set_deadline(trio.current_time() + self.table.turn_timeout)
        self.pending.hold(client, player, step)

    def joined(self, client: Outbox, player: PlayerId) -> None:
        self.inner.joined(client, player)
        if not self.started and len(self.table.players) >= self.limit:
            self.table.show()  # the map with everyone in, before anyone acts
            self.start()

    def start(self) -> None:
        """Begin: play what waited, in join order, through the inner pacing."""
        self.started = True
        self._deadline = math.inf
        table = self.table
        for player, pending in self.pending.take_all():
            if table.players.get(player) is not pending.client:
                continue
            step = pending.step
            if isinstance(step, Look | Map):
                if not self.inner.waits(pending.client, player, step):
                    table.answer(pending.client, player, step)
            else:
                self.inner.act(pending.client, player, step)

    def expire(self, now: float) -> None:
        if self.started:
            self.inner.expire(now)
        else:
            self.start()

    def stays_for(self, player: PlayerId) -> bool:
        return self.started and self.inner.stays_for(player)

    def changed(self) -> None:
        self.inner.changed()

    def left(self) -> None:
        self.inner.left()

    def busy(self) -> bool:
        return self.inner.busy()

    def forget(self, player: PlayerId) -> None:
        self.inner.forget(player)

    def resumed(self, player: PlayerId, client: Outbox) -> None:
        self.inner.resumed(player, client)

    def reset(self) -> None:
        self.inner.reset()
        self.started = False
        self._deadline = math.inf

    def played(self, player: PlayerId) -> None:
        self.inner.played(player)
