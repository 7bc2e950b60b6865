"""Fakes of the roles a game's parts declare: each keeps what it was asked, in order,
so that a part can be built on its own in a test and held to what it does to the others.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from protocol.commands import Look, Map
from protocol.replies import Bye, Lose, Win
from server.game.alarm import Alarm
from server.game.builds import Opened
from server.game.outbox import Outbox
from worlds.api import Action, Event, PlayerId, World


class Calls:
    """What a fake was asked: ``calls`` holds one tuple a call, its name first."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def asked(self, name: str) -> list[tuple[Any, ...]]:
        """The calls of ``name``, each without its name."""
        return [call[1:] for call in self.calls if call[0] == name]


class CountingAlarm(Alarm):
    """An alarm that counts how often it was rung."""

    def __init__(self) -> None:
        super().__init__()
        self.rung = 0

    def wake(self) -> None:
        self.rung += 1
        super().wake()


class FakePlay(Calls):
    """:class:`server.game.pacing.Plays`: resolves actions in ``world`` (a real world) and
    keeps each call; ``failing`` makes :meth:`round` raise it."""

    def __init__(self, world: World) -> None:
        super().__init__()
        self.world = world
        self.rounds = 0
        self.failing: Exception | None = None

    def act(self, player: PlayerId, action: Action, *, settle: bool = True) -> None:
        self.calls.append(("act", player, action, settle))
        self.rounds += 1
        self.world.resolve(((player, action),))

    def count(self, player: PlayerId) -> None:
        self.calls.append(("count", player))

    def round(
        self,
        number: int,
        actions: Sequence[tuple[PlayerId, Action]],
        missed: Sequence[PlayerId],
        stays: Sequence[PlayerId],
    ) -> None:
        self.calls.append(("round", number, list(actions), list(missed), list(stays)))
        if self.failing is not None:
            raise self.failing
        self.rounds = number
        self.world.resolve(actions)

    def happened(self, events: list[Event]) -> None:
        self.calls.append(("happened", events))

    def time_out(self, player: PlayerId) -> None:
        self.calls.append(("time_out", player))
        self.world.time_out(player)  # type: ignore[attr-defined]

    def show(self) -> None:
        self.calls.append(("show",))

    def flush(self) -> None:
        self.calls.append(("flush",))

    def settle(self) -> None:
        self.calls.append(("settle",))

    def crash(self, during: str) -> None:
        self.calls.append(("crash", during))


class FakeMembers(Calls):
    """:class:`server.game.pacing.Members`."""

    def leave(self, client: Outbox, why: str = "disconnected") -> None:
        self.calls.append(("leave", client, why))

    def remove(self, player: PlayerId, who: str, why: str) -> None:
        self.calls.append(("remove", player, who, why))


class FakeAnswers(Calls):
    """:class:`server.game.pacing.Answers`."""

    def answer(
        self, client: Outbox, player: PlayerId, step: Look | Map, *, asked: bool = True
    ) -> None:
        self.calls.append(("answer", client, player, step, asked))


class FakeDelivery(Calls):
    """:class:`server.game.chronicle.Deliverer`."""

    def deliver(
        self,
        happened: list[Event],
        actions: Sequence[tuple[PlayerId, Action]],
        unasked: Collection[PlayerId],
    ) -> None:
        self.calls.append(("deliver", list(happened), list(actions), set(unasked)))


class FakeSteward(Calls):
    """:class:`server.game.chronicle.Settler`."""

    def settle(self) -> None:
        self.calls.append(("settle",))

    def crash(self, during: str) -> None:
        self.calls.append(("crash", during))


class FakeOutcomes(Calls):
    """:class:`server.game.delivery.Outcomes`."""

    def finish(self, player: PlayerId, final: Win | Lose, outcome: str, **context: int) -> None:
        self.calls.append(("finish", player, final, outcome, context))

    def played_in_time(self, player: PlayerId) -> None:
        self.calls.append(("played_in_time", player))


class FakePacing(Calls):
    """:class:`server.game.verbs.Paced` and :class:`server.game.steward.Timed`: holds the
    looks it is told to (``holding``), and has a deadline a test sets."""

    expiry = "time-out"

    def __init__(self, *, holding: bool = False) -> None:
        super().__init__()
        self.holding = holding
        self.deadline = float("inf")
        self.working = False

    def act(self, client: Outbox, player: PlayerId, action: Action) -> None:
        self.calls.append(("act", client, player, action))

    def waits(self, client: Outbox, player: PlayerId, step: Look | Map) -> bool:
        self.calls.append(("waits", client, player, step))
        return self.holding

    def expire(self, now: float) -> None:
        self.calls.append(("expire", now))
        self.deadline = float("inf")

    def busy(self) -> bool:
        return self.working


class FakeGame(Calls):
    """What the verbs (:class:`server.game.verbs.Acting`) and the steward
    (:class:`server.game.steward.Ending`) have their game do."""

    def __init__(self) -> None:
        super().__init__()
        self.pacing = FakePacing()
        self.chatty = True
        self.keep = True

    def may_chat(self, client: Outbox) -> bool:
        self.calls.append(("may_chat", client))
        return self.chatty

    def finish(self, player: PlayerId, final: Win | Lose, outcome: str, **context: int) -> None:
        self.calls.append(("finish", player, final, outcome))

    def evict(self, final: Bye) -> None:
        self.calls.append(("evict", final))

    def closing(self, reason: str) -> None:
        self.calls.append(("closing", reason))

    def fresh(self, opened: Opened) -> None:
        self.calls.append(("fresh", opened))

    def kept(self) -> bool:
        self.calls.append(("kept",))
        return self.keep

    def gone(self, why: str) -> None:
        self.calls.append(("gone", why))


class FakeLedger(Calls):
    """:class:`server.game.steward.Ledger` and :class:`server.game.verbs.NameRecord`."""

    def __init__(self) -> None:
        super().__init__()
        self.round = 0

    def flush(self) -> None:
        self.calls.append(("flush",))

    def named(self, player: PlayerId, name: str, *, claimed: bool) -> None:
        self.calls.append(("named", player, name, claimed))


class FakeRecorder(Calls):
    """:class:`server.game.chronicle.Recorder`."""

    def finished(self, record: Any) -> None:
        self.calls.append(("finished", record))
