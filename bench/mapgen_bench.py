"""``python -m bench.mapgen_bench``: how long generating a dungeon takes, stage by stage.

For each size it generates dungeons from consecutive seeds and prints the median
time of each stage (rock hardness, room placement, corridors, the RULES §4
check inside :func:`mapgen.generate`, the classic map, the baddies board and the
crawler level, both with their winnability search) and of the whole
:func:`mapgen.generate` call, plus the rooms placed and the share of floor.
Sizes and run counts are options; the defaults are the seed's 80 × 21 and the
1,000 × 1,000 of the performance target.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import TypeVar

from dungeon_of_doom.mapgen import ROCK, Dungeon, Settings, generate, validate
from dungeon_of_doom.mapgen.corridors import carve_corridors
from dungeon_of_doom.mapgen.generator import mark_rooms
from dungeon_of_doom.mapgen.hardness import rock_hardness
from dungeon_of_doom.mapgen.rooms import place_rooms
from dungeon_of_doom.worlds.baddies.generated import to_baddies
from dungeon_of_doom.worlds.classic.generated import to_classic
from dungeon_of_doom.worlds.crawler.generated import to_crawler

T = TypeVar("T")

SEARCHED_AREA = 10_000
"""The largest area whose crawler and baddies outputs are timed: each is searched for a
win, which is bounded in states, not in time per square."""


def _timed(action: Callable[[], T]) -> tuple[T, float]:
    start = time.perf_counter()
    result = action()
    return result, time.perf_counter() - start


def _stages(seed: int, settings: Settings) -> dict[str, float]:
    """Time each stage the way :func:`mapgen.generate` runs them, from the same seed."""
    width, height = settings.width, settings.height
    rng = random.Random(seed)
    times: dict[str, float] = {}
    hardness, times["hardness"] = _timed(lambda: rock_hardness(width, height, rng))
    rooms, times["rooms"] = _timed(lambda: place_rooms(settings, rng))
    cells = bytearray(width * height)
    mark_rooms(rooms, width, cells, hardness)
    _, times["corridors"] = _timed(
        lambda: carve_corridors(
            width,
            height,
            rooms,
            hardness,
            cells,
            winding=settings.winding,
            loops=settings.loops,
            rng=rng,
        )
    )
    dungeon = Dungeon(width, height, bytes(cells), tuple(rooms), bytes(hardness))
    _, times["validate"] = _timed(lambda: validate(dungeon))
    _, times["classic map"] = _timed(lambda: to_classic(dungeon, seed=seed))
    if settings.width * settings.height <= SEARCHED_AREA:
        _, times["baddies"] = _timed(lambda: to_baddies(dungeon, seed=seed))
        _, times["crawler"] = _timed(lambda: to_crawler(dungeon, seed=seed))
    generated, times["generate()"] = _timed(lambda: generate(seed, settings))
    if generated != dungeon:
        raise RuntimeError(f"seed {seed}: the timed stages no longer build what generate() does")
    return times


def _size(text: str) -> tuple[int, int]:
    width, _, height = text.partition("x")
    return int(width), int(height)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--size",
        type=_size,
        action="append",
        metavar="WxH",
        help="a size to measure (repeatable; default: 80x21 and 1000x1000)",
    )
    parser.add_argument("--runs", type=int, default=0, help="seeds per size (default: by size)")
    args = parser.parse_args(argv)
    sizes = args.size or [(80, 21), (1000, 1000)]
    for width, height in sizes:
        runs = args.runs or (200 if width * height <= 10_000 else 3)
        settings = Settings(width=width, height=height)
        samples = [_stages(seed, settings) for seed in range(runs)]
        dungeon = generate(0, settings)
        floor = sum(cell != ROCK for cell in dungeon.cells) / len(dungeon.cells)
        print(
            f"{width} × {height}: {runs} seeds, {len(dungeon.rooms)} rooms and "
            f"{floor:.0%} floor for seed 0"
        )
        for stage in samples[0]:
            median = statistics.median(sample[stage] for sample in samples)
            print(f"  {stage:12} {median * 1000:10.1f} ms")


if __name__ == "__main__":
    main()
