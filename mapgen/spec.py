"""The ``generated`` map spec: a dungeon named by seed and settings, with no file on disk.

Every world plugin that takes ``--map`` can accept it with :func:`parse_spec`::

    generated                      a default 80 × 21 dungeon from the game's seed
    generated:7                    the dungeon of seed 7
    generated:seed=7,width=120,height=40,rooms=20
    generated:7,room-width=3-8,winding=2,loops=0.5
    generated:seed=7,levels=3      (worlds of several levels: the crawler)

After the colon come comma-separated items: a bare whole number is the seed, and
``key=value`` sets one of :data:`KEYS` (the ``dod-generate`` option names; sizes
as ``MIN-MAX`` or one number). ``levels`` is accepted only where the caller says
its world has levels (``with_levels=True``); elsewhere it is an error. Without a
seed the game's own seed is used, so ``--map generated --seed 7`` and ``--map
generated:7`` host the same dungeon.
A spec that does not start with ``generated`` is not this syntax and gives
``None``; one that does but is malformed, or whose settings cannot make a
dungeon, raises :class:`worlds.errors.MapError` naming the spec and the fault.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from worlds.errors import MapError

from .dungeon import Dungeon
from .generator import generate
from .settings import GenerationError, Settings, parse_range

__all__ = ["KEYS", "PREFIX", "GeneratedSpec", "parse_spec"]

PREFIX: Final = "generated"

KEYS: Final = (
    "seed",
    "width",
    "height",
    "rooms",
    "room-width",
    "room-height",
    "winding",
    "loops",
    "levels",
)


@dataclass(frozen=True, slots=True)
class GeneratedSpec:
    """A parsed ``generated`` spec: the seed to use and the settings."""

    spec: str
    seed: int
    settings: Settings
    levels: int | None = None
    """The number of levels asked for, ``None`` if not given."""

    def generate(self) -> Dungeon:
        """The dungeon it names; a failure is a :class:`MapError` about the spec."""
        try:
            return generate(self.seed, self.settings)
        except GenerationError as error:
            raise MapError(self.spec, str(error)) from None


def _whole(spec: str, key: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise MapError(spec, f"{key} must be a whole number, not {text!r}") from None


def _number(spec: str, key: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise MapError(spec, f"{key} must be a number, not {text!r}") from None


def parse_spec(
    spec: str | None, *, default_seed: int = 0, with_levels: bool = False
) -> GeneratedSpec | None:
    """The ``generated`` spec in ``spec``, or ``None`` if it is some other kind of map.

    ``with_levels`` accepts ``levels=N`` (at least 1), for worlds of several levels.
    """
    if spec is None:
        return None
    head, _, rest = spec.partition(":")
    if head.strip().lower() != PREFIX:
        return None
    values: dict[str, str] = {}
    for part in rest.split(","):
        item = part.strip()
        if not item:
            continue
        key, equals, value = item.partition("=")
        key = key.strip().lower() if equals else "seed"
        value = value.strip() if equals else item
        if key not in KEYS:
            raise MapError(spec, f"unknown setting {key!r}; settings are {', '.join(KEYS)}")
        if key in values:
            raise MapError(spec, f"{key} is given twice")
        values[key] = value

    seed = _whole(spec, "seed", values["seed"]) if "seed" in values else default_seed
    levels = None
    if "levels" in values:
        if not with_levels:
            raise MapError(spec, "levels is only for worlds of several levels (crawler)")
        levels = _whole(spec, "levels", values["levels"])
        if levels < 1:
            raise MapError(spec, f"a dungeon needs at least 1 level, not {levels}")
    fields: dict[str, object] = {}
    for key in ("width", "height", "rooms"):
        if key in values:
            fields[key] = _whole(spec, key, values[key])
    for key in ("winding", "loops"):
        if key in values:
            fields[key] = _number(spec, key, values[key])
    try:
        for key in ("room-width", "room-height"):
            if key in values:
                fields[key.replace("-", "_")] = parse_range(values[key])
        settings = Settings(**fields)  # type: ignore[arg-type]
    except GenerationError as error:
        raise MapError(spec, str(error)) from None
    return GeneratedSpec(spec, seed, settings, levels)
