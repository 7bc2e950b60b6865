"""One line about a step of a replay, in words: what was done and what came of it
(``dod-replay`` prints it; the web page's replay list shows it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from worlds.api import Died, Escaped, Event, Notice, ResultEvent
from worlds.turns import Defeated, HitPointsChanged, TurnStarted

from ..replay.reader import Step
from .render import result_reply

__all__ = ["describe"]


def describe(step: Step, names: dict[int, str]) -> str:
    """One line about a step: what was done and what came of it."""
    record = step.record

    def who(player: Any) -> str:
        return names.get(int(player), f"#{player}")

    if "actions" in record:
        results = iter(e for e in step.events if isinstance(e, ResultEvent))
        parts = []
        for player, action in record["actions"]:
            result = next(results, None)
            answer = result_reply(result).lines()[0] if result is not None else "?"
            late = " (missed its turn)" if player in record.get("missed", ()) else ""
            parts.append(f"{who(player)} {action}{late}: {answer}")
        extra = [_story(event, who) for event in step.events if not isinstance(event, ResultEvent)]
        return f"round {record['round']}: " + "; ".join(parts + [e for e in extra if e])
    if "join" in record:
        return f"{who(record['join'])} joined"
    if "name" in record:
        return f"#{record['name']} is called {record['as']}"
    if "leave" in record:
        return f"{who(record['leave'])} left ({record.get('why', '')})"
    if "timeout" in record:
        return f"{who(record['timeout'])}'s turn timed out"
    if "end" in record:
        return f"game over: {record['end']}"
    if "truncated" in record:
        return f"the replay stops here, the game went on: {record['truncated']}"
    return f"(unknown record {record})"


def _story(event: Event, who: Callable[[Any], str]) -> str:
    if isinstance(event, Escaped | Died):
        return f"{who(event.player)}: {event.text}"
    if isinstance(event, Notice):
        return event.text
    if isinstance(event, HitPointsChanged):
        return f"{who(event.player)} has {event.points} HP"
    if isinstance(event, Defeated):
        return f"{who(event.player)} lost: {who(event.winner)} won"
    if isinstance(event, TurnStarted):
        return f"{who(event.player)}'s turn ({event.points} AP)"
    return ""
