"""The battle rules: the multiplayer Dungeon of Dooom of 2013 (RULES-battle, R13).

Players take turns in join order. A turn has 6 action points, one less for each of
sword, armour and lantern held (counted when the turn starts): a move costs 1 (a
blocked move nothing), a pickup 1, an attack every point left. A health potion adds
a hit point and ends the turn. Players start with 3 hit points; an attack on the
player next door (N, E, S or W) hits three times in four, for 1 + sword − armour.
At 0 hit points a player dies: items are lost, gold falls on the square (added to a
pile already there, replacing any other item; lost on an exit). Leaving the game is
death too. The first player to stand on an exit with the gold the map asks for wins,
and the game is over for everyone.

Every random draw (where players appear, whether blows land) comes from one
``random.Random(seed)``, so the same calls give the same battle.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from dungeon_of_doom.protocol.commands import Attack, EndTurn, Move, Pickup
from dungeon_of_doom.protocol.direction import Direction

from ..api import (
    Action,
    Blocked,
    Died,
    Escaped,
    Event,
    Joined,
    Left,
    Moved,
    NothingToPickUp,
    Notice,
    PickedUp,
    PlayerId,
    PlayerKind,
    PlayerStatus,
    Position,
    WorldError,
    blocked,
)
from ..classic.mapfile import EXIT, FLOOR, GOLD, WALL, ClassicMap
from ..squares import OpenSquares, free_square
from ..turns import (
    Attacked,
    Defeated,
    HitPointsChanged,
    PickupRefused,
    TurnBasedWorld,
    TurnEnded,
    TurnPassed,
    TurnStarted,
)

START_HP: Final = 3
BASE_AP: Final = 6
HIT_CHANCE: Final = 0.75
SWORD: Final = "S"
ARMOUR: Final = "A"
LANTERN: Final = "L"
HEALTH: Final = "H"
KEPT_ITEMS: Final = frozenset({SWORD, ARMOUR, LANTERN})
"""Items a player carries (each costs an action point a turn); a potion is drunk at once."""
ITEM_NAMES: Final = {SWORD: "sword", ARMOUR: "armour", LANTERN: "lantern", HEALTH: "health potion"}
SIGHT: Final = 2
LANTERN_SIGHT: Final = 3
HIDDEN: Final = "X"
OFF_MAP: Final = "#"
SELF: Final = "@"


@dataclass(slots=True)
class Fighter:
    """One living player's state."""

    position: Position
    kind: PlayerKind
    hp: int = START_HP
    gold: int = 0
    moves: int = 0
    items: set[str] = field(default_factory=set)

    @property
    def sight(self) -> int:
        return LANTERN_SIGHT if LANTERN in self.items else SIGHT


class BattleWorld(TurnBasedWorld):
    """A battle on one classic map; see the module docstring."""

    emits = frozenset(
        {
            Moved,
            Blocked,
            PickedUp,
            NothingToPickUp,
            Joined,
            Left,
            Escaped,
            Died,
            Notice,
            Attacked,
            TurnPassed,
            PickupRefused,
            TurnStarted,
            TurnEnded,
            HitPointsChanged,
            Defeated,
        }
    )
    """The events this world reports (the server tells each as ``server/render.py`` says)."""

    help_notes = (
        "Tiles: . floor, # wall, G gold, E exit, L lantern, S sword, A armour, H health potion.",
        "Others show as P (people) or B (bots); X is out of sight; in MAP you are @.",
        "Turns in join order. A turn has 6 AP, 1 less for each of sword, armour, lantern held.",
        "MOVE costs 1 AP (0 if blocked), PICKUP 1, ATTACK all AP left; H gives +1 HP, ends turn.",
        "You start with 3 HP. ATTACK hits 75% of the time for 1 + sword - armour.",
        "At 0 HP you die and your gold falls where you stood. Leaving the game is death.",
        "The lantern shows 7x7 in LOOK. The first on an exit with the gold wins; all others lose.",
    )

    def __init__(self, dungeon: ClassicMap, *, seed: int = 0) -> None:
        self.map = dungeon
        # One byte a square, row after row (issue 19: a list per row and a tuple per
        # open square held about 400 MiB of a 2000 x 2000 map).
        self._tiles = bytearray("".join(dungeon.rows), "ascii")
        self._height = dungeon.height
        self._width = dungeon.width
        self._rng = random.Random(seed)
        self._open = OpenSquares(self._tiles, self._width, WALL)
        self._piles: dict[Position, int] = {}  # gold squares holding more than one coin
        self._fighters: dict[PlayerId, Fighter] = {}
        self._order: list[PlayerId] = []  # everyone who ever joined, in join order
        self._at: dict[Position, PlayerId] = {}
        self._turn: PlayerId | None = None
        self._ap = 0
        self.winner: PlayerId | None = None
        self._gold_left = self._tiles.count(ord(GOLD))  # on the floor, piles counted whole

    # -- what the server asks -------------------------------------------------------

    @property
    def goal(self) -> int:
        return self.map.goal

    @property
    def name(self) -> str:
        return self.map.name

    @property
    def turn(self) -> PlayerId | None:
        return self._turn

    @property
    def over(self) -> bool:
        """Someone has won; nobody can act any more."""
        return self.winner is not None

    def unwinnable(self) -> str | None:
        """Gold changes hands when a player dies, but gold that falls on an exit is
        lost: once the gold on the floor and carried falls short of the goal, nobody
        can win. (After a win the others are already out: :class:`Defeated`.)"""
        if self.over or not self._fighters:
            return None
        goal = self.map.goal
        total = self._gold_left + sum(fighter.gold for fighter in self._fighters.values())
        if total >= goal:
            return None
        return (
            f"nobody can win any more: {total} gold is left in the battle, on the floor "
            f"and carried, and {goal} is needed to escape"
        )

    def action_points(self, player: PlayerId) -> int:
        return self._ap if player == self._turn else 0

    def details(self, player: PlayerId) -> dict[str, int]:
        """Hit points and action points (a spectator's ``BOARD`` says them)."""
        if player not in self._fighters:
            return {}
        return {"hp": self.hit_points(player), "ap": self.action_points(player)}

    def hit_points(self, player: PlayerId) -> int:
        fighter = self._fighters.get(player)
        return fighter.hp if fighter is not None else 0

    def items(self, player: PlayerId) -> frozenset[str]:
        """The sword, armour and lantern ``player`` holds."""
        fighter = self._fighters.get(player)
        return frozenset(fighter.items) if fighter is not None else frozenset()

    def tile(self, position: Position) -> str:
        return chr(self._tiles[position[0] * self._width + position[1]])

    def gold_at(self, position: Position) -> int:
        """Coins lying on ``position``."""
        if self.tile(position) != GOLD:
            return 0
        return self._piles.get(position, 1)

    def status(self, player: PlayerId) -> PlayerStatus | None:
        fighter = self._fighters.get(player)
        if fighter is None:
            return None
        return PlayerStatus(fighter.position, fighter.gold, fighter.moves)

    def __contains__(self, player: object) -> bool:
        return player in self._fighters

    # -- joining and leaving ----------------------------------------------------------

    def join(
        self, player: PlayerId, kind: PlayerKind = PlayerKind.HUMAN, *, at: Position | None = None
    ) -> list[Event]:
        """Place a player on a random free square (or ``at``); the first gets the turn."""
        if self.over:
            raise WorldError("this battle is over; wait for the next one")
        if player in self._fighters or player in self._order:
            raise WorldError(f"player {player} has already joined")
        if at is None:
            position = self._free_square()
        elif (
            not (0 <= at[0] < self._height and 0 <= at[1] < self._width)
            or at in self._at
            or self.tile(at) == WALL
        ):
            raise WorldError(f"cannot place a player on {at}")
        else:
            position = at
        self._fighters[player] = Fighter(position, kind)
        self._order.append(player)
        self._at[position] = player
        events: list[Event] = [Joined(player, position)]
        if self._turn is None:
            events.append(self._start_turn(player))
        return events

    def _free_square(self) -> Position:
        return free_square(self._open, self._rng, self._at)

    def leave(self, player: PlayerId) -> list[Event]:
        """A player who leaves dies (gold dropped); if it was their turn, the next one begins."""
        fighter = self._fighters.get(player)
        if fighter is None:
            return []
        events: list[Event] = [Left(player)]
        events += self._remove(player, fighter)
        if self._turn == player:
            events += self._pass_turn(player)
        return events

    # -- actions --------------------------------------------------------------------

    def resolve(self, actions: Sequence[tuple[PlayerId, Action]]) -> list[Event]:
        events: list[Event] = []
        for player, action in actions:
            if self.over:
                raise WorldError("the game is over")
            fighter = self._fighters.get(player)
            if fighter is None:
                raise WorldError(f"player {player} is not in the battle")
            if player != self._turn:
                raise WorldError("it is not your turn")
            if isinstance(action, Move):
                self._move(player, fighter, action.direction, events)
            elif isinstance(action, Pickup):
                self._pickup(player, fighter, events)
            elif isinstance(action, Attack):
                self._attack(player, fighter, action.direction, events)
            elif isinstance(action, EndTurn):
                events.append(TurnPassed(player))
                events += self._pass_turn(player)
                continue
            else:
                raise WorldError(f"{action.verb} is not an action in the battle world")
            if self.over or self._turn != player:
                continue
            if self.tile(fighter.position) == EXIT and fighter.gold >= self.map.goal:
                events += self._win(player, fighter)
            elif self._ap <= 0:
                events += self._pass_turn(player)
        return events

    def time_out(self, player: PlayerId) -> list[Event]:
        if self.over or player != self._turn:
            return []
        return self._pass_turn(player, missed=True)

    def _move(
        self, player: PlayerId, fighter: Fighter, direction: Direction, events: list[Event]
    ) -> None:
        if direction.is_diagonal:
            raise WorldError("the battle world allows only N, S, E and W")
        origin = fighter.position
        row, column = origin[0] + direction.row_step, origin[1] + direction.column_step
        target = (row, column)
        if not (0 <= row < self._height and 0 <= column < self._width):
            events.append(blocked(player, "the edge of the map"))
        elif self.tile(target) == WALL:
            events.append(blocked(player, "a wall"))
        elif target in self._at:
            events.append(blocked(player, "another player"))
        else:
            del self._at[origin]
            self._at[target] = player
            fighter.position = target
            fighter.moves += 1
            self._ap -= 1
            events.append(Moved(player, origin, target))

    def _pickup(self, player: PlayerId, fighter: Fighter, events: list[Event]) -> None:
        square = fighter.position
        tile = self.tile(square)
        if tile == GOLD:
            coins = self._piles.pop(square, 1)
            fighter.gold += coins
            self._gold_left -= coins
            events.append(PickedUp(player, GOLD, fighter.gold))
        elif tile in KEPT_ITEMS:
            if tile in fighter.items:
                events.append(PickupRefused(player, f"you already have a {ITEM_NAMES[tile]}"))
                return
            fighter.items.add(tile)
            events.append(PickedUp(player, tile, fighter.gold, is_gold=False))
            carried = ", ".join(ITEM_NAMES[item] for item in sorted(fighter.items))
            events.append(Notice(player, f"You now carry: {carried}."))
        elif tile == HEALTH:
            fighter.hp += 1
            events.append(PickedUp(player, tile, fighter.gold, is_gold=False))
            events.append(HitPointsChanged(player, 1, fighter.hp))
            self._ap = 1  # drinking ends the turn, whatever was left
        else:
            events.append(NothingToPickUp(player))
            return
        self._tiles[square[0] * self._width + square[1]] = ord(FLOOR)
        fighter.moves += 1
        self._ap -= 1

    def _attack(
        self, player: PlayerId, fighter: Fighter, direction: Direction, events: list[Event]
    ) -> None:
        if direction.is_diagonal:
            raise WorldError("an attack goes N, S, E or W")
        row, column = fighter.position
        victim = self._at.get((row + direction.row_step, column + direction.column_step))
        if victim is None:
            events.append(Attacked(player, None, False, 0))
            events.append(Notice(player, f"there is no one to attack to the {direction.name}"))
            return
        fighter.moves += 1
        self._ap = 0  # an attack takes every action point left (R13)
        target = self._fighters[victim]
        if self._rng.random() >= HIT_CHANCE:
            events.append(Attacked(player, victim, False, 0))
            return
        damage = max(0, 1 + (SWORD in fighter.items) - (ARMOUR in target.items))
        target.hp -= damage
        events.append(Attacked(player, victim, True, damage))
        events.append(HitPointsChanged(victim, -damage, target.hp))
        if target.hp <= 0:
            events.append(Died(victim, "You were slain: your hit points reached 0."))
            events += self._remove(victim, target)

    # -- turns, death and victory -------------------------------------------------------

    def _start_turn(self, player: PlayerId) -> TurnStarted:
        fighter = self._fighters[player]
        self._turn = player
        self._ap = BASE_AP - len(fighter.items)
        return TurnStarted(player, self._ap)

    def _pass_turn(self, player: PlayerId, *, missed: bool = False) -> list[Event]:
        """End ``player``'s turn (if they are still here) and give the next living player theirs."""
        events: list[Event] = []
        if player in self._fighters:
            events.append(TurnEnded(player, missed))
        self._turn = None
        self._ap = 0
        following = self._next_after(player)
        if following is not None:
            events.append(self._start_turn(following))
        return events

    def _next_after(self, player: PlayerId) -> PlayerId | None:
        order = self._order
        start = order.index(player)
        for offset in range(1, len(order) + 1):
            candidate = order[(start + offset) % len(order)]
            if candidate in self._fighters:
                return candidate
        return None

    def _remove(self, player: PlayerId, fighter: Fighter) -> list[Event]:
        """Take a dead or departed player off the map; their gold falls where they stood."""
        del self._fighters[player]
        del self._at[fighter.position]
        if fighter.gold <= 0:
            return []
        square = fighter.position
        tile = self.tile(square)
        if tile == EXIT:
            return [Notice(None, f"{fighter.gold} gold fell on an exit and was lost")]
        pile = fighter.gold + (self._piles.get(square, 1) if tile == GOLD else 0)
        self._gold_left += fighter.gold
        self._tiles[square[0] * self._width + square[1]] = ord(GOLD)
        if pile > 1:
            self._piles[square] = pile
        else:
            self._piles.pop(square, None)
        row, column = square
        return [
            Notice(None, f"{fighter.gold} gold fell to the floor at row {row}, column {column}")
        ]

    def _win(self, player: PlayerId, fighter: Fighter) -> list[Event]:
        self.winner = player
        self._turn = None
        self._ap = 0
        events: list[Event] = [
            Escaped(
                player,
                fighter.gold,
                fighter.moves,
                f"You won the battle: you escaped with {fighter.gold} gold "
                f"in {fighter.moves} moves.",
            )
        ]
        for other in self._order:
            if other != player and other in self._fighters:
                events.append(Defeated(other, player))
        self._fighters.clear()
        self._at.clear()
        return events

    # -- views ----------------------------------------------------------------------------

    def sees(self, player: PlayerId, square: Position) -> bool:
        """Whether ``square`` is among the visible (non-``X``) cells of ``player``'s ``LOOK``."""
        fighter = self._fighters.get(player)
        if fighter is None:
            return False
        reach = fighter.sight
        dr, dc = abs(square[0] - fighter.position[0]), abs(square[1] - fighter.position[1])
        return dr <= reach and dc <= reach and dr + dc <= reach + 1

    def look(self, player: PlayerId) -> tuple[str, ...]:
        """The diamond around the player: 5×5, or 7×7 with a lantern (RULES-battle §5)."""
        fighter = self._fighters[player]
        reach = fighter.sight
        row, column = fighter.position
        tiles, width, at, fighters = self._tiles, self._width, self._at, self._fighters
        rows = []
        for dr in range(-reach, reach + 1):
            r = row + dr
            line = []
            for dc in range(-reach, reach + 1):
                c = column + dc
                if abs(dr) + abs(dc) > reach + 1:
                    line.append(HIDDEN)
                elif not (0 <= r < self._height and 0 <= c < self._width):
                    line.append(OFF_MAP)
                elif (dr or dc) and (r, c) in at:
                    line.append(fighters[at[(r, c)]].kind.value)
                else:
                    line.append(chr(tiles[r * width + c]))
            rows.append("".join(line))
        return tuple(rows)

    def render(self, viewer: PlayerId | None = None) -> tuple[str, ...]:
        """The whole map. A spectator sees every player; a player sees only the map and
        themselves (``@``): others are found with ``LOOK``, which is what the lantern is for."""
        text, width = self._tiles.decode("ascii"), self._width
        rows = [list(text[start : start + width]) for start in range(0, len(text), width)]
        if viewer is None:
            for (r, c), player in self._at.items():
                rows[r][c] = self._fighters[player].kind.value
        else:
            me = self._fighters.get(viewer)
            if me is not None:
                rows[me.position[0]][me.position[1]] = SELF
        return tuple("".join(row) for row in rows)
