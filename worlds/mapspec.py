"""What a map spec names, for every world: one resolver behind all plugins.

A map spec (``dod-server --map``, ``CREATE … map=``) names, in the order tried:

``generated[:ITEMS]``
    a dungeon generated from a seed and settings (:func:`generated_spec`);
    each world turns it into its own kind of map.
a file
    only as :class:`worlds.limits.MapFiles` allows: any path for the operator,
    only files under ``--maps-dir`` for clients, none by default;
a shipped map's name
    ``maps/<world>/<name><suffix>`` (``dod-server --world W --list-maps``).

Worlds add their own forms in front (the knight's ``20x30``, the baddies'
``random:``, the crawler's ``prefix:N``) and read what :func:`locate` finds.
Every refusal is a :class:`~worlds.errors.MapError` whose message quotes only the
spec itself and names of files the spec was allowed to name, so a client cannot
learn anything about files outside the maps folder, not even whether they exist.

The ``generated`` items: a bare whole number is the seed, and ``key=value`` sets
one of :data:`GENERATED_KEYS` (the ``dod-generate`` option names; sizes as
``MIN-MAX`` or one number)::

    generated                      a default 80 × 21 dungeon from the game's seed
    generated:7                    the dungeon of seed 7
    generated:seed=7,width=120,height=40,rooms=20
    generated:7,room-width=3-8,winding=2,loops=0.5
    generated:seed=7,levels=3      (worlds of several levels: the crawler)

``levels`` is accepted only where the world has levels. Without a seed the
game's own seed is used, so ``--map generated --seed 7`` and ``--map
generated:7`` host the same dungeon. The dungeon's width × height may not pass
:attr:`Limits.generated_cells <worlds.limits.Limits.generated_cells>`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Final

from dungeon_of_doom import maps
from dungeon_of_doom.mapgen.dungeon import Dungeon
from dungeon_of_doom.mapgen.generator import generate
from dungeon_of_doom.mapgen.settings import GenerationError, Settings, parse_range

from .errors import MapError, decode_text
from .limits import OPERATOR_LIMITS, Limits

__all__ = [
    "GENERATED",
    "GENERATED_KEYS",
    "GeneratedSpec",
    "MapSource",
    "generated_spec",
    "locate",
    "not_found",
]

GENERATED: Final = "generated"
GENERATED_KEYS: Final = (
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

_DEFAULT_SETTINGS: Final = Settings()


@dataclass(frozen=True, slots=True)
class GeneratedSpec:
    """A parsed ``generated`` spec: the seed to use and the settings, within the limits."""

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
        raise MapError(spec, f"{key} must be a whole number, not {text[:20]!r}") from None


def _number(spec: str, key: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise MapError(spec, f"{key} must be a number, not {text[:20]!r}") from None


def is_generated(spec: str | None) -> bool:
    """Whether ``spec`` is of the ``generated`` form (well made or not)."""
    return spec is not None and spec.partition(":")[0].strip().lower() == GENERATED


def generated_spec(
    spec: str | None,
    *,
    default_seed: int = 0,
    with_levels: bool = False,
    default_levels: int = 1,
    limits: Limits = OPERATOR_LIMITS,
    what: str = "a generated dungeon",
) -> GeneratedSpec | None:
    """The ``generated`` spec in ``spec``, or ``None`` if it is some other kind of map.

    ``with_levels`` accepts ``levels=N`` (1 to ``limits.levels``; ``default_levels``
    when not given). Sizes past ``limits.generated_cells``, for one level or for all
    the levels together, are refused before anything is generated.
    """
    if not is_generated(spec):
        return None
    assert spec is not None
    values: dict[str, str] = {}
    for part in spec.partition(":")[2].split(","):
        item = part.strip()
        if not item:
            continue
        key, equals, value = item.partition("=")
        key = key.strip().lower() if equals else "seed"
        value = value.strip() if equals else item
        if key not in GENERATED_KEYS:
            raise MapError(
                spec, f"unknown setting {key[:20]!r}; settings are {', '.join(GENERATED_KEYS)}"
            )
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
        limits.check_levels(spec, levels)
    default = _DEFAULT_SETTINGS
    width = _whole(spec, "width", values["width"]) if "width" in values else default.width
    height = _whole(spec, "height", values["height"]) if "height" in values else default.height
    rooms = _whole(spec, "rooms", values["rooms"]) if "rooms" in values else default.rooms
    winding, loops = (
        _number(spec, key, values[key]) if key in values else fallback
        for key, fallback in (("winding", default.winding), ("loops", default.loops))
    )
    limits.check_generated(spec, what, height, width)
    if with_levels:
        limits.check_generated_levels(spec, levels or default_levels, height, width)
    try:
        room_width = default.room_width
        if "room-width" in values:
            room_width = parse_range(values["room-width"])
        room_height = default.room_height
        if "room-height" in values:
            room_height = parse_range(values["room-height"])
        settings = Settings(width, height, rooms, room_width, room_height, winding, loops)
    except GenerationError as error:
        raise MapError(spec, str(error)) from None
    return GeneratedSpec(spec, seed, settings, levels)


@dataclass(frozen=True, slots=True)
class MapSource:
    """A map file a spec named: a shipped one or one the limits let it read."""

    source: str
    """How messages name it: ``maps/<world>/<file>``, or the path as the limits show it."""
    shipped: Traversable | None = None
    path: Path | None = None

    def read_text(self, limits: Limits = OPERATOR_LIMITS) -> str:
        """The text; a file too large (``limits.file_bytes``) or unreadable is a MapError."""
        if self.shipped is not None:
            return self.shipped.read_text("utf-8")
        assert self.path is not None
        try:
            size = self.path.stat().st_size
            if size > limits.file_bytes:
                raise MapError(
                    self.source,
                    f"a map file may have at most {limits.file_bytes} bytes; this one has {size}",
                )
            with self.path.open("rb") as file:
                data = file.read(limits.file_bytes + 1)
        except OSError as error:
            raise MapError(self.source, f"cannot read the file: {error.strerror}") from None
        if len(data) > limits.file_bytes:
            raise MapError(self.source, f"a map file may have at most {limits.file_bytes} bytes")
        return decode_text(data, self.source)


def locate(
    name: str, world: str, suffix: str, limits: Limits = OPERATOR_LIMITS
) -> MapSource | None:
    """The file ``name`` names for ``world``: an allowed file first, then a shipped map.

    ``None`` when it names neither. Only files ``limits.files`` allows are looked at.
    """
    files = limits.files
    path = files.find(name)
    if path is not None:
        return MapSource(files.shown(path), path=path)
    shipped = maps.shipped(world, suffix).get(name)
    if shipped is not None:
        return MapSource(f"maps/{world}/{name}{suffix}", shipped=shipped)
    return None


def not_found(
    spec: str,
    world: str,
    suffix: str,
    limits: Limits = OPERATOR_LIMITS,
    *,
    what: str = "map",
    forms: Sequence[str] = (),
    names: Sequence[str] | None = None,
) -> MapError:
    """The error for a spec that names nothing: what it may name instead, nothing more.

    ``names`` are the shipped names to list (default: the files in ``maps/<world>``).
    """
    names = sorted(maps.shipped(world, suffix) if names is None else names)
    accepted = [
        f"a shipped {world} {what} ({', '.join(names) or 'none'})",
        limits.files.described,
        "generated[:SEED,...]",
        *forms,
    ]
    return MapError(spec, f"no such {world} {what}; a map spec may name {'; '.join(accepted)}")
