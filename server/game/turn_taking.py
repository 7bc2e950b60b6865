"""Play in turns (:class:`worlds.turns.TurnBasedWorld`, such as battle).

What a caller may rely on:

* Each action is resolved at once, but only the player whose turn it is may act.
  Another player's action is refused with ``ERROR`` when that client asked for
  events (it is told whose turn it is), and otherwise waits, unanswered, for that
  player's turn, so that a 2013 client that knows nothing of turns still plays.
  Such a client's ``LOOK`` waits for its turn too, so that it decides from the board
  as its turn begins (the same game plays the same way however fast the clients are).
* While two or more players are in the game, a turn not finished within
  ``turn_timeout`` seconds is ended by the world's ``time_out`` and counts as a missed
  turn whatever the player did in it; only a turn that ends in time clears the count
  (the game calls :meth:`Turns.played` for a :class:`~worlds.turns.TurnEnded` not
  missed). ``max_missed_turns`` in a row remove the player.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeGuard, cast

import trio

from protocol.commands import EndTurn, Look, Map
from protocol.replies import Error, NotYourTurn, NotYourTurnToEnd, TurnOf
from worlds.api import Action, PlayerId, World
from worlds.turns import TurnBasedWorld

from .outbox import Outbox
from .pacing import Pacing
from .table import Table


def plays_in_turns(world: World) -> TypeGuard[TurnBasedWorld]:
    """Whether ``world`` plays in turns (by its flag, so that wrappers of such worlds count)."""
    return world.has_turns


class Turns(Pacing):
    """Plays the turn holder's actions at once and holds the others' (module docstring)."""

    timed = True
    expiry = "turn time-out"

    def __init__(self, table: Table, label: Callable[[PlayerId], str]) -> None:
        super().__init__(table)
        self._label = label
        self._timing: PlayerId | None = None  # whose turn the clock is timing

    @property
    def world(self) -> TurnBasedWorld:
        return cast(TurnBasedWorld, self.table.world)

    def act(self, client: Outbox, player: PlayerId, action: Action) -> None:
        holder = self.world.turn
        if holder == player:
            self._play(player, action)
            self._pass()
            self.table.settle()
        elif holder is None:
            client.send(Error("nobody can play now: the game is over"))
        elif client.events:
            refusal = NotYourTurnToEnd if isinstance(action, EndTurn) else NotYourTurn
            client.send(
                refusal(
                    f"it is not your turn: {self._label(holder)} is playing; wait for STARTTURN"
                )
            )
        else:
            self.pending.hold(client, player, action)  # played when its turn comes

    def waits(self, client: Outbox, player: PlayerId, step: Look | Map) -> bool:
        if client.events or isinstance(step, Map) or len(self.table.players) < 2:
            return False
        holder = self.world.turn
        if holder is None or holder == player:
            return False
        self.pending.hold(client, player, step)
        return True

    def joined(self, client: Outbox, player: PlayerId) -> None:
        holder = self.world.turn
        if holder is not None and holder != player and client.events:
            client.push(TurnOf(self._label(holder)))  # whose turn it is, on arrival
        self._pass()

    def changed(self) -> None:
        self._pass()

    def _pass(self) -> None:
        """After anything that may pass the turn: play the new holder's waiting step,
        and time the turn (only while someone else is waiting for it)."""
        world = self.world
        table = self.table
        holder = world.turn
        while holder is not None and holder in self.pending:
            pending = self.pending.take(holder)
            assert pending is not None
            step = pending.step
            if isinstance(step, Look | Map):
                table.answer(pending.client, holder, step)
            else:
                self._play(holder, step)
            holder = world.turn
        deadline = self.deadline
        if holder is None or len(table.players) < 2:
            deadline = math.inf
        elif holder != self._timing or deadline == math.inf:
            deadline = trio.current_time() + table.turn_timeout
        self._timing = holder
        self.set_deadline(deadline)

    def expire(self, now: float) -> None:
        self.set_deadline(math.inf)
        player = self.world.turn
        if player is None:
            return
        table = self.table
        replay = table.replay
        if replay is not None:
            replay.timeout(table.round, player)
        self._timing = None  # the next turn gets a full clock, even if it is theirs again
        table.tell(self.world.time_out(player))
        self.missed(player)
        self._pass()
        table.settle()

    def reset(self) -> None:
        super().reset()
        self._timing = None

    def _play(self, player: PlayerId, action: Action) -> None:
        # Counted when played, not when sent: an action still waiting for its turn when
        # the game ends was never made (records: the same game, the same moves).
        table = self.table
        table.tally.acted(player)
        table.round += 1
        replay = table.replay
        if replay is not None:
            replay.action(table.round, player, action)
        table.play(((player, action),))
        table.show()
