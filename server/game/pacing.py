"""How a game's play is paced: when an action is played, and what a client waits for.

A :class:`~server.game.game.Game` keeps who plays and who watches; one :class:`Pacing`
beside it decides *when*: at once (:class:`Pacing` itself), in rounds
(:class:`server.game.rounds.Rounds`), in turns (:class:`server.game.turn_taking.Turns`),
and, around any of them, not before the game is full (:class:`StartWhenFull`).

What a caller may rely on:

* A pacing owns **one queue** of pending steps (:class:`PendingSteps`): at most one
  command a player, each with the event its client waits on. Leaving, resuming and a
  fresh world clean it up in one place each (:meth:`Pacing.forget`,
  :meth:`Pacing.resumed`, :meth:`Pacing.reset`); every waiting client is let go.
* A pacing owns its **deadline** (trio time, ``inf`` for none). The game's task calls
  :meth:`Pacing.expire` once it has passed; a pacing whose deadline changes rings
  the game's :class:`~server.game.alarm.Alarm`.
* A pacing counts missed turns and rounds, and removes a player who misses
  ``max_missed_turns`` in a row (:meth:`Members.leave`).
* A pacing plays every action through the one step of play (:class:`Plays`, the
  chronicle's :class:`~server.game.chronicle.Play`), and answers only what it refuses
  or held (``ERROR``, a look that waited: :class:`Answers`); it never touches a socket.
* A pacing sees of the game only the small roles below, each what it uses.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Protocol

import trio

from protocol.commands import Look, Map
from protocol.replies import Bye
from worlds.api import Action, Event, PlayerId, World

from .alarm import Alarm
from .outbox import Outbox
from .roster import Roster
from .spec import GameSpec

Step = Action | Look | Map
"""What a pending step may be: an action, or a look that waits like one."""


class Plays(Protocol):
    """The one step of play, as a pacing takes it (:class:`server.game.chronicle.Play`)."""

    @property
    def world(self) -> World: ...

    @property
    def rounds(self) -> int:
        """Rounds resolved in the world so far."""
        ...

    def act(self, player: PlayerId, action: Action, *, settle: bool = True) -> None:
        """Play ``action`` now, then settle (unless the caller settles)."""
        ...

    def count(self, player: PlayerId) -> None:
        """``player`` made an action (played with its round)."""
        ...

    def round(
        self,
        number: int,
        actions: Sequence[tuple[PlayerId, Action]],
        missed: Sequence[PlayerId],
        stays: Sequence[PlayerId],
    ) -> None:
        """Play a round's actions together; raises what the world raises."""
        ...

    def happened(self, events: list[Event]) -> None:
        """Tell what the world did by itself."""
        ...

    def time_out(self, player: PlayerId) -> None:
        """``player``'s turn ran out: recorded and told."""
        ...

    def show(self) -> None: ...

    def flush(self) -> None: ...

    def settle(self) -> None:
        """Ask whether the world's game is over."""
        ...

    def crash(self, during: str) -> None:
        """The world failed ``during`` something."""
        ...


class Members(Protocol):
    """What a pacing does to the game's players (the game does it)."""

    def leave(self, client: Outbox, why: str = "disconnected") -> None:
        """Take ``client``'s player out of the game."""
        ...

    def remove(self, player: PlayerId, who: str, why: str) -> None:
        """Take ``player`` (shown as ``who``), who has left the game, out of the world."""
        ...


class Answers(Protocol):
    """Who answers a ``LOOK`` or ``MAP`` that waited (the game's verbs)."""

    def answer(
        self, client: Outbox, player: PlayerId, step: Look | Map, *, asked: bool = True
    ) -> None:
        """Answer ``step``; ``asked=False``: one the pacing held, answered as it lets go."""
        ...


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
        """Keep ``step`` for ``player``; its client is answered nothing more until
        ``done`` (it waits for other players: its ``QUIT`` and its end do not wait)."""
        done = trio.Event() if done is None else done
        self._steps[player] = Pending(client, step, done)
        client.wait_for(done, on_players=True)

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

    def __init__(
        self,
        play: Plays,
        roster: Roster,
        members: Members,
        answers: Answers,
        alarm: Alarm,
        spec: GameSpec,
    ) -> None:
        self.play = play
        self.roster = roster
        self.members = members
        self.answers = answers
        self.alarm = alarm
        self.spec = spec
        self.pending = PendingSteps()
        self.deadline = math.inf
        self._missed: dict[PlayerId, int] = {}

    # -- what the game asks -------------------------------------------------------------

    def act(self, client: Outbox, player: PlayerId, action: Action) -> None:
        """``player`` (through ``client``) does ``action``: now, or when its time comes."""
        self.play.act(player, action)

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
            self.alarm.wake()

    def played(self, player: PlayerId) -> None:
        """``player`` played in time: its count of misses starts again."""
        self._missed.pop(player, None)

    def missed(self, player: PlayerId) -> None:
        """``player`` missed a turn or a round; removed after ``max_missed_turns`` in a row."""
        count = self._missed[player] = self._missed.get(player, 0) + 1
        client = self.roster.players.get(player)
        if client is not None and count >= self.spec.max_missed_turns:
            client.finish(
                Bye(f"removed from the game after missing {count} turns in a row"),
                reason="missed turns",
            )
            self.members.leave(client, "removed")


class StartWhenFull(Pacing):
    """Around another pacing: every action, ``LOOK`` and ``MAP`` waits until ``limit``
    players are in, or ``turn_timeout`` seconds after the first waited (a player who
    never comes holds nobody up); then they are played in join order. ``LOOK`` waits
    too, so that what a player decides from never depends on who had joined by then."""

    def __init__(self, inner: Pacing, limit: int) -> None:
        super().__init__(
            inner.play, inner.roster, inner.members, inner.answers, inner.alarm, inner.spec
        )
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
            self.set_deadline(trio.current_time() + self.spec.turn_timeout)
        self.pending.hold(client, player, step)

    def joined(self, client: Outbox, player: PlayerId) -> None:
        self.inner.joined(client, player)
        if not self.started and len(self.roster.players) >= self.limit:
            self.play.show()  # the map with everyone in, before anyone acts
            self.start()

    def start(self) -> None:
        """Begin: play what waited, in join order, through the inner pacing."""
        self.started = True
        self._deadline = math.inf
        players = self.roster.players
        for player, pending in self.pending.take_all():
            if players.get(player) is not pending.client:
                continue
            step = pending.step
            if isinstance(step, Look | Map):
                if not self.inner.waits(pending.client, player, step):
                    self.answers.answer(pending.client, player, step, asked=False)
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
