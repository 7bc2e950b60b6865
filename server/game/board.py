"""What a spectator with the ``board`` capability sees: every level, and who is where.

``VIEW`` draws the map as text, where every player is the same ``P``; a viewer that
draws the board needs to know which square is whose, on which level, with what gold.
A :class:`Scene` is that, built only from the world API (:meth:`~worlds.api.World.levels`,
:meth:`~worlds.api.World.status`, :meth:`~worlds.api.World.level_of`,
:meth:`~worlds.api.World.details`), so it serves every world plugin. The live game
pushes it as ``LEVEL`` and ``BOARD`` lines; the web page's replays get the same as JSON
(:meth:`Scene.as_json`), so live and replayed games are drawn from the same facts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dungeon_of_doom.protocol.replies import Board, LevelView, Push
from dungeon_of_doom.worlds.api import PlayerId, World

__all__ = ["Scene", "Seat", "player_line", "scene_of"]


@dataclass(frozen=True, slots=True)
class Seat:
    """One player on the board: where (level from 1, row, column), gold, moves, and
    the world's other numbers (``hp``, ``ap``, ``health``)."""

    player: PlayerId
    name: str
    level: int
    row: int
    col: int
    gold: int
    moves: int
    details: tuple[tuple[str, int], ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.player,
            "name": self.name,
            "level": self.level,
            "row": self.row,
            "col": self.col,
            "gold": self.gold,
            "moves": self.moves,
            **dict(self.details),
        }


def player_line(seat: Seat) -> str:
    """The ``BOARD`` line of ``seat``: ``<name>: level=1 row=2 col=3 gold=0 moves=4 hp=3``."""
    extra = "".join(f" {key}={value}" for key, value in seat.details)
    return (
        f"{seat.name}: level={seat.level} row={seat.row} col={seat.col} "
        f"gold={seat.gold} moves={seat.moves}{extra}"
    )


@dataclass(frozen=True, slots=True)
class Scene:
    """Every level as a spectator sees it (level 1 first), a square's width in
    characters, and every player in the world."""

    levels: tuple[tuple[str, ...], ...]
    cell: int
    seats: tuple[Seat, ...]

    def pushes(self, since: Scene | None = None, *, max_bytes: int | None = None) -> list[Push]:
        """The ``LEVEL`` lines of levels 2 and on (those that changed ``since`` a scene
        already sent; none larger than ``max_bytes``, the server's ``max_map_bytes``),
        then the ``BOARD`` (``VIEW`` is level 1)."""
        before = since.levels if since is not None else ()
        lines: list[Push] = [
            LevelView(number, rows)
            for number, rows in enumerate(self.levels[1:], start=2)
            if rows
            and rows[0]
            and (number > len(before) or before[number - 1] != rows)
            and (max_bytes is None or len(rows) * (len(rows[0]) + 1) <= max_bytes)
        ]
        lines.append(Board(self.cell, tuple(player_line(seat) for seat in self.seats)))
        return lines

    def as_json(self) -> dict[str, Any]:
        return {
            "cell": self.cell,
            "levels": [list(rows) for rows in self.levels],
            "players": [seat.as_json() for seat in self.seats],
        }


def scene_of(world: World, names: Mapping[PlayerId, str]) -> Scene:
    """The scene of ``world`` whose players are ``names`` (id to the name shown); a
    player no longer in the world is left out."""
    seats = []
    for player, name in names.items():
        status = world.status(player)
        if status is None:
            continue
        details = world.details(player)
        seats.append(
            Seat(
                player,
                name,
                world.level_of(player) or 1,
                status.position[0],
                status.position[1],
                status.gold,
                status.moves,
                tuple(sorted(details.items())),
            )
        )
    return Scene(world.levels(), max(1, world.cell_width), tuple(seats))
