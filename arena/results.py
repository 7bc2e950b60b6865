"""A tournament's results: its records read back from the store in schedule order, and
its own table, rated game by game in that order."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from records.contract import Contract
from records.model import GameRecord
from records.standings import Line
from records.standings import standings as table_standings
from records.store import Store

from .entrants import Entrant
from .schedule import Match

__all__ = ["Line", "print_table", "standings", "strangers", "table_of", "tournament_records"]


def tournament_records(store: Store, tournament: str, matches: Sequence[Match]) -> list[GameRecord]:
    """The stored records of the tournament's games, in schedule order (a game stored
    twice, by a run under the same name before, by its newest record)."""
    wanted = {m.game_name(tournament): m for m in matches}
    found = {record.game: record for record in store.records_named(wanted)}
    return [found[name] for name in sorted(found, key=lambda n: wanted[n].number)]


def standings(
    entrants: Sequence[Entrant], records: Sequence[GameRecord], contract: Contract
) -> list[Line]:
    """The tournament's own table, rated game by game in schedule order
    (:func:`records.standings.standings`)."""
    return table_standings((e.name for e in entrants), records, contract)


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


def print_table(
    console: Console,
    lines: Sequence[Line],
    title: str,
    contract: Contract,
    unplayed: Sequence[str] = (),
) -> None:
    """The contract the table was made by, then the table, then the entrants left out of
    it because they never started (``unplayed``)."""
    console.print("The contract:", highlight=False)
    for line in contract.lines():
        console.print(f"  * {line}", highlight=False, soft_wrap=True)
    console.print(table_of(lines, title))
    if unplayed:
        console.print(
            f"Not ranked (did not start in any game): {', '.join(unplayed)}", highlight=False
        )


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
