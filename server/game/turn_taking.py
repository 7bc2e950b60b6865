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
from typing import cast

import trio

from protocol.commands import EndTurn, Look, Map
from protocol.replies import Error, NotYourTurn, NotYourTurnToEnd, TurnOf
from worlds.api import Action, PlayerId
from worlds.turns import TurnBasedWorld

from .outbox import Outbox
from .pacing import Pacing


class Turns(Pacing):
    """Plays the turn holder's actions at once and holds the others' (module docstring)."""

    timed = True
    expiry = "turn time-out"

    _timing: PlayerId | None = None
    """Whose turn the clock is timing."""

    @property
    def world(self) -> TurnBasedWorld:
        return cast(TurnBasedWorld, self.play.world)

    def act(self, client: Outbox, player: PlayerId, action: Action) -> None:
        holder = self.world.turn
        if holder == player:
            self.play.act(player, action, settle=False)
            self._pass()
            self.play.settle()
        elif holder is None:
            client.send(Error("nobody can play now: the game is over"))
        elif client.wants.events:
            refusal = NotYourTurnToEnd if isinstance(action, EndTurn) else NotYourTurn
            playing = self.roster.label(holder)
            client.send(refusal(f"it is not your turn: {playing} is playing; wait for STARTTURN"))
        else:
            self.pending.hold(client, player, action)  # played when its turn comes

    def waits(self, client: Outbox, player: PlayerId, step: Look | Map) -> bool:
        if client.wants.events or isinstance(step, Map) or len(self.roster.players) < 2:
            return False
        holder = self.world.turn
        if holder is None or holder == player:
            return False
        self.pending.hold(client, player, step)
        return True

    def joined(self, client: Outbox, player: PlayerId) -> None:
        holder = self.world.turn
        if holder is not None and holder != player and client.wants.events:
            client.push(TurnOf(self.roster.label(holder)))  # whose turn it is, on arrival
        self._pass()

    def changed(self) -> None:
        self._pass()

    def _pass(self) -> None:
        """After anything that may pass the turn: play the new holder's waiting step,
        and time the turn (only while someone else is waiting for it)."""
        world = self.world
        holder = world.turn
        while holder is not None and holder in self.pending:
            pending = self.pending.take(holder)
            assert pending is not None
            step = pending.step
            if isinstance(step, Look | Map):
                self.answers.answer(pending.client, holder, step, asked=False)
            else:
                self.play.act(holder, step, settle=False)
            holder = world.turn
        deadline = self.deadline
        if holder is None or len(self.roster.players) < 2:
            deadline = math.inf
        elif holder != self._timing or deadline == math.inf:
            deadline = trio.current_time() + self.spec.turn_timeout
        self._timing = holder
        self.set_deadline(deadline)

    def expire(self, now: float) -> None:
        self.set_deadline(math.inf)
        player = self.world.turn
        if player is None:
            return
        self._timing = None  # the next turn gets a full clock, even if it is theirs again
        self.play.time_out(player)
        self.missed(player)
        self._pass()
        self.play.settle()

    def reset(self) -> None:
        super().reset()
        self._timing = None
