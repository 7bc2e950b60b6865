"""Battle-world games between the sample bots, played in-process and exactly repeatable.

Each bot runs its own strategy code (``bots.battle``, ``bots.explorer``,
``bots.random``) on its own thread, against a :class:`Seat` that stands in for the
client library and talks straight to one :class:`~worlds.battle.BattleWorld`. A
seat answers only on its player's turn: every call (``LOOK`` included) waits until
the world gives that player the turn, so exactly one thread acts at a time, in the
world's turn order, and a game depends only on the map, the seed and the bots'
seeds. This is how the server treats a classic client (its actions wait for its
turn), except that its ``LOOK`` waits too, which gives the classic bots a fresh view
each turn: if anything, it flatters them.

The server's turn clock is stood in for by a count: a player that makes
``STALL_LIMIT`` actions in one turn that cost nothing (moves into other players)
has its turn ended by ``time_out``, as the clock would. A game that reaches
``MAX_ACTIONS`` actions is a draw.
"""

from __future__ import annotations

import argparse
import random
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from dungeon_of_doom.bots import battle as battle_bot
from dungeon_of_doom.bots import explorer
from dungeon_of_doom.bots import random as random_bot
from dungeon_of_doom.bots.cli import Bot
from dungeon_of_doom.clients import Direction, Grid, PickupResult
from dungeon_of_doom.protocol.commands import Attack, EndTurn, Move, Pickup
from dungeon_of_doom.worlds.api import Action, Died, Escaped, Event, Moved, PickedUp, PlayerKind
from dungeon_of_doom.worlds.battle import BattleWorld, plugin
from dungeon_of_doom.worlds.turns import Attacked, Defeated, TurnEnded, TurnPassed, TurnStarted

__all__ = ["KINDS", "Outcome", "play_game"]

STALL_LIMIT: Final = 20
MAX_ACTIONS: Final = 4000
MAX_MOVES: Final = 10_000
"""The random bot's move limit, as its command line sets it by default."""


class TableClosed(Exception):
    """The game is over for this seat (won, lost, or everyone stopped)."""


class Table:
    """One world and the lock every seat acts under."""

    def __init__(self, world: BattleWorld) -> None:
        self.world = world
        self.lock = threading.Condition()
        self.actions = 0
        self.winner: int | None = None
        self.over = False
        self.gone: dict[int, str] = {}  # player -> how it left: died, lost, stopped

    def finish(self) -> None:
        self.over = True
        self.lock.notify_all()


class Seat:
    """A player's connection to a :class:`Table`: the parts of :class:`clients.Client`
    the bots use, with the battle commands."""

    def __init__(self, table: Table, player: int, goal: int) -> None:
        self.table = table
        self.player = player
        self.goal: int | None = goal
        self.gold = 0
        self.moves = 0
        self._turn_over = True
        self._free_actions = 0

    # -- waiting for the turn -------------------------------------------------------------

    def wait_turn(self) -> None:
        """Block until it is this player's turn; raises :class:`TableClosed` when never."""
        table = self.table
        with table.lock:
            self._wait()

    def _wait(self) -> None:
        table, world = self.table, self.table.world
        while not table.over and self.player in world and world.turn != self.player:
            table.lock.wait()
        if table.over or self.player not in world:
            raise TableClosed
        if self._turn_over:
            self._turn_over = False
            self._free_actions = 0

    def _act(self, action: Action) -> list[Event]:
        table, world = self.table, self.table.world
        with table.lock:
            self._wait()
            events = world.resolve([(self.player, action)])
            table.actions += 1
            costless = (
                (type(action) is Move and not any(isinstance(e, Moved) for e in events))
                or (type(action) is Pickup and not any(isinstance(e, PickedUp) for e in events))
                or (
                    type(action) is Attack
                    and any(isinstance(e, Attacked) and e.target is None for e in events)
                )
            )
            self._free_actions = self._free_actions + 1 if costless else 0
            if self._free_actions >= STALL_LIMIT and world.turn == self.player:
                events += world.time_out(self.player)  # what the server's clock would do
            self._absorb(events)
            if table.actions >= MAX_ACTIONS:
                table.finish()
            table.lock.notify_all()
            return events

    def _absorb(self, events: list[Event]) -> None:
        table = self.table
        for event in events:
            if isinstance(event, TurnEnded) and event.player == self.player:
                self._turn_over = True
            elif isinstance(event, TurnStarted) and event.player == self.player:
                self._turn_over = False
                self._free_actions = 0
            elif isinstance(event, Escaped):
                table.winner = event.player
                table.finish()
            elif isinstance(event, Died):
                table.gone[event.player] = "died"
            elif isinstance(event, Defeated):
                table.gone[event.player] = "lost"
        if table.world.turn is None:  # nobody left to play, or someone won
            table.finish()

    def leave(self, why: str) -> None:
        """The bot stopped playing: in the battle world that is death."""
        table = self.table
        with table.lock:
            if self.player in table.world and not table.over:
                table.gone[self.player] = why
                self._absorb(table.world.leave(self.player))
            table.lock.notify_all()

    # -- the client's commands ----------------------------------------------------------------

    def look(self) -> Grid:
        with self.table.lock:
            self._wait()
            return Grid(self.table.world.look(self.player))

    def move(self, direction: Direction | str) -> bool:
        if isinstance(direction, str):
            direction = Direction[direction]
        moved = any(isinstance(e, Moved) for e in self._act(Move(direction)))
        self.moves += 1
        return moved

    def pickup(self) -> PickupResult:
        self.moves += 1
        for event in self._act(Pickup()):
            if isinstance(event, PickedUp):
                if event.is_gold:
                    self.gold = event.gold
                    return PickupResult(True, event.gold)
                return PickupResult(True)
        return PickupResult(False)

    def attack(self, direction: Direction) -> bool:
        self.moves += 1
        return any(isinstance(e, Attacked) and e.hit for e in self._act(Attack(direction)))

    def end_turn(self) -> None:
        events = self._act(EndTurn())
        assert any(isinstance(e, TurnPassed) for e in events)

    def action_points(self) -> int:
        with self.table.lock:
            if self._turn_over:
                return 0
            return self.table.world.action_points(self.player)

    def hit_points(self) -> int:
        with self.table.lock:
            return self.table.world.hit_points(self.player)


class _SeatBot(Bot):
    """What a classic bot's ``play`` receives, around a seat instead of a socket."""

    def __init__(self, kind: str, seat: Seat, seed: int) -> None:
        options = argparse.Namespace(seed=seed, max_moves=MAX_MOVES, progress=False, name=kind)
        super().__init__(kind, seat, options)  # type: ignore[arg-type]


def _battle(seat: Seat, seed: int) -> None:
    brain = battle_bot.BattleBrain(random.Random(seed))
    while True:
        seat.wait_turn()
        battle_bot.play_turn(seat, brain)


def _classic(play: Callable[[Bot], str | None], kind: str) -> Callable[[Seat, int], None]:
    def run(seat: Seat, seed: int) -> None:
        play(_SeatBot(kind, seat, seed))

    return run


KINDS: Final[dict[str, Callable[[Seat, int], None]]] = {
    "battle": _battle,
    "explorer": _classic(explorer.play, "explorer"),
    "random": _classic(random_bot.play, "random"),
}


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one game ended: the kind of the winner (``None``: nobody won)."""

    winner: str | None
    actions: int


def play_game(kinds: Sequence[str], map_spec: str | None, seed: int) -> Outcome:
    """One game of the bots ``kinds`` (in join order) on ``map_spec`` with ``seed``."""
    world = plugin.open(map_spec, seed=seed)
    table = Table(world)
    seats = []
    for player, kind in enumerate(kinds, start=1):
        world.join(player, PlayerKind.BOT)
        seats.append((Seat(table, player, world.goal), kind))

    def run(seat: Seat, kind: str) -> None:
        why = "stopped"
        try:
            KINDS[kind](seat, seed * 10 + seat.player)
        except TableClosed:
            return
        except Exception as error:  # a bot's own failure ends its game, not the series
            why = f"failed: {error!r}"
        seat.leave(why)

    threads = [threading.Thread(target=run, args=pair, daemon=True) for pair in seats]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winner = kinds[table.winner - 1] if table.winner is not None else None
    return Outcome(winner, table.actions)
