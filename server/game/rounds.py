"""Play in rounds: one action a player, resolved together (worlds with ``has_rounds``).

What a caller may rely on:

* Each player acts at most once a round; the round is handed to the world in
  **join order** (players in the order they entered the game, which is the order
  of their player numbers), whatever order the actions arrived in.
* A round is resolved as soon as every player in the game has acted, or
  ``turn_timeout`` seconds after a second player began to wait (the deadline is
  ``inf`` until then: a player alone never waits); then every missing action is a
  stay, and counts as a missed round.
* The reply to an action is sent when its round resolves; its client is answered no
  further command until then (it waits on the round's ``done``, which is set once
  the round is resolved, or abandoned because the world failed; its ``QUIT`` and its
  end do not wait: ``on_players``).
* A player who leaves with an action in the round stays until the round is played
  (:meth:`Rounds.stays_for`); the game removes it right after.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

import trio

from protocol.commands import Stay
from worlds.api import Action, PlayerId, WorldError

from ..metrics import ROUND_SECONDS
from .outbox import Outbox
from .pacing import Pacing

_STAY = Stay()


class Round:
    """Round ``number``: when its first action came, and the event its players wait on."""

    __slots__ = ("done", "number", "opened")

    def __init__(self, number: int) -> None:
        self.number = number
        self.opened = trio.current_time()
        """When the round's first action came (its duration is measured from here)."""
        self.done = trio.Event()


class Rounds(Pacing):
    """Gathers one action a player in :attr:`pending`, then plays them together."""

    timed = True
    expiry = "round time-out"

    current: Round | None = None

    def act(self, client: Outbox, player: PlayerId, action: Action) -> None:
        self.play.count(player)
        current = self.current
        if current is None:
            current = self.current = Round(self.play.rounds + 1)
        pending = self.pending
        pending.put(client, player, action, current.done)
        if all(other in pending for other in self.roster.players):
            self._resolve(current, ())
            return
        client.wait_for(current.done, on_players=True)
        if self.deadline == math.inf:
            self.set_deadline(trio.current_time() + self.spec.turn_timeout)

    def stays_for(self, player: PlayerId) -> bool:
        return self.current is not None and player in self.pending

    def busy(self) -> bool:
        return self.current is not None

    def left(self) -> None:
        current = self.current
        if current is not None and all(player in self.pending for player in self.roster.players):
            self._resolve(current, ())

    def expire(self, now: float) -> None:
        current = self.current
        self.set_deadline(math.inf)
        if current is not None:
            players = self.roster.players
            missing = sorted(player for player in players if player not in self.pending)
            self._resolve(current, missing)

    def reset(self) -> None:
        current, self.current = self.current, None
        super().reset()
        if current is not None:
            current.done.set()

    def _resolve(self, current: Round, missed: Sequence[PlayerId]) -> None:
        """Play the round: the actions in join order (a stay for each missing player,
        where the world has stays), then the world by itself."""
        self.current = None
        self.set_deadline(math.inf)
        ROUND_SECONDS.observe(trio.current_time() - current.opened)
        play, roster = self.play, self.roster
        try:
            acted = self.pending.take_all()
            actions = {player: cast(Action, pending.step) for player, pending in acted}
            stays = missed if play.world.allows_stay else []
            for player in stays:
                actions.setdefault(player, _STAY)
            ordered = sorted(actions.items(), key=lambda item: item[0])
            try:
                play.round(current.number, ordered, missed, stays)
            except WorldError:
                # Actions are checked before they join a round, so this is the world's bug.
                play.crash("round")
                return
            for player, _ in acted:
                self.played(player)
            departing = dict(roster.departing)
            roster.departing.clear()
            for player, (who, why) in departing.items():  # they left during the round: out now
                self.members.remove(player, who, why)
            for player in missed:
                self.missed(player)
            play.flush()
            play.show()
        finally:
            current.done.set()
        play.settle()
