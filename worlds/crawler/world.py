"""The crawler world: RULES §2 played by several adventurers over the protocol.

Every rule of a turn comes from :mod:`.grid`, the same code the single-player
:class:`~.state.State` uses; this module adds what several players need
(RULES §2 "Several players" and the choices documented in
``docs/worlds/crawler.md``):

* Levels are shared. Level 1 is where everyone joins; a level is loaded from
  its file when the first adventurer reaches it and keeps its state after that.
  An adventurer appears on the level's start square, or if that is not open
  and free, on the nearest square that is (fewest steps, then the upper row,
  then the left column). A door whose next level has no such square stays shut
  and acts as a pillar.
* A round is one call of :meth:`CrawlerWorld.resolve`. Each adventurer takes
  their turn in the order of the actions (join order): their step, then the
  monsters of their level scan from their square (each monster moves at most
  once per round), then every adventurer on that level whose square a monster
  now holds dies, then their amulet, if any, doubles the level for everyone on
  it (positions keep their coordinates; the copies hold no one), unless the
  level would pass the world's ``grown_cells`` limit (:mod:`worlds.limits`;
  4 million squares for a client's game, where RULES §2 allows 2³¹): then the
  amulet crumbles and the ground stays as it is, as at the rules' own limit.
* ``MOVE`` and ``STAY`` are turns and count a move; ``PICKUP`` is not: treasure
  is taken on entry, so there is never anything to pick up (``FAIL``), and
  nothing else happens.
* Adventurers block one another; monsters see through them and take their
  squares like any other.

The seed is not used: the levels fix where everyone starts, and nothing is random.
"""

from __future__ import annotations

from collections.abc import Sequence

from dungeon_of_doom.protocol.commands import Move, Pickup, Stay

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
    PlayerId,
    PlayerKind,
    PlayerStatus,
    Position,
    ResultEvent,
    Stayed,
    World,
    WorldError,
    WorldFull,
)
from ..limits import OPERATOR_LIMITS, Limits
from ..view import ByteRows, look_window
from . import text
from .dungeon import Dungeon
from .grid import Grid, Status
from .levelfile import DOOR, EXIT, MONSTER, OPEN, PILLAR, PLAYER, TREASURE

GOAL = 1
"""One treasure opens the exit."""
_TREASURE_BYTE = TREASURE.encode("ascii")


class _Adventurer:
    __slots__ = ("col", "kind", "level", "moves", "row", "treasure")

    def __init__(self, kind: PlayerKind, level: int, position: Position) -> None:
        self.kind = kind
        self.level = level
        self.row, self.col = position
        self.treasure = 0
        self.moves = 0

    @property
    def position(self) -> Position:
        return self.row, self.col


class CrawlerWorld(World):
    """A dungeon shared by its players; see the module docstring."""

    emits = frozenset(
        {Moved, Blocked, Stayed, NothingToPickUp, Joined, Left, Escaped, Died, Notice}
    )
    """The events this world reports (the server tells each as ``server/render.py`` says)."""

    allows_stay = True
    has_rounds = True
    help_notes = (
        "Tiles: - open, $ treasure, @ amulet, M monster, + pillar, ? door, ! exit.",
        "Treasure is taken as you step on it (PICKUP always answers FAIL).",
        "Monsters in a straight line of sight step toward you after every MOVE or STAY.",
        "In MAP you are o; others show as P or B. The exit opens once you hold a treasure.",
    )

    def __init__(self, dungeon: Dungeon, *, limits: Limits = OPERATOR_LIMITS) -> None:
        self.dungeon = dungeon
        self.max_area = limits.grown_cells
        """Squares a level may grow to by amulets; past it an amulet crumbles in vain."""
        self._grids: dict[int, Grid] = {}
        self._players: dict[PlayerId, _Adventurer] = {}  # in join order
        self._squares: dict[int, dict[Position, PlayerId]] = {}  # level -> who stands where
        self._acted_on: dict[PlayerId, int] = {}  # the level of each action of the last round
        self._winnable = self._treasure_from(0)  # a dungeon may be made without treasure

    @property
    def goal(self) -> int:
        return GOAL

    def grid(self, level: int) -> Grid:
        """Level ``level`` (from 0) as it is now, loaded from its file on first use."""
        grid = self._grids.get(level)
        if grid is None:
            grid = self._grids[level] = Grid.from_level(self.dungeon.levels[level])
            self._squares[level] = {}
        return grid

    def unwinnable(self) -> str | None:
        """A treasure opens the exit, and doors lead only down: a player holding none
        can still win while a treasure lies on its level or a deeper one (an amulet's
        copies of a level copy only what the level holds)."""
        players = self._players.values()
        if (
            not players
            or not self._winnable
            or any(me.treasure or self._treasure_from(me.level) for me in players)
        ):
            return None
        return (
            "nobody can win any more: no treasure is left where anyone still here can "
            "reach it, and one is needed to open the exit"
        )

    def _treasure_from(self, level: int) -> bool:
        """Whether a treasure lies on ``level`` or below (levels not loaded: in their file)."""
        levels = self.dungeon.levels
        for number in range(level, len(levels)):
            grid = self._grids.get(number)
            if _TREASURE_BYTE in (grid.cells if grid is not None else levels[number].tiles):
                return True
        return False

    def level_of(self, player: PlayerId) -> int | None:
        """The level (from 1) the player is on, or ``None`` if they are not in the world."""
        me = self._players.get(player)
        return None if me is None else me.level + 1

    # -- players ------------------------------------------------------------------

    def _arrival(self, level: int) -> Position | None:
        """Where an adventurer reaching ``level`` appears (module docstring), or ``None``."""
        grid = self.grid(level)
        taken = self._squares[level]
        rows, cols, cells = grid.rows, grid.cols, grid.cells
        open_tile = ord(OPEN)
        start_row, start_col = self.dungeon.levels[level].start
        for distance in range(rows + cols - 1):
            for row in range(max(0, start_row - distance), min(rows, start_row + distance + 1)):
                rest = distance - abs(row - start_row)
                for col in sorted({start_col - rest, start_col + rest}):
                    if (
                        0 <= col < cols
                        and cells[row * cols + col] == open_tile
                        and (row, col) not in taken
                    ):
                        return row, col
        return None

    def join(
        self, player: PlayerId, kind: PlayerKind = PlayerKind.HUMAN, *, at: Position | None = None
    ) -> list[Event]:
        """Place a player on level 1 as the module docstring says, or on ``at`` (for set-ups)."""
        if player in self._players:
            raise WorldError(f"player {player} is already in the world")
        if at is None:
            position = self._arrival(0)
        else:
            grid = self.grid(0)
            free = grid.inside(*at) and grid.tile(*at) == OPEN and at not in self._squares[0]
            position = at if free else None
        if position is None:
            raise WorldFull(f"there is no free open square {'there' if at else 'left'} on level 1")
        self._players[player] = _Adventurer(kind, 0, position)
        self._squares[0][position] = player
        return [Joined(player, position)]

    def _remove(self, player: PlayerId) -> _Adventurer:
        me = self._players.pop(player)
        squares = self._squares[me.level]
        if squares.get(me.position) == player:
            del squares[me.position]
        return me

    def leave(self, player: PlayerId) -> list[Event]:
        if player not in self._players:
            return []
        self._remove(player)
        return [Left(player)]

    def status(self, player: PlayerId) -> PlayerStatus | None:
        me = self._players.get(player)
        if me is None:
            return None
        return PlayerStatus(me.position, me.treasure, me.moves)

    def __contains__(self, player: object) -> bool:
        return player in self._players

    # -- rounds ---------------------------------------------------------------------

    def resolve(self, actions: Sequence[tuple[PlayerId, Action]]) -> list[Event]:
        if len({player for player, _ in actions}) != len(actions):
            raise WorldError("a player may act at most once per round")
        unknown = [p for p, _ in actions if p not in self._players]
        if unknown:
            raise WorldError(f"player {unknown[0]} is not in the world")
        events: list[Event] = []
        moved: dict[int, set[int]] = {}
        self._acted_on = {}
        for player, action in actions:
            me = self._players.get(player)
            if me is not None:
                self._acted_on[player] = me.level
            if me is None:
                # Caught by a monster earlier in this round: the result keeps the
                # one-result-per-action contract; the server has already said LOSE.
                events.append(Blocked(player, "you were caught before your turn"))
                continue
            if isinstance(action, Pickup):
                events.append(NothingToPickUp(player))
            elif isinstance(action, Stay):
                self._turn(player, me, 0, 0, moved, events)
            elif isinstance(action, Move):
                direction = action.direction
                if direction.is_diagonal:
                    raise WorldError("the crawler world allows only N, S, E and W")
                self._turn(player, me, direction.row_step, direction.column_step, moved, events)
            else:
                raise WorldError(f"unknown action {action!r}")
        return events

    def _turn(
        self,
        player: PlayerId,
        me: _Adventurer,
        d_row: int,
        d_col: int,
        moved: dict[int, set[int]],
        events: list[Event],
    ) -> None:
        me.moves += 1
        level = me.level
        grid = self.grid(level)
        squares = self._squares[level]
        origin = me.position
        target = (me.row + d_row, me.col + d_col)
        if (d_row, d_col) == (0, 0):
            status = Status.STAY
            events.append(Stayed(player))
        else:
            if self._door_shut(grid, level, target):
                status = Status.STAY
            else:
                status = grid.step(me.row, me.col, d_row, d_col, me.treasure, squares)
            if status is Status.STAY:
                events.append(Blocked(player, self._obstacle(grid, level, target, squares)))
                if grid.inside(*target) and grid.tile(*target) == EXIT:
                    events.append(Notice(player, text.EXIT_SEALED))
            else:
                del squares[origin]
                me.row, me.col = target
                events.append(Moved(player, origin, target))

        if status is Status.TREASURE:
            me.treasure += 1
            events += [
                Notice(player, text.FOUND_TREASURE),
                Notice(player, text.treasure_count(me.treasure)),
            ]
        elif status is Status.ESCAPE:
            del self._players[player]
            summary = f"{text.ESCAPED} {text.escaped_with(me.treasure, me.moves)}"
            events.append(Escaped(player, me.treasure, me.moves, summary))
            return
        elif status is Status.LEAVE:
            events.append(Notice(player, text.THROUGH_DOOR))
            if level + 1 == len(self.dungeon.levels):
                del self._players[player]
                events.append(Died(player, text.LAST_DOOR))
                return
            arrival = self._arrival(level + 1)
            assert arrival is not None, "checked by _door_shut"
            me.level = level + 1
            me.row, me.col = arrival
            self._squares[me.level][arrival] = player
            events.append(Notice(player, text.level(me.level + 1)))
            return
        if status is not Status.STAY:
            squares[target] = player

        grid.hunt(me.row, me.col, moved.setdefault(level, set()))
        for other, them in list(self._players.items()):
            if them.level == level and grid.has_monster(them.row, them.col):
                self._remove(other)
                events.append(Died(other, text.DIED))
        if player not in self._players or status is not Status.AMULET:
            return
        old_cols = grid.cols
        if grid.double(self.max_area):
            moved[level] = grid.moved_after_doubling(moved[level], old_cols)
            events += [
                Notice(player, text.AMULET_CRUMBLES),
                Notice(player, text.GROUND_RUMBLES),
            ]
            events += [
                Notice(other, text.GROUND_RUMBLES) for other in squares.values() if other != player
            ]
        else:
            events += [Notice(player, text.AMULET_CRUMBLES), Notice(player, text.CANNOT_GROW)]

    def _door_shut(self, grid: Grid, level: int, target: Position) -> bool:
        """A door to a level with no room to arrive on acts as a pillar."""
        return (
            grid.inside(*target)
            and grid.tile(*target) == DOOR
            and level + 1 < len(self.dungeon.levels)
            and self._arrival(level + 1) is None
        )

    def _obstacle(
        self, grid: Grid, level: int, target: Position, squares: dict[Position, PlayerId]
    ) -> str:
        if not grid.inside(*target):
            return "the edge of the map"
        if target in squares:
            return "another adventurer"
        return {
            PILLAR: "a pillar",
            MONSTER: "a monster",
            EXIT: "the exit, which needs a treasure",
            DOOR: "the door: there is no room beyond it",
        }[grid.tile(*target)]

    # -- views ------------------------------------------------------------------------

    def witnesses(self, viewer: PlayerId, event: ResultEvent) -> bool:
        """As on a flat map, but only on the level where the action was taken.

        An adventurer who went through a door was seen on the level they left;
        ``Moved`` squares are on that level too.
        """
        me = self._players.get(viewer)
        level = self._acted_on.get(event.player)
        if me is None or level is None or me.level != level:
            return False
        if not isinstance(event, Moved):
            actor = self._players.get(event.player)
            if actor is None or actor.level != level:
                return False
        return super().witnesses(viewer, event)

    def _marks(self, level: int, viewer: PlayerId | None) -> dict[Position, str]:
        return {
            position: PLAYER if player == viewer else self._players[player].kind.value
            for position, player in self._squares.get(level, {}).items()
        }

    def look(self, player: PlayerId) -> tuple[str, ...]:
        me = self._players[player]
        grid = self.grid(me.level)
        rows = ByteRows(grid.cells, grid.cols)
        return look_window(rows, me.row, me.col, self._marks(me.level, None))

    def levels(self) -> tuple[tuple[str, ...], ...]:
        """Every level opened so far (level 1 always), as a spectator sees it."""
        opened = max(self._grids, default=0) + 1
        return tuple(
            tuple(self.grid(level).text_rows(self._marks(level, None))) for level in range(opened)
        )

    def render(self, viewer: PlayerId | None = None) -> tuple[str, ...]:
        """The viewer's level (level 1 for a spectator): ``o`` the viewer, ``P``/``B`` others."""
        me = self._players.get(viewer) if viewer is not None else None
        level = 0 if me is None else me.level
        return tuple(self.grid(level).text_rows(self._marks(level, viewer)))
