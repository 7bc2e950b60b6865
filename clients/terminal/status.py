"""The status line: one line of what a player wants to know at a glance. Pure.

:func:`status_line` always names the world and the game; a player also sees gold
held and needed (treasure in the crawler world, health in the knight world), the
moves made and the players in the game; a spectator sees players and spectators.
The round number appears in worlds with rounds, and "waiting for the round"
while a turn is sent and unanswered there. In the battle world: hit points, action
points, what the player carries and whose turn it is.
"""

from __future__ import annotations

from .state import GameState

__all__ = ["status_line"]

SEPARATOR = " │ "


def status_line(state: GameState) -> str:
    """The status line for ``state``; parts are joined by a bar."""
    if not state.connected:
        return f"connecting to {state.host}:{state.port}…"
    world = state.world.name or "unknown world"
    parts = [f"{world} world", f"game {state.game}"]
    if state.watching:
        parts.append("watching")
    elif state.name:
        parts.append(f"you: {state.name}")
    if not state.watching:
        parts.append(_holding(state))
        parts.append(f"moves {state.moves}")
    if state.players is not None:
        parts.append(f"players {state.players}")
    if state.watching and state.watchers is not None:
        parts.append(f"watchers {state.watchers}")
    if state.round is not None:
        parts.append(f"round {state.round}")
    if state.level is not None:
        parts.append(f"level {state.level}")
    if state.hp is not None:
        parts.append(f"HP {state.hp}")
    if state.ap is not None:
        parts.append(f"AP {state.ap}")
    if state.items:
        parts.append(f"carrying {state.items}")
    if state.turn is not None:
        parts.append("your turn" if state.turn == "you" else f"{state.turn}'s turn")
    if state.pending and state.rounds:
        parts.append(f"{state.pending}: waiting for the round")
    return SEPARATOR.join(parts)


def _holding(state: GameState) -> str:
    needed = "?" if state.goal is None else str(state.goal)
    if state.world.name == "knight":
        return "health ?" if state.health is None else f"health {state.health}"
    noun = "treasure" if state.world.name == "crawler" else "gold"
    return f"{noun} {state.gold}/{needed}"
