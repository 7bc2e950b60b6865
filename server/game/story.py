"""One line about a step of a replay, in words: what was done and what came of it
(``dod-replay`` prints it; the web page's replay list shows it).

The words are :mod:`server.game.wording`'s: each action is told by the reply its player
got, and everything else that happened by the sentence a watcher of the viewer reads.
"""

from __future__ import annotations

from worlds.api import PlayerId, ResultEvent, World

from ..replay.reader import Step
from .wording import result_reply, sentence_of

__all__ = ["describe"]


def describe(step: Step, names: dict[int, str], world: World) -> str:
    """One line about a step of ``world``'s replay: what was done and what came of it."""
    record = step.record

    def who(player: PlayerId) -> str:
        return names.get(int(player), f"#{player}")

    if "actions" in record:
        results = iter(e for e in step.events if isinstance(e, ResultEvent))
        parts = []
        for player, action in record["actions"]:
            result = next(results, None)
            answer = result_reply(result, world).lines()[0] if result is not None else "?"
            late = " (missed its turn)" if player in record.get("missed", ()) else ""
            parts.append(f"{who(player)} {action}{late}: {answer}")
        extra = [
            sentence_of(event, who, world.goal, world)
            for event in step.events
            if not isinstance(event, ResultEvent)
        ]
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
