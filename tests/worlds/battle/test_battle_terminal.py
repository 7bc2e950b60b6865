"""The terminal client's status line in the battle world: HP, AP, items, whose turn."""

from __future__ import annotations

from dungeon_of_doom.clients.terminal.state import GameState, WorldInfo
from dungeon_of_doom.clients.terminal.status import status_line
from dungeon_of_doom.protocol.replies import HitMod, Notice, TurnBegins, TurnOf, TurnOver


def test_the_status_line_follows_the_battle_pushes() -> None:
    state = GameState("localhost", 40004, world=WorldInfo("battle"), connected=True)
    state.name, state.goal, state.hp, state.ap = "ada", 3, 3, 0
    state.take_push(TurnOf("bob"))
    assert status_line(state).endswith("HP 3 │ AP 0 │ bob's turn")
    state.take_push(HitMod(-2))
    state.take_push(TurnBegins(5))
    state.take_push(Notice("You now carry: lantern."))
    assert status_line(state).endswith("HP 1 │ AP 5 │ carrying lantern │ your turn")
    state.take_push(TurnOver())
    assert status_line(state).endswith("HP 1 │ AP 0 │ carrying lantern")
