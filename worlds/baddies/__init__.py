"""The baddies world: outlast the baddies and avoid the abyss (RULES §3).

``--map`` (the ``map_spec`` of :meth:`BaddiesPlugin.open`) names the board:

* nothing: a generated board with the original's suggested medium game, 15 rows,
  40 columns, 50 abysses, 6 monsters and 2 bats, from the server's ``--seed``;
* ``random:rows=15,cols=40,abysses=50,monsters=6,bats=2,seed=7``: the original's
  random board; every key may be left out (the medium game's value, and
  ``--seed``). This form was called ``generate:``; that name is refused with a
  hint, as it was too easily taken for ``generated:``;
* ``generated[:ITEMS]``: a dungeon of rooms and corridors generated from a seed
  (:mod:`worlds.mapspec`) made into a winnable board by :mod:`worlds.baddies.generated`;
* the name of a shipped board (``dod-server --world baddies --list-maps``);
* a board file (:mod:`worlds.baddies.boardfile`), as the limits allow
  (:mod:`worlds.limits`).

A board of more squares than the limits allow is refused before it is drawn.

A generated board is the original program's board for the same answers and seed.
Bad specs, parameters and files raise :class:`~worlds.errors.MapError`.

For planners: :class:`Board` is the state, :func:`play_round` the rules.
"""

from __future__ import annotations

import re
from typing import Final

from dungeon_of_doom import maps
from dungeon_of_doom.mapgen.settings import GenerationError

from ..errors import MapError
from ..limits import OPERATOR_LIMITS, Limits
from ..mapspec import generated_spec, locate, not_found
from .board import Board
from .boardfile import format_board, parse_board, read_board
from .generate import ParameterError, Parameters, generate
from .generated import to_baddies
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
RANDOM: Final = "random:"
"""The original's random board; the form was called ``generate:`` until it was
renamed so that it is not taken for ``generated:`` (which is refused with a hint)."""
OLD_RANDOM: Final = "generate:"
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
    """The parameters and seed of a ``random:`` spec; raises :class:`MapError`."""
    values = {
        "rows": MEDIUM_GAME.rows,
        "columns": MEDIUM_GAME.columns,
        "abysses": MEDIUM_GAME.abysses,
        "monsters": MEDIUM_GAME.monsters,
        "bats": MEDIUM_GAME.bats,
    }
    body = spec.partition(":")[2]
    for item in filter(str.strip, body.split(",")):
        match = _ITEM.fullmatch(item)
        if match is None:
            raise MapError(spec, f"expected key=number, found {item.strip()[:30]!r}")
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

    def load_board(
        self, map_spec: str | None, *, seed: int, limits: Limits = OPERATOR_LIMITS
    ) -> tuple[str, Board]:
        """The name and board that ``map_spec`` names (see the module docstring)."""
        generated = generated_spec(
            map_spec, default_seed=seed, limits=limits, what="a generated baddies board"
        )
        if generated is not None:
            try:
                board = to_baddies(generated.generate(), seed=generated.seed)
            except GenerationError as error:
                raise MapError(generated.spec, str(error)) from None
            return f"Generated dungeon {generated.seed}", board
        if map_spec is not None and _is_form(map_spec, OLD_RANDOM):
            raise MapError(
                map_spec,
                f"the '{OLD_RANDOM}' spec is now '{RANDOM}' (so that it is not taken for "
                f"'generated:'): {RANDOM}{map_spec.partition(':')[2]}",
            )
        if map_spec is None or _is_form(map_spec, RANDOM):
            parameters, seed = spec_parameters(map_spec or RANDOM, seed)
            limits.check_cells(
                map_spec or RANDOM, "a baddies board", parameters.rows, parameters.columns
            )
            try:
                board = generate(parameters, seed)
            except ParameterError as error:
                raise MapError(map_spec or "the default board", str(error)) from None
            p = parameters
            name = (
                f"{RANDOM}rows={p.rows},cols={p.columns},abysses={p.abysses},"
                f"monsters={p.monsters},bats={p.bats},seed={seed}"
            )
            return name, board
        found = locate(map_spec, self.name, MAP_SUFFIX, limits)
        if found is None:
            raise not_found(
                map_spec,
                self.name,
                MAP_SUFFIX,
                limits,
                what="board",
                forms=[f"{RANDOM}rows=15,cols=40,... (the original's random board)"],
            )
        name, board = parse_board(found.read_text(limits), found.source)
        limits.check_cells(found.source, "a baddies board", board.rows, board.columns)
        return name, board

    def open(
        self, map_spec: str | None, *, seed: int, limits: Limits = OPERATOR_LIMITS
    ) -> BaddiesWorld:
        name, board = self.load_board(map_spec, seed=seed, limits=limits)
        return BaddiesWorld(board, name=name, seed=seed)


def _is_form(spec: str, prefix: str) -> bool:
    return spec.strip().lower().startswith(prefix)


plugin = BaddiesPlugin()
