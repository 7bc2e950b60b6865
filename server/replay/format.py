"""Replays: every game's record as a JSON-lines file, and re-running one exactly.

A replay file holds one JSON object per line. The first line is the header::

    {"replay": 1, "game": "default", "world": "classic", "map": "tiny",
     "map_files": {"tiny.map": "name ..."}, "seed": 1, "turn": null,
     "rules": {"server": "0.1.0", "world": null}, "view": ["#####", ...],
     "started": "2024-05-01T12:00:00Z"}

``map`` is the map spec the game was opened with (``null``: the world's
default), ``map_files`` the content of the map file when the spec named one on
disk (so that the replay does not depend on the file staying as it was),
``view`` the whole map as a spectator saw it when the game began (a re-run
checks it). A map larger than the server's ``max_map_bytes`` is not copied into
the header: ``view_sha256`` (the SHA-256 of the rows joined by LF) stands for
``view``, and ``map_files`` is left out, so a game on a huge board costs its replay
a few hundred bytes, not the board. Then, in the order they happened::

    {"round": 0, "join": 1, "kind": "P"}            a player entered the world
    {"round": 0, "name": 1, "as": "Ada"}            a player took a name
    {"round": 1, "actions": [[1, "MOVE N"], [2, "STAY"]], "missed": [2]}
    {"round": 1, "leave": 2, "why": "disconnected"}
    {"round": 1, "timeout": 2}                      a turn-based world's turn ran out
    {"round": 1, "end": "all players left"}          (and "probe": true: only probes played)
    {"round": 9, "truncated": "the replay reached its limit of 16777216 bytes; ..."}

A ``truncated`` line is the last of a file whose game went on unrecorded: the
replay reached ``max_bytes`` (its own cap) or the live replays together reached
``keep_bytes``. Everything before it is whole; nothing after it was recorded, so a
reader shows the game up to there and says it was cut short.

``actions`` is one call of ``world.resolve`` in the order it was made (worlds
without rounds have one action per round); ``missed`` lists the players whose
action was a stay because the turn time ran out. ``round`` on other lines is the
number of the last round resolved before them.

A re-run (:func:`server.replay.reader.rerun`) feeds the same calls to a fresh world from
the same plugin, so the same header and records give the same events.

The files are written by :class:`server.replay.writer.ReplayWriter` and kept within
their limits by :class:`server.replay.shelf.ReplayShelf`; :mod:`server.replay.reader`
reads them.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Final

from protocol.commands import Move
from protocol.direction import Direction
from worlds.api import Action, World, WorldPlugin
from worlds.limits import OPERATOR_LIMITS

__all__ = [
    "FORMAT_VERSION",
    "MAX_REPLAY_BYTES",
    "SUFFIX",
    "TRUNCATED_RESERVE",
    "ReplayError",
    "action_text",
    "header_for",
    "view_digest",
]

FORMAT_VERSION: Final = 1
SUFFIX: Final = ".jsonl"
MAX_REPLAY_BYTES: Final = 16 << 20
"""The default cap on one replay file (``--max-replay-bytes``)."""
TRUNCATED_RESERVE: Final = 256
"""Bytes of a file's cap kept for its ``truncated`` line (which is shorter)."""


def _server_version() -> str:
    try:
        return version("dungeon-of-doom")
    except PackageNotFoundError:  # running from a source tree that is not installed
        return "unknown"


SERVER_VERSION: Final = _server_version()
_MOVES: Final = {direction: f"MOVE {direction.name}" for direction in Direction}


class ReplayError(Exception):
    """A replay that cannot be read or re-run; ``str()`` says why."""


def action_text(action: Action) -> str:
    """The action as a command line (``MOVE N``, ``PICKUP``, ``STAY``)."""
    if type(action) is Move:
        return _MOVES[action.direction]
    return action.to_line()


def header_for(
    game: str,
    plugin: WorldPlugin,
    map_spec: str | None,
    seed: int,
    view: World | Sequence[str] | None,
    turn: float | None,
    *,
    view_digest: str | None = None,
    max_bytes: int = 1 << 20,
) -> dict[str, Any]:
    """The header of a replay of a game that begins with ``view`` (the spectator's
    whole map, or the world to draw it from); a map over ``max_bytes`` is recorded
    by ``view_digest`` alone (see the module docstring)."""
    header: dict[str, Any] = {
        "replay": FORMAT_VERSION,
        "game": game,
        "world": plugin.name,
        "map": map_spec,
    }
    # The file the spec names for this game: a client's game reads only under the
    # maps folder (worlds.limits), never a file of the same name elsewhere.
    files = getattr(plugin, "limits", OPERATOR_LIMITS).files
    path = None if map_spec is None else files.find(map_spec)
    if map_spec is not None and path is not None:
        with contextlib.suppress(OSError):
            if path.stat().st_size <= max_bytes:
                # Keyed by the name the spec gives it (what a re-run opens), not the
                # name a link leads to, which need not even be UTF-8.
                header["map_files"] = {
                    Path(map_spec).name: path.read_text("utf-8", errors="replace")
                }
    if isinstance(view, World):
        view = view.render(None)
    header.update(
        seed=seed,
        turn=turn,
        rules={"server": SERVER_VERSION, "world": getattr(plugin, "version", None)},
    )
    if view is not None:
        header["view"] = list(view)
    else:
        header["view_sha256"] = view_digest
    header["started"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return header


def view_digest(rows: Sequence[str]) -> str:
    """The SHA-256 a header records for a map too large to copy (rows joined by LF)."""
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()
