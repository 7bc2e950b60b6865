"""What a game is (:class:`GameSpec`) and what it tells its owner (:class:`GameHooks`).

A :class:`~server.game.game.Game` is made from a spec, the hooks of whoever holds it (the
lobby), and the services it shares with other games (the world builder, the shelf of
replays). The spec is plain data, fixed for the game's life: a fresh world after a
win is opened from the same one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, TypeVar

from records.model import GameRecord
from worlds.api import WorldPlugin

from .outbox import Outbox

__all__ = ["GameHooks", "GameSpec", "Unowned"]


@dataclass(frozen=True, slots=True)
class GameSpec:
    """What a game is: its name, its world and map, and the rules of its play."""

    name: str
    plugin: WorldPlugin
    map_spec: str | None = None
    """The map its worlds are opened from (``None``: the world's own)."""
    seed: int = 0
    limit: int | None = None
    """Players at once (``None``: as many as the map holds)."""
    turn_timeout: float = 30.0
    """Seconds a round or a turn waits for its players."""
    max_missed_turns: int = 3
    """Rounds or turns in a row a player may miss before it is removed."""
    start_full: bool = False
    """Hold every action (and ``LOOK``, ``MAP``) until ``limit`` players are in
    (``CREATE ... start=full``); nothing without a ``limit``."""
    owner: int | None = None
    """The id of the client that created the game (``None``: the server's own)."""
    unjoined_timeout: float | None = None
    """Seconds a game nobody joined stays (``None``: for ever)."""
    max_map_bytes: int = 1 << 20
    """The largest whole map sent (``MAP``, ``VIEW``, a replay's header)."""

    @property
    def world_name(self) -> str:
        return self.plugin.name

    @property
    def permanent(self) -> bool:
        """Whether the game never goes away (the default game): a restart that fails
        falls back on the world's own map rather than removing it."""
        return self.owner is None

    @property
    def waits_until_full(self) -> bool:
        """Whether play begins only once the game is full (:attr:`start_full`)."""
        return self.start_full and self.limit is not None


_Game = TypeVar("_Game", contravariant=True)


class GameHooks(Protocol[_Game]):
    """What a game tells its owner, and asks it (the lobby is the server's owner of
    games; :class:`Unowned` is a game on its own)."""

    def kept(self, game: _Game) -> bool:
        """``game``'s world ended (everyone left, or nobody could win): whether a fresh
        world replaces it (else the game is closed)."""
        ...

    def gone(self, game: _Game, why: str) -> None:
        """``game`` closed by itself, for ``why`` (nobody joined it, or it could not
        restart)."""
        ...

    def finished(self, record: GameRecord) -> None:
        """The record of a world's game that ended (for the records store)."""
        ...

    def may_chat(self, client: Outbox) -> bool:
        """Whether ``client`` may send one more ``SHOUT`` now (if not, it is told)."""
        ...

    def may_begin(self) -> str | None:
        """Why a fresh world may not take its first player now (``None``: it may)."""
        ...


class Unowned:
    """The hooks of a game nobody holds: kept for ever, chat free, nothing recorded."""

    def kept(self, game: object) -> bool:
        return True

    def gone(self, game: object, why: str) -> None:
        pass

    def finished(self, record: GameRecord) -> None:
        pass

    def may_chat(self, client: Outbox) -> bool:
        return True

    def may_begin(self) -> str | None:
        return None
