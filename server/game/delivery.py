"""Delivering a game's events: each of the world's events to whom it concerns.

What a caller may rely on:

* Each event goes, in order, to whom it concerns, as :data:`server.game.wording.TELLINGS`
  declares it: the actor's reply to its action (not to a player whose action was a
  stay for lack of one: it sent no command), ``WIN`` and ``LOSE`` to who escaped,
  died or was defeated, notices and turn pushes to listeners (``EXTEND events``).
* A turn that ends in time (:class:`~worlds.turns.TurnEnded`, not missed) clears its
  player's count of missed turns (:meth:`Outcomes.played_in_time`).
* ``SAW`` goes to each listener who witnessed another's action: the world decides
  who did (:meth:`worlds.api.World.witnesses`); a spectator sees everything.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from protocol.replies import Lose, Notice, Seen, Win
from worlds.api import Action, Event, PlayerId, ResultEvent
from worlds.turns import TurnEnded

from .audience import Audience
from .restarts import WorldSlot
from .roster import Roster
from .wording import telling_of, tellings_of


class Outcomes(Protocol):
    """What delivering events does to the game's players (the game does it)."""

    def finish(self, player: PlayerId, final: Win | Lose, outcome: str, **context: int) -> None:
        """``player``'s game is over: told ``final``, then out of the game."""
        ...

    def played_in_time(self, player: PlayerId) -> None:
        """``player``'s turn ended in time: its count of missed turns starts again."""
        ...


class Delivery:
    """Tells one game's events to its players and audience (module docstring)."""

    __slots__ = ("_audience", "_outcomes", "_roster", "_slot", "_tellings")

    def __init__(
        self, roster: Roster, audience: Audience, slot: WorldSlot, outcomes: Outcomes
    ) -> None:
        self._roster = roster
        self._audience = audience
        self._slot = slot
        self._outcomes = outcomes
        self._tellings = tellings_of(slot.world)
        """How each kind of event the world emits is told, looked up once a world."""

    def fresh(self) -> None:
        """A fresh world is in the slot: the tellings of its kinds of event."""
        self._tellings = tellings_of(self._slot.world)

    def deliver(
        self,
        happened: list[Event],
        actions: Sequence[tuple[PlayerId, Action]],
        unasked: Collection[PlayerId],
    ) -> None:
        """Send each of ``happened`` to whom it concerns, in order; the result events
        answer ``actions``, one each, in order; ``unasked`` players sent no command."""
        roster = self._roster
        players = roster.players
        audience = self._audience
        listeners = audience.listeners
        tellings = self._tellings
        index = 0
        for event in happened:
            # A kind the world did not declare it emits is looked up (a subclass's ancestor).
            told = tellings.get(type(event)) or telling_of(event, self._slot.world)
            if isinstance(event, ResultEvent):  # the result of an action
                reply = told.reply
                if reply is None:
                    reply = told.answer(event)
                target = players.get(event.player)
                if target is not None and event.player not in unasked:
                    target.send(reply)
                if listeners:
                    self._witness(event, actions[index][1], reply.lines()[0])
                index += 1
                continue
            player = event.player
            labels = roster.label
            if isinstance(event, TurnEnded) and not event.missed and player is not None:
                # Only a turn that ends before its time counts as played: an action that
                # leaves the turn open (a PICKUP of nothing) must not reset the count, or
                # a player could hold every turn to its limit for ever (issue 28).
                self._outcomes.played_in_time(player)
            if told.to_player is not None:
                line = told.to_player(event, labels)
                if player is None:
                    audience.push(line)
                else:
                    client = players.get(player)
                    if client is not None and client in listeners:
                        client.push(line)
            if told.to_others is not None and listeners:
                actor = players.get(player) if player is not None else None
                audience.push(told.to_others(event, labels), but=actor)
            if told.ends is not None and player is not None:
                ending = told.ends(event, labels)
                self._outcomes.finish(player, ending.final, ending.outcome, **ending.details())

    def notice(self, player: PlayerId | None, text: str) -> None:
        """``NOTICE`` to ``player`` if it listens, or to every listener (``None``)."""
        reply = Notice(text)
        if player is None:
            self._audience.push(reply)
            return
        client = self._roster.players.get(player)
        if client is not None and client in self._audience.listeners:
            client.push(reply)

    def _witness(self, event: ResultEvent, action: Action, result: str) -> None:
        """``SAW`` for every listener who could see the actor (the world decides)."""
        roster = self._roster
        actor = event.player
        actor_client = roster.players.get(actor)
        if actor_client is not None:
            name = roster.names_of.get(actor)
            who = name if name is not None else f"#{actor}"
        else:
            departure = roster.departing.get(actor)
            who = departure.who if departure is not None else f"#{actor}"
        seen = Seen(who, action.to_line(), result)
        world = self._slot.world
        seats = roster.seats
        for client in list(self._audience.listeners):
            if client is actor_client:
                continue
            player = seats.get(client)
            if player is None or world.witnesses(player, event):  # a spectator sees all
                client.push(seen)
