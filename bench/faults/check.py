"""The invariants, checked on the recorded history.

* **Every command is answered** within :data:`~bench.faults.workload.ANSWER_BOUND`
  seconds, by what it asked for, a clear ``ERROR`` or a final line (``WIN``, ``LOSE``,
  ``BYE``): never silence, never a bare end of the connection, never an answer of the
  wrong shape, and never a line the client did not ask for. Excused: the commands of a
  client whose own node was killed or paused meanwhile (it cannot answer; the campaign
  checks it serves again once healed), or the node of the game it was carried to paused
  (:func:`excused`), and a node refusing connections while it starts.
* **One holder at a time.** No node acts on a game's name, or on a player's name (or a
  lookalike of it), while the directory says another node holds it
  (:class:`~bench.faults.history.Tenure`, with :data:`SLACK` seconds for the
  announcement of its end to reach the campaign). A command acts for the node that answers it: the
  client's own, or, for a client in another node's game, that game's node (the name
  goes with a carried client: see ``server.cluster.shared``). A game is known by its
  name and seed, so two games of one name are told apart.
* **Told wins are recorded exactly once** (:func:`wins_expected`, compared by the
  campaign with the records databases).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Final

from dungeon_of_doom.records.names import lookalike_keys

from .history import EOF, MALFORMED, OK, REFUSED, SILENT, UNASKED, Fault, History, Op, Tenure
from .rig import WORKERS

SLACK: Final = 0.5
"""Seconds a directory's announcement that a node let a name go may take to reach the
campaign. (The announcement of a claim needs none: it can only come late, which makes
the claim look shorter, never longer.)"""
GRACE: Final = 2.0
"""Seconds after a killed node is serving again (or a paused one goes on) during which
its clients' ends and refused connections are still the fault's."""
_GAME: Final = re.compile(r"^GAME (\S+) .*\bseed=(-?\d+)\b")


@dataclass(slots=True)
class Violation:
    kind: str
    moment: float
    text: str
    clients: set[int] = field(default_factory=set)


def excused(
    op: Op, faults: list[Fault], end: float, made: dict[tuple[str, int], str] | None = None
) -> bool:
    """Whether a silence, an end or a refusal of ``op`` is a fault's doing: its node, or
    the node of the game it was carried to (``made``: :func:`creators`), killed or
    paused while it waited. (A paused node's system still takes the relay's bytes, so a
    carried client waits for it as its own clients do; a killed one's are told ``BYE``.)"""
    done = op.done if op.done is not None else end
    game_node = None if made is None or op.game is None else made.get(op.game)
    for fault in faults:
        healed = fault.healed if fault.healed is not None else end
        if not (fault.began - 0.5 <= done and op.sent <= healed + GRACE):
            continue
        if fault.kind in ("kill-node", "pause-node") and op.node == fault.target:
            return True
        if fault.kind == "pause-node" and game_node == fault.target:
            return True
        if fault.kind in ("kill-worker", "pause-worker", "kill-parent") and op.node == WORKERS:
            return True
    return False


def answers(history: History, end: float) -> list[Violation]:
    """The commands not answered as they must be (see the module docstring)."""
    found = []
    made = creators(history)
    for op in history.ops:
        why = {
            SILENT: "no answer within the bound",
            EOF: "the connection ended with no final line",
            UNASKED: "a line the client did not ask for",
            MALFORMED: "an answer of the wrong shape",
            REFUSED: "the connection was refused",
        }.get(op.outcome)
        if why is None:
            continue
        if op.outcome in (SILENT, EOF, REFUSED) and excused(op, history.faults, end, made):
            continue
        found.append(Violation(op.outcome, op.sent, f"{why}: {op.line()}", {op.client}))
    return found


def creators(history: History) -> dict[tuple[str, int], str]:
    """Each game that was created (its name and seed), and the node that created it."""
    made = {}
    for op in history.ops:
        if op.command.startswith("CREATE") and op.outcome == OK and op.lines:
            found = _GAME.match(op.lines[0])
            if found:
                made[(found.group(1), int(found.group(2)))] = op.node
    return made


def holders(history: History) -> list[Violation]:
    """The commands a node answered for a name another node held throughout (see the
    module docstring)."""
    made = creators(history)
    by_key: dict[tuple[str, str], list[Tenure]] = defaultdict(list)
    for tenure in history.tenures:
        by_key[(tenure.kind, tenure.key)].append(tenure)
    found = []
    for op in history.ops:
        if op.system != "cluster" or op.outcome != OK or op.done is None:
            continue
        if op.command.startswith(("(connect)", "GAMES", "CREATE", "QUIT")):
            continue  # no name acted on (CREATE's claim is the directory's own to make)
        game = op.game if op.game is not None and op.game[0] != "default" else None
        actor = made.get(game, op.node) if game is not None else op.node
        checks: list[tuple[str, str, str]] = []
        if game is not None:
            checks.append(("game", game[0], f"game {game[0]} (seed {game[1]})"))
        if op.name is not None:
            checks += [("name", key, f"name {op.name}") for key in lookalike_keys(op.name)]
        flagged: set[str] = set()  # one violation a command and name, however many keys
        for kind, key, what in checks:
            if what in flagged:
                continue
            for tenure in by_key.get((kind, key), ()):
                holder = history.node_ids.get(tenure.node, "?")
                ended = tenure.ended if tenure.ended is not None else float("inf")
                if (
                    holder not in (actor, "?")
                    and tenure.began < op.sent
                    and op.done < ended - SLACK
                ):
                    found.append(
                        Violation(
                            "two holders",
                            op.sent,
                            f"node {actor} acted on the {what} while node {holder} held it "
                            f"(from {tenure.began:.3f} to {ended:.3f}): {op.line()}",
                            {op.client},
                        )
                    )
                    flagged.add(what)
                    break
    return found


def wins_expected(history: History) -> dict[tuple[str, str, int, str | None], list[Op]]:
    """The ``WIN`` lines told in created games, by (system, game, seed, name): a game of
    the campaign ends with its one player's win, so each is one finished game (a game
    restarts with its seed while watched, so one seed may be won again)."""
    told: dict[tuple[str, str, int, str | None], list[Op]] = defaultdict(list)
    for op in history.told_wins:
        if op.game is not None and op.game[0] != "default":
            told[(op.system, op.game[0], op.game[1], op.name)].append(op)
    return told
