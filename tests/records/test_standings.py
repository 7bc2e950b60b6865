"""A tournament's table (records.standings): ranked by wins, then rating, under the
tournament's contract (issue 38 item 3, issue 40 item 4)."""

from __future__ import annotations

from records.contract import Contract
from records.model import GameRecord
from records.standings import standings

from .test_store import finished


def _games() -> list[GameRecord]:
    """A hoarder that never wins but out-golds its quitting opponent six times, and a
    bot that wins three games of six."""
    games = [finished([("hoarder", "quit", 3), ("x", "quit", 0)]) for _ in range(6)]
    games += [finished([("winner", "win", 2), ("y", "quit", 1)]) for _ in range(3)]
    games += [finished([("y", "win", 2), ("winner", "quit", 1)]) for _ in range(3)]
    return games


def test_the_table_ranks_a_win_above_any_gold() -> None:
    """Before: by rating alone, the hoarder (six first places) topped the table above a
    bot with three wins."""
    lines = standings(["hoarder", "x", "winner", "y"], _games())
    order = [line.name for line in lines]
    hoarder = next(line for line in lines if line.name == "hoarder")
    winner = next(line for line in lines if line.name == "winner")
    assert hoarder.rating.ordinal > winner.rating.ordinal  # places alone favour it
    assert order.index("winner") < order.index("hoarder")
    assert order.index("y") < order.index("hoarder")
    assert [line.wins for line in lines] == sorted((line.wins for line in lines), reverse=True)


def test_the_contract_is_stated_as_it_holds() -> None:
    stated = Contract(sight="look", places="moves", move_time=2.5, max_missed_turns=4).lines()
    assert stated[0] == "what a bot may see: LOOK only (the arena refuses MAP)"
    assert "by the moves they took, fewest first" in stated[1]
    assert stated[2].startswith("time per move: 2.5 s") and "4 in a row" in stated[2]
    assert stated[3].startswith("the table: most wins first, then rating")
    spec = Contract(sight="look", places="moves").as_spec()
    assert Contract.from_spec(spec) == Contract(sight="look", places="moves")
    assert Contract.from_spec({}) == Contract()
