"""Server settings, with the defaults the command line shows."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from worlds.api import WorldPlugin

DEFAULT_PORT: Final = 40004
"""The port the 2016 Dungeon of Doom clients connect to."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    world: str = "classic"
    map: str | None = None
    """A map for the world: a path or a shipped map's name; ``None`` is the world's default."""
    seed: int = 0
    max_connections: int = 10_000
    idle_timeout: float | None = 600.0
    """Seconds a client may stay silent before it is disconnected; ``None``: forever."""
    max_line_length: int = 1024
    max_pending_output: int = 256 * 1024
    """Bytes queued for a client that is not reading before it is cut off."""
    send_timeout: float = 30.0
    """Seconds a client may leave our replies unread (its socket full) before it is cut off."""
    linger: float = 2.0
    """Seconds given to a closing connection to take its last lines."""
    replay_dir: str | Path | None = None
    """Where every game writes its replay; ``None``: no replays (``dod-server`` writes
    them to ``replays/`` unless told otherwise)."""
    turn_timeout: float = 30.0
    """Seconds a round waits for the actions of every player (worlds with rounds)."""
    max_missed_turns: int = 3
    """Rounds in a row a player may miss before being removed from the game."""
    max_players: int | None = None
    """Players at once in the default game; ``None``: as many as the map holds."""
    max_games: int = 64
    """Games at once, the default one included."""
    dialect: str = "2013"
    """The dialect of the clients on ``port`` (see ``docs/dialects.md``)."""
    listen: tuple[str, ...] = ()
    """Listening ports, each ``PORT`` or ``PORT:DIALECT`` (``40005:2015``); when given,
    they replace ``port``, and a port without a dialect speaks ``dialect``."""
    worlds: tuple[WorldPlugin, ...] = ()
    """World plugins offered besides the installed ones (found by their ``name``)."""
