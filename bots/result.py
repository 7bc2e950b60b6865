"""The lines a bot process prints on standard output, and how to read them back.

Each line is one JSON object. A bot prints exactly one ``result`` line, the last
thing it prints; with ``--progress`` it prints ``progress`` lines before it.
The launcher (and anyone else) reads them with :func:`parse_line`::

    {"type": "progress", "name": "explorer-1", "moves": 12, "gold": 1}
    {"type": "result", "bot": "explorer", "name": "explorer-1", "outcome": "win",
     "gold": 3, "moves": 57, "seconds": 0.41, "detail": "You escaped ...", "pid": 4242}

``name`` is the name the bot played under (``--name``, else ``<kind>-<pid>``; empty
when the server refused that made-up name and the bot played unnamed).
``outcome`` is one of :data:`OUTCOMES`:

* ``win``, ``lose``: the server's final line was ``WIN`` or ``LOSE``;
* ``quit``: the bot stopped on its own (a move limit, nothing left to try) and
  sent ``QUIT``; ``detail`` says why;
* ``closed``: the server closed the connection for another reason (``BYE``);
* ``interrupted``: the process was asked to stop (``SIGINT``, ``SIGTERM``);
* ``error``: the bot could not play (no server, a broken reply).

The first four are played games.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from typing import Final

__all__ = ["OUTCOMES", "PLAYED", "BotResult", "Progress", "parse_line"]

OUTCOMES: Final = ("win", "lose", "quit", "closed", "interrupted", "error")
PLAYED: Final = frozenset({"win", "lose", "quit", "closed"})


@dataclass(frozen=True, slots=True)
class Progress:
    """How far a bot has got while it plays."""

    name: str
    moves: int
    gold: int

    def to_line(self) -> str:
        return json.dumps({"type": "progress", **asdict(self)})


@dataclass(frozen=True, slots=True)
class BotResult:
    """How a bot's game ended; see the module docstring."""

    bot: str
    name: str
    outcome: str
    gold: int
    moves: int
    seconds: float
    detail: str
    pid: int

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {self.outcome!r}")

    @property
    def played(self) -> bool:
        return self.outcome in PLAYED

    def to_line(self) -> str:
        return json.dumps({"type": "result", **asdict(self)})


_KINDS: Final[dict[str, type[Progress] | type[BotResult]]] = {
    "progress": Progress,
    "result": BotResult,
}


def parse_line(line: str) -> Progress | BotResult | None:
    """The progress or result a line holds; ``None`` for any other line."""
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    kind = _KINDS.get(str(data.get("type")))
    if kind is None:
        return None
    try:
        return kind(**{field.name: data[field.name] for field in fields(kind)})
    except (KeyError, TypeError, ValueError):
        return None
