"""The chronicle and its one step of play (server/game/chronicle.py), built on their own:
a real world, a real audience, and fakes of the delivery, the steward and the records."""

from __future__ import annotations

import json
from pathlib import Path

import structlog

from protocol.commands import Move, Pickup, Stay
from protocol.direction import Direction
from protocol.replies import RoundEnded, View
from records.model import GameRecord
from server.game.audience import Audience
from server.game.builds import open_world
from server.game.chronicle import Chronicle, Play
from server.game.restarts import WorldSlot
from server.game.roster import Roster
from server.game.spec import GameSpec
from server.replay.shelf import ReplayShelf
from worlds.api import Blocked, Moved, PlayerKind, ResultEvent, Stayed
from worlds.registry import load_plugin
from worlds.turns import TurnEnded, TurnStarted

from .fakes import CountingAlarm, FakeDelivery, FakeRecorder, FakeSteward
from .outboxes import MemoryOutbox
from .worlds import TickerPlugin

LOG = structlog.get_logger("test")


class Parts:
    """A play and its collaborators, on ``spec``'s world with two players in it."""

    def __init__(self, spec: GameSpec, replays: ReplayShelf | None = None) -> None:
        self.slot = WorldSlot(spec, None, None, LOG)
        self.recorder = FakeRecorder()
        self.chronicle = Chronicle(spec, replays, self.recorder, LOG)
        self.roster = Roster()
        self.audience = Audience(CountingAlarm(), self.roster, spec.max_map_bytes)
        self.delivery = FakeDelivery()
        self.steward = FakeSteward()
        self.play = Play(self.chronicle, self.slot, self.delivery, self.audience, self.steward)
        self.chronicle.begin(self.slot.opened, None)
        for player in (1, 2):
            self.slot.world.join(player, PlayerKind.BOT)
            self.chronicle.joined(player, PlayerKind.BOT, None, False, "2013")


def _records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()[1:]]


async def test_an_action_is_counted_recorded_resolved_told_shown_then_settled(
    tmp_path: Path,
) -> None:
    parts = Parts(GameSpec("g", load_plugin("classic"), "default", 5), ReplayShelf(tmp_path))
    spectator = MemoryOutbox()
    parts.audience.watch(spectator)
    move = Move(Direction.E)
    parts.play.act(1, move)
    # Recorded before it was told: the replay holds it, as round 1.
    assert parts.chronicle.round == 1 and parts.play.rounds == 1
    replay = parts.chronicle.replay
    assert replay is not None
    replay.flush()
    assert replay.path is not None
    assert _records(replay.path)[-1] == {"round": 1, "actions": [[1, "MOVE E"]]}
    # Resolved by the world, and every event handed to the delivery with the action.
    (happened, actions, unasked) = parts.delivery.asked("deliver")[0]
    assert actions == [(1, move)] and unasked == set()
    (result,) = [event for event in happened if isinstance(event, ResultEvent)]
    assert result.player == 1 and isinstance(result, Moved | Blocked)
    assert isinstance(spectator.replies[0], View), "spectators see the map after it"
    assert parts.steward.calls == [("settle",)], "then the steward is asked"
    parts.play.act(2, Pickup(), settle=False)
    assert parts.steward.calls == [("settle",)], "unless the caller settles itself"
    assert parts.chronicle.tally.empty is False


async def test_a_round_is_recorded_resolved_together_and_its_end_pushed() -> None:
    parts = Parts(GameSpec("g", TickerPlugin(), None, 3))
    listener = MemoryOutbox(events=True)
    parts.audience.watch(listener)
    parts.play.round(4, [(1, Stay()), (2, Stay())], missed=[2], stays=[2])
    assert parts.chronicle.round == 4
    (happened, actions, unasked) = parts.delivery.asked("deliver")[0]
    assert actions == [(1, Stay()), (2, Stay())]
    assert [type(event) for event in happened[:2]] == [Stayed, Stayed]
    assert unasked == {2}, "a missed player sent no command: it is owed no reply"
    assert listener.of(RoundEnded) == [RoundEnded(4, 1, 1)]
    assert parts.steward.calls == [], "a round's pacing settles it once it is done"


async def test_a_turn_that_ran_out_is_recorded_then_told() -> None:
    parts = Parts(GameSpec("g", load_plugin("battle"), None, 1))
    world = parts.slot.world
    holder = world.turn  # type: ignore[attr-defined]
    parts.play.time_out(holder)
    (happened, actions, _) = parts.delivery.asked("deliver")[0]
    assert actions == []
    assert TurnEnded(holder, missed=True) in happened
    assert any(isinstance(event, TurnStarted) for event in happened)


async def test_what_the_world_did_by_itself_is_told_and_a_failure_goes_to_the_steward() -> None:
    parts = Parts(GameSpec("g", load_plugin("classic"), "default", 5))
    parts.play.happened([])
    assert parts.delivery.asked("deliver") == [([], [], set())]
    parts.play.crash("round")
    assert parts.steward.calls == [("crash", "round")]


async def test_the_record_of_a_world_s_game_goes_to_its_owner_when_it_closes() -> None:
    parts = Parts(GameSpec("g", load_plugin("classic"), "default", 5))
    parts.play.act(1, Move(Direction.E))
    parts.chronicle.finished(1, "escaped", 2, 7)
    parts.chronicle.close("all players left", [(2, None)])
    ((record,),) = parts.recorder.asked("finished")
    assert isinstance(record, GameRecord) and record.end == "all players left"
    assert record.rounds == 1
    assert parts.chronicle.replay is None
    parts.chronicle.fresh()
    assert parts.chronicle.round == 0


async def test_a_world_opened_by_the_builder_keeps_its_own_replay_header(tmp_path: Path) -> None:
    spec = GameSpec("g", load_plugin("classic"), "tiny", 1)
    chronicle = Chronicle(spec, ReplayShelf(tmp_path), FakeRecorder(), LOG)
    chronicle.begin(open_world(spec.plugin, "tiny", 1, 1 << 20), 30.0)
    replay = chronicle.replay
    assert replay is not None
    chronicle.joined(1, PlayerKind.HUMAN, "Ada", True, "2015")
    replay.begin()
    replay.flush()
    assert replay.path is not None
    header, *rest = (json.loads(line) for line in replay.path.read_text().splitlines())
    assert header["game"] == "g" and header["turn"] == 30.0
    assert rest[:2] == [
        {"round": 0, "join": 1, "kind": "P"},
        {"round": 0, "name": 1, "as": "Ada"},
    ]
