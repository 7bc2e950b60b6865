"""``dod-replay``: re-run a game's replay through the same world code and show it.

Each step (a join, a round, a leave) is printed with what the world answered,
followed by the whole map as a spectator sees it. ``--step`` waits for Enter
between steps; ``--speed`` sets steps per second (0: as fast as possible).
The exit status is 0 when the replay ran to its end, 2 when it cannot be read
or re-run (another world, a changed map).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TextIO

from commandline import run_command
from worlds.registry import UnknownWorld, load_plugin

CLEAR = "\x1b[H\x1b[2J"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dod-replay", description="Re-run a Dungeon of Doom replay and show it."
    )
    parser.add_argument("replay", help="a replay file (.jsonl) written by dod-server")
    pace = parser.add_mutually_exclusive_group()
    pace.add_argument("--step", action="store_true", help="wait for Enter after every step")
    pace.add_argument(
        "--speed",
        type=float,
        default=4.0,
        help="steps per second; 0: no pause (default: %(default)s)",
    )
    parser.add_argument(
        "--no-map", action="store_true", help="print the steps only, not the map after each"
    )
    return parser


def show(path: str, *, step: bool, speed: float, draw_map: bool, out: TextIO) -> int:
    """Re-run the replay at ``path``, writing to ``out``; the exit status."""
    # Imported here, not for ``--help``: the replay's reader runs the server's game code.
    from .game.story import describe
    from .replay.format import ReplayError
    from .replay.reader import bot_logs, open_world, read_replay, rerun

    try:
        replay = read_replay(path)
        header = replay.header
        world = open_world(replay, load_plugin(str(header.get("world"))))
    except (ReplayError, UnknownWorld) as error:
        print(f"dod-replay: error: {error}", file=sys.stderr)
        return 2
    clear = CLEAR if out.isatty() and not step and speed > 0 else ""
    print(
        f"{header.get('game')}: {header.get('world')} world, map {header.get('map') or 'default'}, "
        f"seed {header.get('seed')}, recorded {header.get('started')}",
        file=out,
    )
    where = Path(path)
    logs = bot_logs(where.parent, where.name)
    if logs:  # what dod-arena kept of each bot's output in this game
        told = ", ".join(f"{log['bot']} ({where.parent / log['file']})" for log in logs)
        print(f"bots' output: {told}", file=out)
    if draw_map:
        print("\n".join(world.render(None)), file=out)
    # Players are shown by the name they first took, from their first line on.
    names: dict[int, str] = {}
    for record in replay.records:
        if "name" in record:
            names.setdefault(int(record["name"]), str(record["as"]))
    try:
        for current in rerun(replay, world):
            if step:
                input("[Enter] next step ")
            elif speed > 0:
                time.sleep(1 / speed)
            if clear:
                out.write(clear)
            print(describe(current, names, world), file=out)
            if draw_map and (
                "actions" in current.record or "join" in current.record or "leave" in current.record
            ):
                print("\n".join(world.render(None)), file=out)
            out.flush()
    except ReplayError as error:
        print(f"dod-replay: error: {error}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, EOFError):
        return 130
    return 0


def main(argv: list[str] | None = None) -> int:
    """Show a replay; the exit status (141 if the reader went away, 130 on Ctrl-C)."""
    return run_command(lambda: _main(argv), name="dod-replay")


def _main(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    return show(
        args.replay, step=args.step, speed=args.speed, draw_map=not args.no_map, out=sys.stdout
    )


if __name__ == "__main__":
    sys.exit(main())
