"""Pacings on their own, on fakes of the play, the members and the answers, and in a game
of in-memory clients (server/game/pacing.py, rounds.py, turn_taking.py)."""

from __future__ import annotations

from typing import Any

from protocol.commands import Command, EndTurn, Look, Move, Pickup, Stay, parse_command
from protocol.direction import Direction
from protocol.replies import LookReply, Success
from server.game.pacing import Pacing, PendingSteps, StartWhenFull
from server.game.roster import Roster
from server.game.rounds import Rounds
from server.game.spec import GameSpec
from server.game.turn_taking import Turns
from worlds.api import PlayerKind, WorldError, WorldPlugin
from worlds.registry import load_plugin

from .fakes import CountingAlarm, FakeAnswers, FakeMembers, FakePlay
from .games import game_of
from .outboxes import MemoryOutbox
from .worlds import TickerPlugin


def command(line: str) -> Command:
    parsed = parse_command(line)
    assert parsed is not None, f"{line!r} is no command"
    return parsed


def test_pending_steps_are_one_a_player_and_released_in_join_order() -> None:
    steps = PendingSteps()
    late, early = MemoryOutbox(), MemoryOutbox()
    steps.hold(late, 7, Pickup())
    steps.hold(early, 2, Move(Direction.N))
    assert late.waiting is not None and not late.waiting.is_set()
    assert late.on_players, "it waits for other players: its QUIT would not"
    released = steps.take_all()
    assert [player for player, _ in released] == [2, 7]
    assert late.waiting.is_set() and early.waiting is not None and early.waiting.is_set()
    assert len(steps) == 0


def test_a_resumed_player_keeps_its_action_but_not_its_look() -> None:
    steps = PendingSteps()
    old, new = MemoryOutbox(), MemoryOutbox()
    steps.hold(old, 1, Pickup())
    steps.hand_over(1, new)
    pending = steps.take(1)
    assert pending is not None and pending.client is new
    steps.hold(old, 1, Look())
    steps.hand_over(1, new)
    assert 1 not in steps and old.waiting is not None and old.waiting.is_set()


async def test_each_world_gets_its_pacing() -> None:
    def pacing(world: str, **settings: Any) -> Pacing:
        return game_of(world, None, 1, **settings).pacing

    assert type(pacing("classic")) is Pacing and not pacing("classic").timed
    assert isinstance(pacing("baddies"), Rounds) and pacing("baddies").timed
    assert isinstance(pacing("battle"), Turns) and pacing("battle").timed
    wrapped = pacing("battle", limit=2, start_full=True)
    assert isinstance(wrapped, StartWhenFull) and isinstance(wrapped.inner, Turns)


async def test_start_when_full_holds_looks_and_actions_until_the_last_player_comes() -> None:
    game = game_of("classic", "default", 5, limit=2, start_full=True)
    ada, bob = MemoryOutbox("Ada"), MemoryOutbox("Bob")
    game.handle(ada, command("LOOK"))
    assert ada.replies == [] and ada.waiting is not None and not ada.waiting.is_set()
    assert game.pacing.deadline < float("inf"), "a player who never comes holds nobody up"
    game.handle(bob, command("MAP"))
    # Full: Ada's LOOK is answered, from the board with both players on it, then Bob's MAP.
    assert ada.waiting.is_set() and isinstance(ada.replies[0], LookReply)
    assert bob.lines()[0].startswith("MAP ")
    ada.replies.clear()
    game.handle(ada, command("LOOK"))
    assert isinstance(ada.replies[-1], LookReply), "once begun, nothing waits"
    assert game.pacing.deadline == float("inf")


async def test_a_round_waits_for_every_player_then_answers_both() -> None:
    game = game_of("baddies", None, 7)
    ada, bob = MemoryOutbox("Ada"), MemoryOutbox("Bob")
    game.handle(ada, command("LOOK"))
    game.handle(bob, command("LOOK"))
    ada.lines(), bob.lines()
    game.handle(ada, command("STAY"))
    assert ada.replies == [] and game.pacing.busy()
    game.handle(bob, command("STAY"))
    assert not game.pacing.busy() and game.round == 1
    assert Success() in ada.replies and Success() in bob.replies


# -- each pacing on its own: fakes of the play, the members and the answers -----------


class Paced:
    """A pacing of ``kind`` on a real world of ``world`` with players 1 and 2 seated."""

    def __init__(self, kind: type[Pacing], world: str | WorldPlugin, **spec: Any) -> None:
        plugin = load_plugin(world) if isinstance(world, str) else world
        self.spec = GameSpec("g", plugin, None, 1, **spec)
        self.play = FakePlay(plugin.open(None, seed=1))
        self.roster = Roster()
        self.members = FakeMembers()
        self.answers = FakeAnswers()
        self.alarm = CountingAlarm()
        self.pacing = kind(
            self.play, self.roster, self.members, self.answers, self.alarm, self.spec
        )
        self.clients = {1: MemoryOutbox("Ada"), 2: MemoryOutbox("Bob")}

    def seat(self, *players: int) -> None:
        for player in players:
            self.play.world.join(player, PlayerKind.HUMAN)
            self.roster.seat(self.clients[player], player, self.clients[player].name)
            self.pacing.joined(self.clients[player], player)


async def test_at_once_each_action_is_played_and_settled_as_it_comes() -> None:
    paced = Paced(Pacing, "classic")
    paced.seat(1)
    paced.pacing.act(paced.clients[1], 1, Pickup())
    assert paced.play.calls == [("act", 1, Pickup(), True)]
    assert not paced.pacing.waits(paced.clients[1], 1, Look())
    assert paced.pacing.deadline == float("inf") and paced.alarm.rung == 0


async def test_a_round_waits_for_every_player_and_plays_them_in_join_order() -> None:
    paced = Paced(Rounds, TickerPlugin())
    paced.seat(1, 2)
    bob, ada = paced.clients[2], paced.clients[1]
    paced.pacing.act(bob, 2, Stay())
    assert paced.play.asked("count") == [(2,)], "counted as it joins its round"
    assert bob.waiting is not None and not bob.waiting.is_set() and bob.on_players
    assert paced.pacing.busy() and paced.pacing.stays_for(2)
    assert paced.pacing.deadline < float("inf") and paced.alarm.rung == 1
    paced.pacing.act(ada, 1, Move(Direction.E))
    assert paced.play.asked("round") == [(1, [(1, Move(Direction.E)), (2, Stay())], [], [])]
    assert [call[0] for call in paced.play.calls[-3:]] == ["flush", "show", "settle"]
    assert bob.waiting.is_set() and not paced.pacing.busy()
    assert paced.pacing.deadline == float("inf")


async def test_a_round_that_times_out_stays_for_the_missing_who_are_removed_in_the_end() -> None:
    paced = Paced(Rounds, TickerPlugin(), max_missed_turns=2)
    paced.seat(1, 2)
    for round_number in (1, 2):
        paced.pacing.act(paced.clients[1], 1, Stay())
        paced.pacing.expire(paced.pacing.deadline)
        missed = [(round_number, [(1, Stay()), (2, Stay())], [2], [2])]
        assert paced.play.asked("round")[-1:] == missed
    assert paced.members.asked("leave") == [(paced.clients[2], "removed")]
    assert paced.clients[2].final is not None
    assert (
        paced.clients[2].lines()[-1] == "BYE removed from the game after missing 2 turns in a row"
    )


async def test_a_round_the_world_fails_in_is_the_steward_s_to_end() -> None:
    paced = Paced(Rounds, TickerPlugin())
    paced.seat(1)
    paced.play.failing = WorldError("a bug")
    paced.pacing.act(paced.clients[1], 1, Stay())
    assert paced.play.asked("crash") == [("round",)]
    assert [call[0] for call in paced.play.calls] == ["count", "round", "crash"], "nothing after"
    assert not paced.pacing.busy()


async def test_in_turns_only_the_holder_plays_and_the_others_wait_or_are_told() -> None:
    paced = Paced(Turns, "battle")
    paced.seat(1, 2)
    world = paced.play.world
    holder = world.turn  # type: ignore[attr-defined]
    other = 2 if holder == 1 else 1
    told = MemoryOutbox(events=True)
    paced.pacing.act(told, other, EndTurn())
    assert told.lines()[0].startswith("ERROR it is not your turn"), "told, with events"
    paced.pacing.act(paced.clients[other], other, Pickup())
    assert paced.play.asked("act") == [], "held, without: played when its turn comes"
    paced.pacing.act(paced.clients[holder], holder, EndTurn())
    assert paced.play.asked("act") == [(holder, EndTurn(), False), (other, Pickup(), False)]
    assert paced.play.calls[-1] == ("settle",), "settled once the turn has passed"


async def test_in_turns_a_turn_that_times_out_is_told_and_counted_as_missed() -> None:
    paced = Paced(Turns, "battle")
    paced.seat(1, 2)
    holder = paced.play.world.turn  # type: ignore[attr-defined]
    assert paced.pacing.deadline < float("inf"), "timed while someone else waits"
    paced.pacing.expire(paced.pacing.deadline)
    assert paced.play.asked("time_out") == [(holder,)]
    assert paced.play.calls[-1] == ("settle",)


async def test_not_before_the_game_is_full_nothing_is_played() -> None:
    paced = Paced(Pacing, "classic", limit=2)
    paced.pacing = StartWhenFull(paced.pacing, 2)
    paced.seat(1)
    ada = paced.clients[1]
    assert paced.pacing.waits(ada, 1, Look())
    assert paced.pacing.deadline < float("inf")
    paced.seat(2)
    assert paced.play.asked("show") == [()], "the map with everyone in, before anyone acts"
    assert paced.answers.asked("answer") == [(ada, 1, Look(), False)]
    assert ada.waiting is not None and ada.waiting.is_set()
    paced.pacing.act(ada, 1, Pickup())
    assert paced.play.asked("act") == [(1, Pickup(), True)], "begun: played at once"
