"""A tournament's results: its records read back from the store in schedule order, and
its own table, rated game by game in that order."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from records.model import GameRecord, PlayerResult
from records.standings import Line
from records.standings import standings as table_standings
from records.store import Store

from .entrants import Entrant
from .schedule import Match

__all__ = ["Line", "standings", "strangers", "table_of", "tournament_records"]


def tournament_records(store: Store, tournament: str, matches: Sequence[Match]) -> list[GameRecord]:
    """The stored records of the tournament's games, in schedule order."""
    wanted = {m.game_name(tournament): m for m in matches}
    found = {}
    for row in store.games():
        name = row.game["game"]
        if name in wanted:
            found[name] = row
    records = []
    for name in sorted(found, key=lambda n: wanted[n].number):
        row = found[name]
        g = row.game
        records.append(
            GameRecord(
                id=g["id"],
                game=g["game"],
                world=g["world"],
                map=g["map"],
                seed=g["seed"],
                dialect=g["dialect"],
                started=g["started_at"],
                ended=g["ended_at"],
                rounds=g["rounds"],
                end=g["end_reason"],
                replay=g["replay"],
                server=g["server"],
                players=tuple(
                    PlayerResult(
                        player=p["player"],
                        name=p["name"],
                        kind=p["kind"],
                        outcome=p["outcome"],
                        gold=p["gold"],
                        moves=p["moves"],
                        place=p["place"],
                        claimed=p["claimed"],
                    )
                    for p in row.players
                ),
            )
        )
    return records


def standings(entrants: Sequence[Entrant], records: Sequence[GameRecord]) -> list[Line]:
    """The tournament's own table, rated game by game in schedule order
    (:func:`records.standings.standings`)."""
    return table_standings((e.name for e in entrants), records)


def table_of(lines: Sequence[Line], title: str) -> Table:
    table = Table(title=title)
    for column in (
        "#",
        "bot",
        "rating",
        "mu ± sigma",
        "games",
        "wins",
        "mean place",
        "gold",
        "outcomes",
    ):
        table.add_column(column, justify="left" if column in ("bot", "outcomes") else "right")
    for rank, line in enumerate(lines, 1):
        table.add_row(
            str(rank),
            Text(line.name),  # text, never Rich markup
            f"{line.rating.ordinal:.2f}",
            f"{line.rating.mu:.2f} ± {line.rating.sigma:.2f}",
            str(line.games),
            str(line.wins),
            f"{line.places / line.games:.2f}" if line.games else "-",
            str(line.gold),
            " ".join(f"{k} {v}" for k, v in sorted(line.outcomes.items())),
        )
    return table


def strangers(
    tournament: str, matches: Sequence[Match], records: Sequence[GameRecord]
) -> dict[str, str]:
    """The games with a player recorded who is none of its match's entrants (someone
    joined who should not have, or under another's name, or under none), each with what
    was wrong; they say nothing about the entrants and are left out of the table. An
    entrant that never joined (it crashed, say) is missing, not a stranger."""
    wanted = {m.game_name(tournament): m for m in matches}
    found = {}
    for record in records:
        match = wanted.get(record.game)
        if match is None:
            continue
        expected = Counter(e.name for e in match.entrants)
        recorded = Counter(p.name or "(no name)" for p in record.players)
        if recorded - expected:
            found[record.game] = (
                f"recorded players {sorted(recorded.elements())}, "
                f"its entrants {sorted(expected.elements())}"
            )
    return found
