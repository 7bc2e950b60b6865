"""Best results per map: the table of solo worlds, where a win is not rated.

A game of one named player (crawler, baddies, knight, a classic map alone) is recorded
but moves no rating (:attr:`records.model.GameRecord.rated`). Its players' wins are
ranked here, per world and map, as puzzle sites keep them: the least starting health
first where the map spec sets one (``health=N``, the knight world's; a spec without it
starts with the least health that can win, so it ranks first), then the fewest moves,
then the most gold, then who did it first. Each name is listed once per map, with its
best of each.

Only reads; one grouped query per call, so a table costs as many rows as there are
(map, name) pairs, never as many as games.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePath
from typing import Any, Final

import sqlalchemy as sa

from .schema import games, players
from .store import Store

__all__ = ["Best", "MapBests", "bests", "player_bests", "split_map"]

WIN: Final = "win"
_HEALTH = re.compile(r"(?:^|,)health=(\d+)(?=,|$)")


@dataclass(frozen=True, slots=True)
class Best:
    """One name's best on one map: ``rank`` within the map (from 1)."""

    rank: int
    name: str
    moves: int
    gold: int
    health: int | None
    wins: int
    first_at: datetime | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "name": self.name,
            "moves": self.moves,
            "gold": self.gold,
            "health": self.health,
            "wins": self.wins,
            "ended_at": None if self.first_at is None else self.first_at.isoformat(),
        }


@dataclass(frozen=True, slots=True)
class MapBests:
    """The best results of one map of one world, best first."""

    world: str
    map: str
    results: tuple[Best, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "world": self.world,
            "map": self.map,
            "results": [best.as_dict() for best in self.results],
        }


def split_map(spec: str | None) -> tuple[str, int | None]:
    """The map a spec names, as shown (a file's name, not its folder; ``health=``
    left out), and the starting health it sets, if any."""
    text = spec or "default"
    found = _HEALTH.search(text)
    health = int(found.group(1)) if found else None
    shown = _HEALTH.sub("", text).lstrip(",") or "default"
    if "/" in shown or "\\" in shown:
        shown = PurePath(shown.replace("\\", "/")).name
    return shown, health


def _rows(store: Store, world: str | None, name: str | None) -> list[Any]:
    query = (
        sa.select(
            games.c.world,
            games.c.map,
            players.c.name,
            sa.func.min(players.c.moves).label("moves"),
            sa.func.max(players.c.gold).label("gold"),
            sa.func.count().label("wins"),
            sa.func.min(games.c.ended_at).label("first_at"),
        )
        .join(players, players.c.game_id == games.c.id)
        .where(players.c.outcome == WIN, players.c.name.is_not(None), sa.not_(games.c.rated))
        .group_by(games.c.world, games.c.map, players.c.name)
    )
    if world is not None:
        query = query.where(games.c.world == world)
    if name is not None:
        query = query.where(players.c.name == name)
    with store.engine.connect() as connection:
        return list(connection.execute(query).all())


def _ranked(rows: list[Any], per_map: int) -> list[MapBests]:
    by_map: dict[tuple[str, str], dict[str, Best]] = {}
    for row in rows:
        shown, health = split_map(row.map)
        entry = Best(0, row.name, row.moves, row.gold, health, row.wins, row.first_at)
        table = by_map.setdefault((row.world, shown), {})
        old = table.get(row.name)
        table[row.name] = entry if old is None else _better(old, entry)
    result = []
    for (world, shown), table in sorted(by_map.items()):
        ordered = sorted(table.values(), key=_order)[:per_map]
        ranked = tuple(
            Best(rank, b.name, b.moves, b.gold, b.health, b.wins, b.first_at)
            for rank, b in enumerate(ordered, start=1)
        )
        result.append(MapBests(world, shown, ranked))
    return result


def _order(best: Best) -> tuple[Any, ...]:
    stamp = best.first_at.timestamp() if best.first_at is not None else float("inf")
    return (best.health or 0, best.moves, -best.gold, stamp, best.name)


def _better(a: Best, b: Best) -> Best:
    """One name's best of two results on the same map (another health setting, say)."""
    best = min(a, b, key=_order)
    return Best(0, best.name, best.moves, best.gold, best.health, a.wins + b.wins, best.first_at)


def bests(store: Store, world: str, per_map: int = 10) -> list[MapBests]:
    """The best results of every map of ``world``, maps by name, at most ``per_map`` each."""
    return _ranked(_rows(store, world, None), per_map)


def player_bests(store: Store, name: str) -> list[MapBests]:
    """``name``'s best result on every map it won alone, with its rank among all there.

    Its own wins are read by its name (an index); its rank on a map is one plus a count,
    made in the database, of the names with a better result there: the page of one name
    never brings every result of a map into Python."""
    mine: dict[tuple[str, str], Best] = {}
    for row in _rows(store, None, name):
        shown, health = split_map(row.map)
        entry = Best(0, row.name, row.moves, row.gold, health, row.wins, row.first_at)
        old = mine.get((row.world, shown))
        mine[row.world, shown] = entry if old is None else _better(old, entry)
    found = []
    with store.reader.connect() as connection:
        specs: dict[str, list[str | None]] = {}
        for (world, shown), best in sorted(mine.items()):
            if world not in specs:
                specs[world] = list(
                    connection.execute(
                        sa.select(games.c.map).distinct().where(games.c.world == world)
                    ).scalars()
                )
            same_map = [spec for spec in specs[world] if split_map(spec)[0] == shown]
            ahead = connection.execute(_names_ahead(world, same_map, best)).scalar_one()
            found.append(MapBests(world, shown, (_ranked_as(best, ahead + 1),)))
    return found


def _ranked_as(best: Best, rank: int) -> Best:
    return Best(rank, best.name, best.moves, best.gold, best.health, best.wins, best.first_at)


def _names_ahead(world: str, specs: list[str | None], best: Best) -> sa.Select[int]:
    """How many names did better than ``best`` on the map whose specs are ``specs``:
    any win with less starting health, or, with as much, a better aggregate (as
    :func:`_order` ranks them)."""
    health = best.health or 0
    below = [spec for spec in specs if (split_map(spec)[1] or 0) < health]
    level = [spec for spec in specs if (split_map(spec)[1] or 0) == health]
    wins = (
        sa.select(players.c.name)
        .select_from(games.join(players, players.c.game_id == games.c.id))
        .where(
            games.c.world == world,
            players.c.outcome == WIN,
            players.c.name.is_not(None),
            sa.not_(games.c.rated),
        )
    )
    moves = sa.func.min(players.c.moves)
    gold = sa.func.max(players.c.gold)
    first = sa.func.min(games.c.ended_at)
    assert best.first_at is not None  # every recorded game has ended
    better = sa.or_(
        moves < best.moves,
        sa.and_(moves == best.moves, gold > best.gold),
        sa.and_(moves == best.moves, gold == best.gold, first < best.first_at),
        sa.and_(
            moves == best.moves,
            gold == best.gold,
            first == best.first_at,
            players.c.name < best.name,
        ),
    )
    parts = [wins.where(_spec_in(level)).group_by(games.c.map, players.c.name).having(better)]
    if below:
        parts.append(wins.where(_spec_in(below)))
    names = sa.union(*parts).subquery()
    return sa.select(sa.func.count()).select_from(names)


def _spec_in(specs: list[str | None]) -> sa.ColumnElement[bool]:
    given = [spec for spec in specs if spec is not None]
    condition = games.c.map.in_(given)
    return sa.or_(condition, games.c.map.is_(None)) if None in specs else condition
