"""Telling a game's players what happened: the world's events, to whom they concern.

What a caller may rely on:

* Each event goes, in order, to whom it concerns, as :data:`server.game.render.TELLINGS`
  declares it: the actor's reply to its action (not to a player whose action was a
  stay for lack of one: it sent no command), ``WIN`` and ``LOSE`` to who escaped,
  died or was defeated, notices and turn pushes to listeners (``EXTEND events``).
* A turn that ends in time (:class:`~worlds.turns.TurnEnded`, not missed) clears its
  player's count of missed turns (:meth:`~server.game.table.Table.played_in_time`).
* ``SAW`` goes to each listener who witnessed another's action: the world decides
  who did (:meth:`worlds.api.World.witnesses`); a spectator sees everything.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from protocol.replies import Notice, Seen
from worlds.api import Action, Event, PlayerId, ResultEvent
from worlds.turns import TurnEnded

from .render import TELLINGS, telling
from .table import Table


def events(
    game: Table,
    happened: list[Event],
    actions: Sequence[tuple[PlayerId, Action]],
    unasked: Collection[PlayerId],
) -> None:
    """Send each of ``happened`` to whom it concerns, in order, as
    :data:`server.game.render.TELLINGS` declares; the result events answer ``actions``, one
    each, in order."""
    players = game.players
    listeners = game.crowd.listeners
    tellings = TELLINGS
    index = 0
    for event in happened:
        # A world's own subclass of a declared event is found by telling().
        told = tellings.get(type(event)) or telling(event)
        if isinstance(event, ResultEvent):  # the result of an action
            reply = told.reply
            if reply is None:
                reply = told.answer(event)
            target = players.get(event.player)
            if target is not None and event.player not in unasked:
                target.send(reply)
            if listeners:
                _witness(game, event, actions[index][1], reply.lines()[0])
            index += 1
            continue
        player = event.player
        labels = game.label
        if isinstance(event, TurnEnded) and not event.missed and player is not None:
            # Only a turn that ends before its time counts as played: an action that
            # leaves the turn open (a PICKUP of nothing) must not reset the count, or
            # a player could hold every turn to its limit for ever (issue 28).
            game.played_in_time(player)
        if told.to_player is not None:
            line = told.to_player(event, labels)
            if player is None:
                game.crowd.push(line)
            else:
                client = players.get(player)
                if client is not None and client in listeners:
                    client.push(line)
        if told.to_others is not None and listeners:
            actor = players.get(player) if player is not None else None
            game.crowd.push(told.to_others(event, labels), but=actor)
        if told.ends is not None and player is not None:
            ending = told.ends(event, labels)
            game.finish(player, ending.final, ending.outcome, **ending.details())


def notice(game: Table, player: PlayerId | None, text: str) -> None:
    """``NOTICE`` to ``player`` if it listens, or to every listener (``None``)."""
    reply = Notice(text)
    if player is None:
        game.crowd.push(reply)
        return
    client = game.players.get(player)
    if client is not None and client in game.crowd.listeners:
        client.push(reply)


def _witness(game: Table, event: ResultEvent, action: Action, result: str) -> None:
    """``SAW`` for every listener who could see the actor (the world decides)."""
    actor = event.player
    actor_client = game.players.get(actor)
    if actor_client is not None:
        name = game.names_of.get(actor)
        who = name if name is not None else f"#{actor}"
    else:
        who = game.departing.get(actor, f"#{actor}")
    seen = Seen(who, action.to_line(), result)
    world = game.world
    seats = game.seats
    for client in list(game.crowd.listeners):
        if client is actor_client:
            continue
        player = seats.get(client)
        if player is None or world.witnesses(player, event):  # a spectator sees all
            client.push(seen)
