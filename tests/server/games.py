"""Games for unit tests: a :class:`~server.game.game.Game` from a world's name and a few
settings, held by hooks a test can set (:class:`Hooks`), with no lobby and no server."""

from __future__ import annotations

from typing import Any

from records.model import GameRecord
from server.game.builds import Opened, WorldBuilder
from server.game.game import Game
from server.game.outbox import Outbox
from server.game.spec import GameSpec
from server.replay.shelf import ReplayShelf
from worlds.api import WorldPlugin
from worlds.registry import load_plugin


class Hooks:
    """A game's owner for tests: keeps its game (unless told not to), lets everyone chat,
    and notes what it is told (:attr:`gone`, :attr:`records`)."""

    def __init__(self, *, keep: bool = True) -> None:
        self.keep = keep
        self.gone_why: list[str] = []
        self.records: list[GameRecord] = []
        self.refusal: str | None = None

    def kept(self, game: Game) -> bool:
        return self.keep

    def gone(self, game: Game, why: str) -> None:
        self.gone_why.append(why)

    def finished(self, record: GameRecord) -> None:
        self.records.append(record)

    def may_chat(self, client: Outbox) -> bool:
        return True

    def may_begin(self) -> str | None:
        return self.refusal


def game_of(
    world: str | WorldPlugin,
    map_spec: str | None = None,
    seed: int = 0,
    *,
    name: str = "g",
    hooks: Hooks | None = None,
    opened: Opened | None = None,
    builder: WorldBuilder | None = None,
    replays: ReplayShelf | None = None,
    **settings: Any,
) -> Game:
    """A game of ``world`` (a plugin or its name) on ``map_spec`` with ``seed``; the other
    ``settings`` are the spec's (``limit``, ``start_full``, ``unjoined_timeout``...)."""
    plugin = load_plugin(world) if isinstance(world, str) else world
    spec = GameSpec(name, plugin, map_spec, seed, **settings)
    return Game(spec, hooks, opened=opened, builder=builder, replays=replays)
