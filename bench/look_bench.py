"""``python -m bench.look_bench``: microseconds per ``LOOK``, from the world to the reply's bytes.

Times the two ways the server can answer ``LOOK`` on the classic world, in the same
process, alternating in batches (best batch of each kept, so a neighbour's burst of
load favours neither):

* ``strings``: ``world.look`` (five strings) → ``LookReply(rows)`` (checked) →
  the bytes the connection's :class:`~protocol.connection.ServerProtocol` renders;
* ``bytes``: ``world.look_bytes`` (five slices of the world's byte scene) →
  ``LookReply.drawn`` (trusted) → the same rendering.

and each world step alone. The map is the load benchmark's arena with ``--players``
players on it; every player's view is drawn in turn, so views at edges count as often
as they occur there.
"""

from __future__ import annotations

import argparse
import timeit
from collections.abc import Callable

from dungeon_of_doom.protocol.connection import ServerProtocol
from dungeon_of_doom.protocol.replies import LookReply
from dungeon_of_doom.worlds.classic import ClassicWorld, parse_map

from .load import arena_map


def _cycle(world: ClassicWorld, players: int, step: Callable[[int], object]) -> Callable[[], None]:
    def run() -> None:
        for player in range(1, players + 1):
            step(player)

    return run


def measure(players: int, rounds: int, number: int) -> dict[str, float]:
    world = ClassicWorld(parse_map(arena_map(players)), seed=1)
    for player in range(1, players + 1):
        world.join(player)
    send = ServerProtocol().send
    steps: dict[str, Callable[[int], object]] = {
        "strings": lambda p: send(LookReply(world.look(p))),
        "bytes": lambda p: send(LookReply.drawn(world.look_bytes(p))),
        "look": world.look,
        "look_bytes": world.look_bytes,
    }
    for player in range(1, players + 1):  # the two paths send the same bytes
        assert steps["strings"](player) == steps["bytes"](player)
    best = dict.fromkeys(steps, float("inf"))
    for _ in range(rounds):
        for name, step in steps.items():
            seconds = timeit.timeit(_cycle(world, players, step), number=number)
            best[name] = min(best[name], seconds / (number * players) * 1e6)
    return best


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.look_bench", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=9, help="alternating batches of each")
    parser.add_argument("--number", type=int, default=400, help="views of every player a batch")
    args = parser.parse_args(argv)
    best = measure(args.players, args.rounds, args.number)
    print(
        f"LOOK, classic world, {args.players} players, best of {args.rounds} alternating batches:"
    )
    print(f"  reply bytes from strings: {best['strings']:6.2f} µs  (world.look {best['look']:.2f})")
    print(
        f"  reply bytes from bytes:   {best['bytes']:6.2f} µs  "
        f"(world.look_bytes {best['look_bytes']:.2f})"
    )
    print(f"  ratio {best['bytes'] / best['strings']:.2f}")


if __name__ == "__main__":
    main()
