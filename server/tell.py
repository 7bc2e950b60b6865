"""Telling a game's players what happened: the world's events, to whom they concern.

What a caller may rely on:

* Each event goes, in order, to whom it concerns: the actor's reply to its action
  (not to a player whose action was a stay for lack of one: it sent no command),
  ``WIN`` and ``LOSE`` to who escaped, died or was defeated, notices and turn
  pushes to listeners (``EXTEND events``).
* ``SAW`` goes to each listener who witnessed another's action: the world decides
  who did (:meth:`worlds.api.World.witnesses`); a spectator sees everything.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from protocol.replies import (
    GameWon,
    HitMod,
    Lose,
    Notice,
    Seen,
    TurnBegins,
    TurnOf,
    TurnOver,
    Win,
)
from worlds.api import Action, Died, Escaped, Event, PlayerId, ResultEvent
from worlds.api import Notice as WorldNotice
from worlds.turns import Defeated, HitPointsChanged, TurnEnded, TurnEvent, TurnStarted

from .outbox import Outbox
from .render import result_reply
from .table import Table


def events(
    game: Table,
    happened: list[Event],
    actions: Sequence[tuple[PlayerId, Action]],
    unasked: Collection[PlayerId],
) -> None:
    """Send each of ``happened`` to whom it concerns, in order; the result events
    answer ``actions``, one each, in order."""
    players = game.players
    listeners = game.crowd.listeners
    index = 0
    for event in happened:
        if isinstance(event, ResultEvent):
            reply = result_reply(event)
            target = players.get(event.player)
            if target is not None and event.player not in unasked:
                target.send(reply)
            if listeners:
                _witness(game, event, actions[index][1], reply.lines()[0])
            index += 1
        elif isinstance(event, Escaped):
            game.finish(
                event.player, Win(event.text), "escaped", gold=event.gold, moves=event.moves
            )
        elif isinstance(event, Died):
            game.finish(event.player, Lose(event.text), "died")
        elif isinstance(event, WorldNotice):
            notice(game, event.player, event.text)
        elif isinstance(event, TurnEvent):
            _turn_event(game, event)


def notice(game: Table, player: PlayerId | None, text: str) -> None:
    """``NOTICE`` to ``player`` if it listens, or to every listener (``None``)."""
    reply = Notice(text)
    if player is None:
        game.crowd.push(reply)
        return
    client = game.players.get(player)
    if client is not None and client in game.crowd.listeners:
        client.push(reply)


def renamed(game: Table, client: Outbox, old: str, name: str) -> None:
    """Listeners but ``client`` are told that ``old`` is now called ``name``."""
    game.crowd.push(Notice(f"{old} is now called {name}"), but=client)


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


def _turn_event(game: Table, event: TurnEvent) -> None:
    """A turn-based world's event: pushes need ``EXTEND events``."""
    player = event.player
    assert player is not None
    client = game.players.get(player)
    listeners = game.crowd.listeners
    listener = client if client is not None and client in listeners else None
    if isinstance(event, TurnStarted):
        if listener is not None:
            listener.push(TurnBegins(event.points))
        if listeners:
            game.crowd.push(TurnOf(game.label(player)), but=client)
    elif isinstance(event, TurnEnded):
        if not event.missed:
            # Only a turn that ends before its time counts as played: an action that
            # leaves the turn open (a PICKUP of nothing) must not reset the count, or
            # a player could hold every turn to its limit for ever (issue 28).
            game.played_in_time(player)
        if listener is not None:
            listener.push(TurnOver(timed_out=event.missed))
    elif isinstance(event, HitPointsChanged):
        if listener is not None:
            listener.push(HitMod(event.change))
    elif isinstance(event, Defeated):
        winner = game.label(event.winner)
        if listener is not None:
            listener.push(GameWon(f"{winner} has won the game"))
        game.finish(player, Lose(f"{winner} won the game."), "lost")
