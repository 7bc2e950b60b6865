"""``battle``: a bot for the battle world that hunts with the lantern and fights when it pays.

Run it as ``python -m bots.battle --host H --port P`` (or ``dod-bot-battle``). It asks
for events (``EXTEND events``) so that it hears ``STARTTURN``, and plays each of its
turns action by action while ``APGET`` says it has points left. Each action is chosen
by :class:`BattleBrain` from what ``LOOK`` shows and what it remembers
(:mod:`bots.memory`):

1. with the gold the map asks for and an exit known, it walks out (a win ends the
   game for everyone, so nothing beats it);
2. it drinks a potion it stands on when hurt, and picks up gold, and the lantern,
   sword and armour (the lantern first: it widens ``LOOK`` to 7×7, to hunt by);
3. with another player next to it, it attacks when the odds are with it (at least
   2 hit points, or armour) and otherwise runs to the free square farthest from
   every player it sees; after three blows that landed and did not kill (the rival
   wears armour, and without a sword a blow does nothing) it fights no more until
   it holds a sword, and goes for one;
4. it hunts the nearest player it sees while the odds are with it: a kill drops
   that player's gold and removes a rival;
5. otherwise it walks to the nearest lantern it knows of, then the nearest gold (while
   it holds less than the map asks for), a potion when hurt, and the nearest
   unexplored square; with nowhere to go it ends its turn.

Blocked moves cost nothing in the battle world, so after three in one turn it ends
the turn rather than trying forever. The same ``--seed`` on the same game makes the
same choices. At ``--max-moves`` it leaves when its next turn begins, never on another
player's turn, so that the same tournament gives the same games.
"""

from __future__ import annotations

import contextlib
import random
import sys
from dataclasses import dataclass, field
from typing import Final, Protocol

from clients import ClientTimeout, CommandError, Direction, Grid, PickupResult
from protocol.replies import TurnBegins

from .cli import Bot, bot_main
from .memory import FOUR_WAYS, Memory

__all__ = ["Action", "BattleBrain", "TurnClient", "main", "play", "play_turn"]

GOLD: Final = "G"
EXIT: Final = "E"
FLOOR: Final = "."
HEALTH: Final = "H"
LANTERN: Final = "L"
SWORD: Final = "S"
ARMOUR: Final = "A"
KEPT: Final = (LANTERN, SWORD, ARMOUR)
PLAYERS: Final = "PB"
HURT: Final = 2
"""At or below this many hit points a potion is worth a turn."""
MAX_BLOCKED: Final = 3


class TurnClient(Protocol):
    """What the bot needs of a connection: the client library's :class:`clients.Client`."""

    @property
    def goal(self) -> int | None: ...
    @property
    def gold(self) -> int: ...

    def look(self) -> Grid: ...
    def move(self, direction: Direction) -> bool: ...
    def pickup(self) -> PickupResult: ...
    def attack(self, direction: Direction) -> bool: ...
    def end_turn(self) -> None: ...
    def action_points(self) -> int: ...
    def hit_points(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Action:
    """What the brain wants next: ``verb`` is ``MOVE``, ``PICKUP``, ``ATTACK`` or ``ENDTURN``."""

    verb: str
    direction: Direction | None = None


_PICKUP: Final = Action("PICKUP")
_END: Final = Action("ENDTURN")


@dataclass(slots=True)
class BattleBrain:
    """The bot's memory and judgement; see the module docstring."""

    rng: random.Random
    memory: Memory = field(default_factory=Memory)
    items: set[str] = field(default_factory=set)
    blocked: int = 0
    landed: int = 0
    """Blows landed on the rival next to us since one was last beside us."""
    armoured: bool = False
    """A rival shrugged off three blows: fight no more until we hold a sword."""

    def choose(self, view: Grid, hp: int, gold: int, goal: int) -> Action:
        """The next action, given a fresh ``LOOK`` and the bot's hit points and gold."""
        memory = self.memory
        memory.see(view)
        centre_row, centre_column = view.centre
        rivals = [
            (r - centre_row, c - centre_column)
            for (r, c), tile in view.cells()
            if tile in PLAYERS and (r, c) != view.centre
        ]
        here = memory.here()
        bold = hp >= 2 or ARMOUR in self.items
        if self.blocked >= MAX_BLOCKED:
            return _END
        if gold >= goal:
            path = memory.route_to(EXIT)
            if here == EXIT and gold >= goal:
                path = memory.open_neighbours()[:1]  # step off and back on
            if path:
                return Action("MOVE", path[0])
        if here == HEALTH and hp <= HURT + 1:
            return _PICKUP
        if here == GOLD or (here in KEPT and here not in self.items):
            return _PICKUP
        beside = [d for d in FOUR_WAYS if (d.row_step, d.column_step) in rivals]
        if not beside:
            self.landed = 0
        # Three blows that did not kill: the rival wears armour, and without a sword
        # our blows do nothing (1 + 0 - 1): fighting on would never end.
        if self.landed >= 3:
            self.armoured = True
        futile = self.armoured and SWORD not in self.items
        if beside and not futile:
            if bold:
                return Action("ATTACK", beside[0])
            away = self._escape(rivals)
            if away is not None:
                return Action("MOVE", away)
        if rivals and bold and not futile:
            path = memory.route(lambda square, _: self._next_to_rival(square, rivals))
            if path:
                return Action("MOVE", path[0])
        wanted = [] if LANTERN in self.items else [LANTERN]
        if futile:
            wanted.insert(0, SWORD)
        if gold < goal:
            # Not once it holds enough: where picked gold stays on the map (mbk's
            # server), the nearest gold would keep it from ever finding the exit.
            wanted += [GOLD]
        if hp <= HURT:
            wanted.insert(0, HEALTH)
        for tiles in wanted:
            path = memory.route_to(tiles)
            if path:
                return Action("MOVE", path[0])
        path = memory.route_to_frontier()
        if path:
            return Action("MOVE", path[0])
        return _END

    def _next_to_rival(self, square: tuple[int, int], rivals: list[tuple[int, int]]) -> bool:
        row, column = self.memory.position
        return any(
            abs(square[0] - (row + dr)) + abs(square[1] - (column + dc)) == 1 for dr, dc in rivals
        )

    def _escape(self, rivals: list[tuple[int, int]]) -> Direction | None:
        """The open neighbour farthest from every rival in sight (ties: the seeded choice)."""
        options = []
        for direction in self.memory.open_neighbours():
            dr, dc = direction.row_step, direction.column_step
            if (dr, dc) in rivals:
                continue
            # Farthest by steps, then in a straight line (away, rather than round them).
            distance = min(
                (abs(r - dr) + abs(c - dc), (r - dr) ** 2 + (c - dc) ** 2) for r, c in rivals
            )
            options.append((distance, direction))
        if not options:
            return None
        best = max(distance for distance, _ in options)
        return self.rng.choice([d for distance, d in options if distance == best])

    def done(self, action: Action, succeeded: bool) -> None:
        """Remember what the action changed."""
        memory = self.memory
        if action.verb == "MOVE" and action.direction is not None:
            if succeeded:
                memory.moved(action.direction)
            else:
                self.blocked += 1  # a player in the way: walls are known from LOOK
        elif action.verb == "PICKUP":
            here = memory.here()
            if here in KEPT:
                self.items.add(here)  # taken now, or refused because we hold one already
            memory.set(memory.position, FLOOR)

    def new_turn(self) -> None:
        self.blocked = 0


ASSUMED_HIT_POINTS: Final = 3
"""The hit points the bot plays by where ``HPGET`` is refused (zss's 2015 server has no
such command): a fighter's at the start of a game."""


def _hit_points(client: TurnClient) -> int:
    try:
        return client.hit_points()
    except CommandError:
        return ASSUMED_HIT_POINTS


def play_turn(client: TurnClient, brain: BattleBrain) -> None:
    """Play one turn: actions while ``APGET`` says there are points left."""
    brain.new_turn()
    while client.action_points() > 0:
        if not act(client, brain):
            return


def act(client: TurnClient, brain: BattleBrain) -> bool:
    """Take one action the brain chooses; ``False`` once it chose to end the turn."""
    goal = client.goal or 0
    action = brain.choose(client.look(), _hit_points(client), client.gold, goal)
    if action.verb == "MOVE":
        brain.done(action, client.move(action.direction))  # type: ignore[arg-type]
    elif action.verb == "PICKUP":
        brain.done(action, bool(client.pickup()))
    elif action.verb == "ATTACK":
        brain.landed += client.attack(action.direction)  # type: ignore[arg-type]
    else:
        client.end_turn()
        return False
    return True


def play(bot: Bot) -> str | None:
    """Play turn after turn until the game ends (the runner reads the final line)."""
    client = bot.client
    try:
        turned_on: frozenset[str] | None = client.extend("events")
    except CommandError:
        # A server of another era (zss, ch739) has no EXTEND: its own dialect pushes
        # STARTTURN unasked, and APGET says when a turn is ours.
        turned_on = None
    if turned_on is not None and "events" not in turned_on:
        return "the server does not push STARTTURN"
    brain = BattleBrain(bot.rng)
    try:
        client.action_points()
    except CommandError:
        # No APGET (ch739): act on; an action out of turn is refused "not your turn",
        # and the client sends it again when the server pushes STARTTURN.
        while bot.may_move():
            with contextlib.suppress(CommandError):
                if not act(client, brain):
                    brain.new_turn()
        return "move limit reached"
    while True:
        if client.action_points() > 0:
            if not bot.may_move():
                # It leaves on its own turn: a player who leaves on someone else's turn
                # vanishes from their view at a moment set by the speed of the two
                # connections, and the same tournament would not give the same game.
                return "move limit reached"
            # CommandError: the turn's time ran out under us; wait for the next one.
            with contextlib.suppress(CommandError):
                play_turn(client, brain)
            continue
        with contextlib.suppress(ClientTimeout):  # others are slow: ask again
            while not isinstance(client.next_event(), TurnBegins):
                pass


main = bot_main(
    "battle",
    play,
    description="A battle-world bot that hunts with the lantern, attacks when the odds "
    "are with it, runs when they are not, and walks out with the gold.",
    worlds=("battle",),
)

if __name__ == "__main__":
    sys.exit(main())
