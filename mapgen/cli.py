"""``dod-generate``: generated dungeons on standard output or in files.

::

    dod-generate                                   # the seed-0 drawing, 80 × 21
    dod-generate --seed 7 --format classic -o gen.map
    dod-generate --width 200 --height 60 --rooms 40 --winding 2
    dod-generate --count 100 --format classic -o 'maps/gen-{seed}.map'
    dod-generate --seed 7 --format crawler --levels 3 -o levels/gen   # gen1.txt .. gen3.txt
    dod-generate --seed 7 --format baddies -o gen.board

``--count N`` makes the dungeons of seeds ``S .. S+N-1``; with a file name it
must contain ``{seed}``, which is replaced by each seed; on standard output the
dungeons follow one another, each ended by a blank line. A format with one file
per level (``crawler``) takes the file name as the start of each level's name,
``NAME1.txt`` … ``NAMEN.txt``; on standard output its levels follow one another
the same way. A batch draws a
progress bar on standard error (``--quiet`` leaves it out). Exit status: 0 when
every dungeon was written, 1 when a seed could not make one or a file could not be
written, 2 for bad options.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from commandline import run_command

from .formats import DEFAULT_LEVELS, formats
from .settings import GenerationError, Settings, parse_range

__all__ = ["main"]

_BAR_WIDTH = 30


def _size_range(text: str) -> tuple[int, int]:
    # argparse would name the function in its message; the range's own reason reads better.
    try:
        return parse_range(text)
    except GenerationError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _parser() -> argparse.ArgumentParser:
    defaults = Settings()
    parser = argparse.ArgumentParser(
        prog="dod-generate",
        description="Generate dungeons of rooms and winding corridors (RULES §4).",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed (default: %(default)s)")
    parser.add_argument(
        "--width", type=int, default=defaults.width, help="columns (default: %(default)s)"
    )
    parser.add_argument(
        "--height", type=int, default=defaults.height, help="rows (default: %(default)s)"
    )
    parser.add_argument(
        "--rooms",
        type=int,
        help="most rooms to place, at least 5 (default: one per 170 squares)",
    )
    parser.add_argument(
        "--room-width",
        type=_size_range,
        default=defaults.room_width,
        metavar="MIN-MAX",
        help="room widths (default: %(default)s)",
    )
    parser.add_argument(
        "--room-height",
        type=_size_range,
        default=defaults.room_height,
        metavar="MIN-MAX",
        help="room heights (default: %(default)s)",
    )
    parser.add_argument(
        "--winding",
        type=float,
        default=defaults.winding,
        help="how much corridors bend around hard rock; 0 is straight (default: %(default)s)",
    )
    parser.add_argument(
        "--loops",
        type=float,
        default=defaults.loops,
        help="chance of a second corridor between neighbouring rooms (default: %(default)s)",
    )
    parser.add_argument(
        "--format",
        choices=sorted(formats()),
        default="drawing",
        help="; ".join(f"{name}: {f.summary}" for name, f in sorted(formats().items())),
    )
    parser.add_argument(
        "--levels",
        type=int,
        help=f"levels of a crawler dungeon (default: {DEFAULT_LEVELS})",
    )
    parser.add_argument(
        "-o",
        "--output",
        default="-",
        metavar="FILE",
        help="file to write (for crawler: the start of each level's name), or - (the default)",
    )
    parser.add_argument("--count", type=int, default=1, help="how many seeds, from --seed on")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def _progress(done: int, total: int, stream: TextIO) -> None:
    filled = _BAR_WIDTH * done // total
    bar = "#" * filled + "-" * (_BAR_WIDTH - filled)
    stream.write(f"\r[{bar}] {done}/{total}")
    if done == total:
        stream.write("\n")
    stream.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (141 if the reader of its output went
    away, 130 on Ctrl-C, with no traceback)."""
    return run_command(lambda: _main(argv), name="dod-generate")


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error(f"--count must be at least 1, not {args.count}")
    if args.count > 1 and args.output != "-" and "{seed}" not in args.output:
        parser.error("with --count, the --output file name needs {seed} (or use - for stdout)")
    output = formats()[args.format]
    if args.levels is not None and not output.numbered:
        parser.error(f"--levels is for formats of several levels, not {args.format}")
    levels = DEFAULT_LEVELS if args.levels is None else args.levels
    if levels < 1:
        parser.error(f"--levels must be at least 1, not {levels}")
    try:
        settings = Settings(
            width=args.width,
            height=args.height,
            rooms=args.rooms,
            room_width=args.room_width,
            room_height=args.room_height,
            winding=args.winding,
            loops=args.loops,
        )
    except GenerationError as error:
        parser.error(str(error))
    show_progress = args.count > 1 and not args.quiet
    # At most about 120 redraws per batch, so that big batches do not flood the terminal.
    step = max(1, args.count // (_BAR_WIDTH * 4))
    for number in range(args.count):
        seed = args.seed + number
        try:
            texts = output.texts(seed, settings, levels)
        except GenerationError as error:
            if show_progress:
                sys.stderr.write("\n")
            print(f"dod-generate: seed {seed}: {error}", file=sys.stderr)
            return 1
        if args.output == "-":
            end = "\n" if args.count > 1 or len(texts) > 1 else ""
            sys.stdout.write("".join(text + end for text in texts))
        else:
            name = args.output.replace("{seed}", str(seed))
            paths = (
                [Path(f"{name}{level}.txt") for level in range(1, len(texts) + 1)]
                if output.numbered
                else [Path(name)]
            )
            for path, text in zip(paths, texts, strict=True):
                try:
                    if not path.parent.exists():  # -o levels/gen makes levels/
                        path.parent.mkdir(parents=True)
                    path.write_text(text, "utf-8")
                except OSError as error:
                    print(f"dod-generate: cannot write {path}: {error.strerror}", file=sys.stderr)
                    return 1
        done = number + 1
        if show_progress and (done % step == 0 or done == args.count):
            _progress(done, args.count, sys.stderr)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
