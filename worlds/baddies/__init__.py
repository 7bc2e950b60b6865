"""The baddies world: outlast the baddies and avoid the abyss (RULES §3).

``--map`` (the ``map_spec`` of :meth:`BaddiesPlugin.open`) names the board:

* nothing: a generated board with the original's suggested medium game, 15 rows,
  40 columns, 50 abysses, 6 monsters and 2 bats, from the server's ``--seed``;
* ``generate:rows=15,cols=40,abysses=50,monsters=6,bats=2,seed=7``: a generated
  board; every key may be left out (the medium game's value, and ``--seed``);
* ``generated[:ITEMS]``: a dungeon of rooms and corridors generated from a seed
  (:mod:`mapgen.spec`) made into a winnable board by :mod:`mapgen.formats.baddies`;
* the name of a shipped board (``dod-server --world baddies --list-maps``);
* the path of a board file (:mod:`worlds.baddies.boardfile`).

A generated board is the original program's board for the same answers and seed.
Bad specs, parameters and files raise :class:`~worlds.errors.MapError`.

For planners: :class:`Board` is the state, :func:`play_round` the rules.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import maps
from mapgen.settings import GenerationError
from mapgen.spec import parse_spec

from ..errors import MapError
from .board import Board
from .boardfile import format_board, parse_board, read_board
from .generate import ParameterError, Parameters, generate
from .rules import play_round
from .world import BaddiesWorld

__all__ = [
    "BaddiesPlugin",
    "BaddiesWorld",
    "Board",
    "Parameters",
    "format_board",
    "generate",
    "parse_board",
    "play_round",
    "plugin",
    "read_board",
    "spec_parameters",
]

MAP_SUFFIX: Final = ".map"
GENERATE: Final = "generate:"
MEDIUM_GAME: Final = Parameters(rows=15, columns=40, abysses=50, monsters=6, bats=2)
"""The parameters the original's documents suggest for a balanced game."""
_KEYS: Final = {
    "rows": "rows",
    "cols": "columns",
    "abysses": "abysses",
    "monsters": "monsters",
    "bats": "bats",
}
_ITEM: Final = re.compile(r"\s*([a-z]+)\s*=\s*([+-]?\d+)\s*")


def spec_parameters(spec: str, seed: int) -> tuple[Parameters, int]:
    """The parameters and seed of a ``generate:`` spec; raises :class:`MapError`."""
    values = {
        "rows": MEDIUM_GAME.rows,
        "columns": MEDIUM_GAME.columns,
        "abysses": MEDIUM_GAME.abysses,
        "monsters": MEDIUM_GAME.monsters,
        "bats": MEDIUM_GAME.bats,
    }
    body = spec.removeprefix(GENERATE)
    for item in filter(str.strip, body.split(",")):
        match = _ITEM.fullmatch(item)
        if match is None:
            raise MapError(spec, f"expected key=number, found {item.strip()!r}")
        key, number = match.group(1), int(match.group(2))
        if key == "seed":
            seed = number
        elif key in _KEYS:
            values[_KEYS[key]] = number
        else:
            raise MapError(
                spec, f"unknown key {key!r}; keys are rows, cols, abysses, monsters, bats, seed"
            )
    return Parameters(**values), seed


class BaddiesPlugin:
    """Opens baddies worlds on generated, shipped or hand-made boards."""

    name = "baddies"
    summary = "outlast the monsters, super monsters and bats, avoid the abyss, reach the ladder"

    def maps(self) -> list[str]:
        return sorted(maps.shipped(self.name, MAP_SUFFIX))

    def load_board(self, map_spec: str | None, *, seed: int) -> tuple[str, Board]:
        """The name and board that ``map_spec`` names (see the module docstring)."""
        generated = parse_spec(map_spec, default_seed=seed)
        if generated is not None:
            # Imported here: the baddies output imports this package's board.
            from mapgen.formats.baddies import to_baddies

            try:
                board = to_baddies(generated.generate(), seed=generated.seed)
            except GenerationError as error:
                raise MapError(generated.spec, str(error)) from None
            return f"Generated dungeon {generated.seed}", board
        if map_spec is None or map_spec.startswith(GENERATE):
            parameters, seed = spec_parameters(map_spec or GENERATE, seed)
            try:
                board = generate(parameters, seed)
            except ParameterError as error:
                raise MapError(map_spec or "the default board", str(error)) from None
            p = parameters
            name = (
                f"generate:rows={p.rows},cols={p.columns},abysses={p.abysses},"
                f"monsters={p.monsters},bats={p.bats},seed={seed}"
            )
            return name, board
        shipped = maps.shipped(self.name, MAP_SUFFIX)
        if map_spec in shipped and not Path(map_spec).exists():
            text = shipped[map_spec].read_text("utf-8")
            return parse_board(text, f"maps/{self.name}/{map_spec}{MAP_SUFFIX}")
        if not Path(map_spec).is_file():
            raise MapError(
                map_spec,
                f"no such file, no shipped baddies board of that name "
                f"(shipped: {', '.join(sorted(shipped))}), and not a '{GENERATE}...' spec",
            )
        return read_board(map_spec)

    def open(self, map_spec: str | None, *, seed: int) -> BaddiesWorld:
        name, board = self.load_board(map_spec, seed=seed)
        return BaddiesWorld(board, name=name, seed=seed)


plugin = BaddiesPlugin()
