"""The steward (server/game/steward.py) on its own: a real world slot, roster and
audience, and fakes of the game it has do things (its Ending), its pacing and its record."""

from __future__ import annotations

import structlog
import trio
import trio.testing

from protocol.replies import Bye, GameOver, Lose
from server.game.audience import Audience
from server.game.builds import measure
from server.game.lifecycle import State
from server.game.restarts import WorldSlot
from server.game.roster import Departure, Roster
from server.game.spec import GameSpec
from server.game.steward import Steward
from worlds.api import PlayerKind

from .fakes import CountingAlarm, FakeGame, FakeLedger
from .outboxes import MemoryOutbox
from .worlds import TickerPlugin, TickerWorld


class DoomedWorld(TickerWorld):
    """A corridor where, once ``doomed``, nobody can win any more."""

    doomed = False

    def unwinnable(self) -> str | None:
        return "the clock stopped" if self.doomed else None


class Stewarded:
    def __init__(self, *, unjoined_timeout: float | None = None) -> None:
        self.spec = GameSpec("g", TickerPlugin(), None, 1, unjoined_timeout=unjoined_timeout)
        self.world = DoomedWorld(1)
        opened = measure(self.world, self.spec.max_map_bytes)
        self.slot = WorldSlot(self.spec, None, opened, structlog.get_logger("test"))
        self.roster = Roster()
        self.alarm = CountingAlarm()
        self.audience = Audience(self.alarm, self.roster, self.spec.max_map_bytes)
        self.ledger = FakeLedger()
        self.game = FakeGame()
        self.steward = Steward(
            self.spec,
            self.slot,
            self.roster,
            self.audience,
            self.ledger,
            self.game,
            self.alarm,
            structlog.get_logger("test"),
        )

    def seat(self, *players: int) -> None:
        for player in players:
            self.world.join(player, PlayerKind.HUMAN)
            self.roster.seat(MemoryOutbox(), player, None)
            self.steward.joined()


async def test_while_a_win_is_possible_settling_changes_nothing() -> None:
    parts = Stewarded()
    parts.seat(1, 2)
    parts.steward.settle()
    assert parts.game.calls == [] and parts.steward.state is State.PLAYING


async def test_when_nobody_can_win_each_is_told_so_and_a_fresh_world_takes_its_place() -> None:
    parts = Stewarded()
    parts.seat(2, 1)
    spectator = MemoryOutbox()
    parts.audience.watch(spectator)
    parts.ledger.round = 7
    parts.world.doomed = True
    parts.steward.settle()
    final = Lose("the clock stopped; the game is over")
    assert [call[0] for call in parts.game.calls] == [
        "finish",
        "finish",
        "closing",
        "kept",
        "fresh",
    ]
    assert parts.game.asked("finish") == [(1, final, "lost"), (2, final, "lost")], "join order"
    assert parts.game.asked("closing") == [("nobody could win any more",)]
    assert spectator.replies == [GameOver("g is over after 7 rounds")]
    assert parts.steward.state is State.OPEN
    assert parts.slot.world is not parts.world, "a fresh world, built at once"


async def test_a_game_its_owner_does_not_keep_is_closed_when_its_last_player_leaves() -> None:
    parts = Stewarded()
    parts.seat(1)
    parts.game.keep = False
    parts.roster.unseat(1)
    parts.steward.settle()
    assert parts.game.asked("closing") == [("all players left",), ("all players left",)]
    assert parts.steward.state is State.CLOSED


async def test_nothing_ends_while_actions_are_still_to_be_played() -> None:
    parts = Stewarded()
    parts.seat(1)
    parts.world.doomed = True
    parts.game.pacing.working = True
    parts.steward.settle()
    assert parts.game.calls == []
    parts.game.pacing.working = False
    parts.roster.departing[1] = Departure("#1", "disconnected")
    parts.steward.settle()
    assert parts.game.calls == [], "not while a player who left is still to be removed"


async def test_a_world_that_fails_ends_the_game_for_everyone_and_is_always_rebuilt() -> None:
    parts = Stewarded()
    parts.seat(1)
    parts.game.keep = False
    parts.steward.crash("round")
    (evicted,) = parts.game.asked("evict")
    assert evicted == (
        Bye("the ticker game stopped because of an internal error; please reconnect"),
    )
    assert parts.game.asked("kept") == [], "rebuilt whatever the owner would say"
    assert parts.steward.state is State.OPEN


async def test_the_task_times_out_the_pacing_and_flushes_the_record(
    autojump_clock: trio.testing.MockClock,
) -> None:
    parts = Stewarded()
    parts.seat(1)
    parts.game.pacing.deadline = trio.current_time() + 5
    async with trio.open_nursery() as nursery:
        nursery.start_soon(parts.steward.run)
        await trio.sleep(6)
        assert parts.game.pacing.asked("expire") != []
        assert parts.ledger.asked("flush") != []
        parts.steward.close("the test is over")
    assert parts.steward.state is State.CLOSED
    assert parts.game.asked("closing")[-1] == ("the test is over",)


async def test_a_game_nobody_joins_is_gone_when_its_time_runs_out(
    autojump_clock: trio.testing.MockClock,
) -> None:
    parts = Stewarded(unjoined_timeout=30)
    assert parts.alarm.rung == 1, "its clock set, the task is woken"
    with trio.fail_after(60):
        await parts.steward.run()  # returns once the game is closed
    assert parts.game.asked("gone") == [("nobody joined within 30 seconds",)]
    assert parts.steward.state is State.CLOSED
