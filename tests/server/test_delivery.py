"""Delivering events (server/game/delivery.py) on its own: a real roster, audience and
world, the game's outcomes faked; each event goes to whom TELLINGS says it concerns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import structlog

from protocol.commands import Move, Pickup
from protocol.direction import Direction
from protocol.replies import Fail, Lose, Notice, Seen, Success, TurnOver, Win
from server.game.audience import Audience
from server.game.builds import measure
from server.game.delivery import Delivery
from server.game.restarts import WorldSlot
from server.game.roster import Roster
from server.game.spec import GameSpec
from server.game.wording import sentence_of
from worlds.api import (
    Blocked,
    Died,
    Escaped,
    Event,
    Moved,
    PlayerKind,
    Telling,
)
from worlds.api import (
    Notice as NoticeEvent,
)
from worlds.classic import ClassicPlugin
from worlds.classic.world import ClassicWorld
from worlds.registry import load_plugin
from worlds.turns import TurnEnded

from .fakes import CountingAlarm, FakeOutcomes
from .outboxes import MemoryOutbox


class Parts:
    def __init__(self, plugin_name: str = "classic") -> None:
        spec = GameSpec("g", load_plugin(plugin_name), "default", 5)
        self.slot = WorldSlot(spec, None, None, structlog.get_logger("test"))
        self.roster = Roster()
        self.audience = Audience(CountingAlarm(), self.roster, spec.max_map_bytes)
        self.outcomes = FakeOutcomes()
        self.delivery = Delivery(self.roster, self.audience, self.slot, self.outcomes)

    def seat(self, client: MemoryOutbox, player: int, name: str | None = None) -> None:
        self.slot.world.join(player, PlayerKind.HUMAN)
        self.roster.seat(client, player, name)
        if client.wants.events:
            self.audience.listeners.add(client)


def test_the_result_of_an_action_answers_its_actor_and_witnesses_see_it() -> None:
    parts = Parts()
    ada, bob = MemoryOutbox(), MemoryOutbox(events=True)
    parts.seat(ada, 1, "Ada")
    parts.seat(bob, 2)
    spectator = MemoryOutbox(events=True)
    parts.audience.watch(spectator)
    move = Move(Direction.E)
    parts.delivery.deliver([Moved(1, (1, 1), (1, 2))], [(1, move)], ())
    assert ada.replies == [Success()]
    assert spectator.replies == [Seen("Ada", "MOVE E", "SUCCESS")], "a spectator sees all"
    world = parts.slot.world
    assert (Seen("Ada", "MOVE E", "SUCCESS") in bob.replies) == world.witnesses(
        2, Moved(1, (1, 1), (1, 2))
    ), "a player sees what the world says it witnessed"


def test_a_player_who_sent_no_command_is_owed_no_reply() -> None:
    parts = Parts()
    ada = MemoryOutbox()
    parts.seat(ada, 1)
    parts.delivery.deliver([Blocked(1, "a wall")], [(1, Move(Direction.N))], {1})
    assert ada.replies == []


def test_the_end_of_a_player_s_game_is_the_game_s_to_carry_out() -> None:
    parts = Parts()
    ada, bob = MemoryOutbox(), MemoryOutbox()
    parts.seat(ada, 1)
    parts.seat(bob, 2)
    parts.delivery.deliver([Escaped(1, 2, 9, "You escaped."), Died(2, "You fell.")], [], ())
    assert parts.outcomes.asked("finish") == [
        (1, Win("You escaped."), "escaped", {"gold": 2, "moves": 9}),
        (2, Lose("You fell."), "died", {}),
    ]
    assert ada.replies == [] and bob.replies == [], "told by the game as it finishes them"


def test_notices_go_to_their_player_or_to_every_listener() -> None:
    parts = Parts()
    ada, bob, deaf = MemoryOutbox(events=True), MemoryOutbox(events=True), MemoryOutbox()
    for player, client in enumerate((ada, bob, deaf), start=1):
        parts.seat(client, player)
    parts.delivery.deliver([NoticeEvent(1, "a door opens")], [], ())
    assert ada.replies == [Notice("a door opens")] and bob.replies == []
    parts.delivery.deliver([NoticeEvent(None, "the floor shakes")], [], ())
    assert bob.replies == [Notice("the floor shakes")] and deaf.replies == []
    parts.delivery.notice(None, "the server is stopping")
    assert ada.replies[-1] == Notice("the server is stopping")


def test_a_turn_ended_in_time_clears_the_missed_count_and_one_timed_out_does_not() -> None:
    parts = Parts("battle")
    ada = MemoryOutbox(events=True)
    parts.seat(ada, 1)
    parts.delivery.deliver([TurnEnded(1, missed=False), TurnEnded(1, missed=True)], [], ())
    assert parts.outcomes.asked("played_in_time") == [(1,)]
    assert ada.replies == [TurnOver(timed_out=False), TurnOver(timed_out=True)]


@dataclass(frozen=True, slots=True)
class Sighed(Event):
    """A world's own kind of event, which the server does not know."""

    text: str


class SighingWorld(ClassicWorld):
    """A classic world that tells its own events: what a plugin may contribute."""

    emits = ClassicWorld.emits | {Sighed}
    tellings: ClassVar = {
        Sighed: Telling(
            lambda event, who, goal: f"{who(event.player)} sighed: {event.text}",
            to_player=lambda event, labels: Notice(f"*{event.text}*"),
        )
    }


def test_a_world_s_own_events_are_told_as_the_world_says() -> None:
    classic = load_plugin("classic")
    assert isinstance(classic, ClassicPlugin)
    world = SighingWorld(classic.load_map("default", seed=5), seed=5)
    spec = GameSpec("g", classic, "default", 5)
    opened = measure(world, spec.max_map_bytes)
    slot = WorldSlot(spec, None, opened, structlog.get_logger("test"))
    roster = Roster()
    audience = Audience(CountingAlarm(), roster, spec.max_map_bytes)
    delivery = Delivery(roster, audience, slot, FakeOutcomes())
    ada = MemoryOutbox(events=True)
    world.join(1, PlayerKind.HUMAN)
    roster.seat(ada, 1, "Ada")
    audience.listeners.add(ada)
    delivery.deliver([Sighed(1, "alas")], [], ())
    assert ada.replies == [Notice("*alas*")]
    assert sentence_of(Sighed(1, "alas"), roster.label, 0, world) == "Ada sighed: alas"
    delivery.deliver([Blocked(1, "a wall")], [(1, Pickup())], ())
    assert ada.replies[-1] == Fail("can't move into a wall"), "the shared ones still hold"
