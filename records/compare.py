"""Whether two stores hold the same games: the check that a re-run reproduced a tournament.

Games are paired by their name (``dod-arena`` names each game of a tournament
``TOURNAMENT-NNNNN``, so a re-run with the same ``--tournament`` pairs game for game).
Every field is compared except those that say where and when a game was played rather
than how: :data:`IGNORED` (ids, timestamps, the server's address, the replay file's path;
whether there *is* a replay is compared). A name used by several games of one store
(``default``, played again and again) pairs its games in the order they ended.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .store import GameRow

__all__ = ["IGNORED", "Comparison", "compare"]

IGNORED: Final = frozenset(
    {"id", "game_id", "started_at", "ended_at", "recorded_at", "server", "replay"}
)
"""Fields that differ between two plays of the same game by nature, not by outcome."""


@dataclass(slots=True)
class Comparison:
    """What :func:`compare` found; ``identical`` when both hold the same games."""

    paired: int = 0
    same: int = 0
    only_first: list[str] = field(default_factory=list)
    only_second: list[str] = field(default_factory=list)
    differences: list[tuple[str, str, Any, Any]] = field(default_factory=list)
    """``(game, field, first's value, second's value)``; a player's field is named
    ``players[N].field`` (N the player's number)."""

    @property
    def identical(self) -> bool:
        return not (self.only_first or self.only_second or self.differences)

    def as_dict(self) -> dict[str, Any]:
        return {
            "identical": self.identical,
            "paired": self.paired,
            "same": self.same,
            "only_first": self.only_first,
            "only_second": self.only_second,
            "differences": [
                {"game": g, "field": f, "first": a, "second": b} for g, f, a, b in self.differences
            ],
        }


def compare(
    first: Sequence[GameRow], second: Sequence[GameRow], *, prefix: str | None = None
) -> Comparison:
    """Compare the games of two stores (those whose name starts with ``prefix``, if given)."""
    left, right = _by_name(first, prefix), _by_name(second, prefix)
    result = Comparison()
    result.only_first = sorted(k for k in left if k not in right)
    result.only_second = sorted(k for k in right if k not in left)
    for key in sorted(k for k in left if k in right):
        result.paired += 1
        found = list(_differences(key, left[key].as_dict(), right[key].as_dict()))
        result.differences += found
        result.same += not found
    return result


def _by_name(rows: Iterable[GameRow], prefix: str | None) -> dict[str, GameRow]:
    named: dict[str, GameRow] = {}
    seen: dict[str, int] = {}
    for row in rows:  # oldest first, as Store.games gives them
        name = row.game["game"]
        if prefix is not None and not name.startswith(prefix):
            continue
        count = seen[name] = seen.get(name, 0) + 1
        named[name if count == 1 else f"{name}#{count}"] = row
    return named


def _differences(
    key: str, a: dict[str, Any], b: dict[str, Any]
) -> Iterable[tuple[str, str, Any, Any]]:
    for name in sorted(set(a) | set(b)):
        if name == "players" or name in IGNORED:
            continue
        if a.get(name) != b.get(name):
            yield key, name, a.get(name), b.get(name)
    if (a.get("replay") is None) != (b.get("replay") is None):
        yield key, "replay (present)", a.get("replay") is not None, b.get("replay") is not None
    players_a = {p["player"]: p for p in a["players"]}
    players_b = {p["player"]: p for p in b["players"]}
    for number in sorted(set(players_a) | set(players_b)):
        pa, pb = players_a.get(number), players_b.get(number)
        if pa is None or pb is None:
            yield key, f"players[{number}]", pa is not None, pb is not None
            continue
        for name in sorted(set(pa) | set(pb)):
            if name not in IGNORED and pa.get(name) != pb.get(name):
                yield key, f"players[{number}].{name}", pa.get(name), pb.get(name)
