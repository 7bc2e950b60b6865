"""Who plays (server/game/roster.py) and who watches (server/game/audience.py), each on
its own: in-memory clients, a real world, and an alarm that counts its rings."""

from __future__ import annotations

from protocol.replies import Board, Message, PlayerJoined, View
from server.game.audience import Audience
from server.game.roster import Departure, Roster
from worlds.api import PlayerKind
from worlds.registry import load_plugin

from .fakes import CountingAlarm
from .outboxes import MemoryOutbox


def test_a_roster_keeps_players_and_names_each_other_s_inverse() -> None:
    roster = Roster()
    ada, bob = MemoryOutbox(), MemoryOutbox()
    roster.seat(ada, 1, "Ada")
    roster.seat(bob, 2, None)
    assert roster.players == {1: ada, 2: bob} and roster.seats == {ada: 1, bob: 2}
    assert roster.names["ADA"] == 1, "a name that only looks like another is that name"
    assert roster.shown() == {1: "Ada", 2: "#2"}
    assert roster.rename(2, "Bob") is None and roster.label(2) == "Bob"
    new = MemoryOutbox()
    roster.move(1, ada, new)
    assert roster.players[1] is new and ada not in roster.seats
    assert roster.unseat(1, finished=True) == (new, "Ada")
    assert roster.label(1) == "Ada", "a player who won or died here keeps its name"
    assert "Ada" not in roster.names
    roster.departing[2] = Departure("Bob", "quit")
    roster.clear()
    assert not roster.players and not roster.departing and roster.label(1) == "Ada"


def test_pushes_go_to_listeners_only_and_chat_to_who_asked_for_it() -> None:
    audience = Audience(CountingAlarm(), Roster(), 1 << 20)
    deaf, listening, chatty = MemoryOutbox(), MemoryOutbox(events=True), MemoryOutbox(chat=True)
    for client in (deaf, listening, chatty):
        audience.watch(client)
    assert audience.listeners == {listening}
    audience.push(PlayerJoined("Ada"))
    audience.shout(Message("Ada", "hi"), [])
    assert listening.replies == [PlayerJoined("Ada")] and deaf.replies == []
    assert chatty.replies == [Message("Ada", "hi")]
    audience.unwatch(listening)
    assert not audience.listeners and listening not in audience.watchers


def test_spectators_see_the_map_when_it_changes_and_the_board_if_they_asked() -> None:
    world = load_plugin("classic").open("default", seed=5)
    roster = Roster()
    world.join(1, PlayerKind.HUMAN)
    roster.seat(MemoryOutbox(), 1, "Ada")
    audience = Audience(CountingAlarm(), roster, 1 << 20)
    plain, boarded = MemoryOutbox(), MemoryOutbox(board=True)
    for client in (plain, boarded):
        audience.watch(client)
        audience.greet(client, world)
    assert [type(reply) for reply in plain.replies] == [View]
    assert [type(reply) for reply in boarded.replies] == [View, Board]
    audience.show(world)
    audience.show(world)
    assert len(plain.replies) == 2, "shown once; unchanged since: not again"
    world.leave(1)
    roster.unseat(1)
    audience.show(world)
    assert isinstance(plain.replies[-1], View) and isinstance(boarded.replies[-1], Board)


def test_a_spectator_that_lags_gets_the_latest_map_only_once_it_catches_up() -> None:
    world = load_plugin("classic").open("default", seed=5)
    alarm = CountingAlarm()
    audience = Audience(alarm, Roster(), 1 << 20)
    slow = MemoryOutbox()
    audience.watch(slow)
    slow.backlogged = True
    audience.show(world)
    assert slow.replies == [] and audience.behind and alarm.rung == 1
    audience.catch_up()
    assert slow.replies == [], "still behind"
    slow.backlogged = False
    audience.catch_up()
    assert [type(reply) for reply in slow.replies] == [View] and not audience.behind
