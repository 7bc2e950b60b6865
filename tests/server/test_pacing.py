"""Pacings on their own and in a game of in-memory clients (server/pacing.py)."""

from __future__ import annotations

from typing import Any

from protocol.commands import Command, Look, Move, Pickup, parse_command
from protocol.direction import Direction
from protocol.replies import LookReply, Success
from server.game.pacing import Pacing, PendingSteps, StartWhenFull
from server.game.rounds import Rounds
from server.game.turn_taking import Turns

from .games import game_of
from .outboxes import MemoryOutbox


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
