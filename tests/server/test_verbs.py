"""What each game command does (server/game/verbs.py), on its own: a real roster,
audience and world, the game's pacing and the record of names faked."""

from __future__ import annotations

import structlog

from protocol.commands import (
    ApGet,
    Attack,
    Command,
    EndTurn,
    Hello,
    Look,
    Map,
    Move,
    Pickup,
    Shout,
    Stay,
    parse_command,
)
from protocol.direction import Direction
from protocol.replies import (
    ActionPoints,
    Done,
    Error,
    Gold,
    LookReply,
    MapReply,
    Message,
    Notice,
)
from server.game.audience import Audience
from server.game.restarts import WorldSlot
from server.game.roster import Roster
from server.game.spec import GameSpec
from server.game.verbs import COMMANDS, Verbs
from worlds.api import PlayerKind
from worlds.registry import load_plugin

from .fakes import CountingAlarm, FakeGame, FakeLedger
from .outboxes import MemoryOutbox


class Parts:
    def __init__(self, world: str = "classic", max_map_bytes: int = 1 << 20) -> None:
        self.spec = GameSpec("g", load_plugin(world), None, 3, max_map_bytes=max_map_bytes)
        self.slot = WorldSlot(self.spec, None, None, structlog.get_logger("test"))
        self.roster = Roster()
        self.audience = Audience(CountingAlarm(), self.roster, self.spec.max_map_bytes)
        self.ledger = FakeLedger()
        self.game = FakeGame()
        self.verbs = Verbs(self.spec, self.slot, self.roster, self.audience, self.ledger, self.game)

    def seat(self, client: MemoryOutbox, player: int, name: str | None = None) -> None:
        self.slot.world.join(player, PlayerKind.HUMAN)
        self.roster.seat(client, player, name)

    def send(self, client: MemoryOutbox, player: int, line: str) -> None:
        command = parse_command(line)
        assert command is not None
        COMMANDS.get(type(command), Verbs.not_a_game_command)(self.verbs, client, player, command)


def test_an_action_the_world_allows_goes_to_the_pacing_and_no_other() -> None:
    parts = Parts()
    ada = MemoryOutbox()
    parts.seat(ada, 1)
    parts.send(ada, 1, "MOVE E")
    parts.send(ada, 1, "PICKUP")
    assert [call[2] for call in parts.game.pacing.asked("act")] == [Move(Direction.E), Pickup()]
    parts.send(ada, 1, "MOVE NE")
    parts.send(ada, 1, "STAY")
    parts.send(ada, 1, "ATTACK N")
    assert len(parts.game.pacing.asked("act")) == 2, "refused before the pacing or the replay"
    assert ada.lines() == [
        "ERROR MOVE NE is not allowed here; directions: E, N, S, W",
        "ERROR STAY is not available in the classic world",
        "ERROR ATTACK is not available in the classic world",
    ]


def test_a_world_s_own_verbs_are_answered_or_played() -> None:
    parts = Parts("battle")
    ada = MemoryOutbox()
    parts.seat(ada, 1)
    parts.send(ada, 1, "APGET")
    assert isinstance(ada.replies[-1], ActionPoints)
    parts.send(ada, 1, "ATTACK E")
    parts.send(ada, 1, "ENDTURN")
    assert [type(call[2]) for call in parts.game.pacing.asked("act")] == [Attack, EndTurn]
    parts = Parts("baddies")
    bob = MemoryOutbox()
    parts.seat(bob, 1)
    parts.send(bob, 1, "STAY")
    assert parts.game.pacing.asked("act")[0][2] == Stay()


def test_look_and_map_are_answered_unless_the_pacing_holds_them() -> None:
    parts = Parts()
    ada = MemoryOutbox()
    parts.seat(ada, 1)
    parts.send(ada, 1, "LOOK")
    parts.send(ada, 1, "MAP")
    assert isinstance(ada.replies[0], LookReply) and isinstance(ada.replies[1], MapReply)
    parts.game.pacing.holding = True
    parts.send(ada, 1, "LOOK")
    assert len(ada.replies) == 2, "held: the pacing answers it later"
    parts.verbs.answer(ada, 1, Look(), asked=False)
    assert isinstance(ada.replies[2], LookReply), "a held one is answered when let go"
    assert len(parts.game.pacing.asked("waits")) == 3


def test_a_map_too_big_to_send_is_refused_with_the_setting() -> None:
    parts = Parts(max_map_bytes=10)
    ada = MemoryOutbox()
    parts.seat(ada, 1)
    parts.verbs.answer(ada, 1, Map())
    (refusal,) = ada.of(Error)
    assert "(max_map_bytes); use LOOK" in refusal.message


def test_hello_names_the_player_and_a_name_taken_here_is_refused() -> None:
    parts = Parts()
    ada, bob = MemoryOutbox(login="Ada"), MemoryOutbox(events=True)
    parts.seat(ada, 1)
    parts.seat(bob, 2, "Bob")
    parts.audience.listeners.add(bob)
    parts.send(ada, 1, "HELLO Ada")
    assert ada.replies == [Gold(parts.slot.world.goal, name="Ada", held=0)]
    assert parts.ledger.asked("named") == [(1, "Ada", True)], "claimed: its login's name"
    assert bob.replies == [Notice("#1 is now called Ada")]
    parts.send(ada, 1, "HELLO bob")
    assert ada.lines()[-1].startswith("ERROR the name 'bob'"), "lookalike names are one"
    assert parts.roster.names_of[1] == "Ada"


def test_shout_reaches_who_asked_for_chat_if_the_owner_lets_it() -> None:
    parts = Parts()
    ada, bob = MemoryOutbox(), MemoryOutbox(chat=True)
    parts.seat(ada, 1, "Ada")
    parts.seat(bob, 2)
    parts.send(ada, 1, "SHOUT hello")
    assert ada.replies == [Done()] and bob.replies == [Message("Ada", "hello")]
    parts.game.chatty = False
    parts.send(ada, 1, "SHOUT again")
    assert bob.replies == [Message("Ada", "hello")], "the owner refused it (and told Ada)"


def test_a_spectator_may_read_never_act() -> None:
    parts = Parts()
    eve = MemoryOutbox()
    parts.verbs.watcher(eve, Map())
    parts.verbs.watcher(eve, Hello(None))
    parts.verbs.watcher(eve, Move(Direction.E))
    assert isinstance(eve.replies[0], MapReply) and isinstance(eve.replies[1], Gold)
    assert eve.lines()[-1] == (
        "ERROR you are watching g; spectators cannot MOVE (send JOIN g to play)"
    )
    assert parts.game.pacing.calls == []


def test_every_game_verb_has_its_method() -> None:
    game_verbs: set[type[Command]] = {
        Look,
        Map,
        Move,
        Pickup,
        Stay,
        Hello,
        Shout,
        Attack,
        ApGet,
    }
    assert game_verbs <= set(COMMANDS)
