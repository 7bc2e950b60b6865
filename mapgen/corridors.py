"""Corridors: least-cost tunnels between rooms, a spanning tree of them, and some loops.

Entering a square of rock costs ``16 + winding × hardness³ / 254²`` (16 to
270 at the default winding 1): the cube makes hard rock far dearer than soft, so
tunnels follow soft veins and bend around hard ones, while ``winding`` 0 makes
every square cost the same and corridors run straight. The border cannot be
entered.

One multi-source Dijkstra pass (a binary heap, :mod:`heapq`) grows every room at
once: each square ends up owned by the room it is cheapest to reach from, with
its cost and the square it was reached from. Wherever two rooms' territories
meet across a square edge, the two least-cost paths back to the rooms, joined
there, form a candidate corridor between those rooms; each pair of rooms keeps
its cheapest meeting. Kruskal's algorithm on these candidates picks a spanning
tree, so the dungeon is connected, and each remaining candidate is also carved
with probability ``loops``, which gives loops between neighbouring rooms
instead of a bare tree. Carving follows the recorded paths and turns rock into
corridor; a path never enters another room, since that room's squares belong to
it at cost 0, so corridors never cut through rooms.

Why one pass: connecting rooms pair by pair, each with its own search, costs a
search per room over a region that can be the whole map for the first ones; a
single pass settles each of the *N* squares once, ``O(N log N)`` with the heap,
and the rest is linear, so a 1,000 × 1,000 dungeon takes seconds. Heap entries
are the single integer ``cost × N + square``: ties go to the lower square in
reading order, so the result is the same on every machine. Direction-change
penalties (as the original generator used) would need a search state per square and heading,
four times the work; the hardness veins already keep corridors from running
straight.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Sequence
from typing import Final

from .dungeon import CORRIDOR, ROCK, Room
from .hardness import BORDER

__all__ = ["BASE_COST", "carve_corridors"]

BASE_COST: Final = 16
"""The cost of entering open floor or the softest rock; hardness adds to it."""

_UNREACHED: Final = -1


def _grow_rooms(
    width: int, height: int, rooms: Sequence[Room], cost: Sequence[int]
) -> tuple[list[int], dict[tuple[int, int], tuple[int, int, int]]]:
    """The multi-source pass: the parent of each square, and the best meetings.

    A square's parent is the one it was reached from, leading back to its room.
    Meetings map a pair of rooms ``(a, b)``, ``a < b``, to ``(total, u, v)``: the
    adjacent squares ``u`` (owned by ``a``) and ``v`` (owned by ``b``) where the
    cheapest path between their territories crosses.
    """
    size = width * height
    owner = [_UNREACHED] * size
    distance = [0] * size
    parent = [_UNREACHED] * size
    done = bytearray(size)
    heap: list[int] = []
    for number, room in enumerate(rooms):
        for r, c in room.squares():
            index = r * width + c
            owner[index] = number
            if r in (room.row, room.bottom) or c in (room.column, room.right):
                heap.append(index)  # cost 0: the key is the square itself
            else:
                done[index] = 1  # inner squares only lead to their own room
    heapq.heapify(heap)
    meetings: dict[tuple[int, int], tuple[int, int, int]] = {}
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        here_cost, here = divmod(pop(heap), size)
        if done[here] or here_cost != distance[here]:
            continue
        done[here] = 1
        mine = owner[here]
        for near in (here - width, here - 1, here + 1, here + width):
            step = cost[near]
            if step < 0:
                continue
            if done[near]:
                theirs = owner[near]
                if theirs != mine:
                    pair, total = (mine, theirs), here_cost + distance[near]
                    meeting = (total, here, near)
                    if theirs < mine:
                        pair, meeting = (theirs, mine), (total, near, here)
                    best = meetings.get(pair)
                    if best is None or meeting < best:
                        meetings[pair] = meeting
                continue
            new_cost = here_cost + step
            if owner[near] == _UNREACHED or new_cost < distance[near]:
                owner[near], distance[near], parent[near] = mine, new_cost, here
                push(heap, new_cost * size + near)
    return parent, meetings


def _root(groups: list[int], item: int) -> int:
    while groups[item] != item:
        groups[item] = groups[groups[item]]
        item = groups[item]
    return item


def carve_corridors(
    width: int,
    height: int,
    rooms: Sequence[Room],
    hardness: bytearray,
    cells: bytearray,
    *,
    winding: float,
    loops: float,
    rng: random.Random,
) -> None:
    """Carve corridors into ``cells`` (rooms already marked) and open their ``hardness``."""
    by_hardness = [BASE_COST + round(winding * h**3 / 254**2) for h in range(BORDER)] + [-1]
    cost = [by_hardness[h] for h in hardness]
    parent, meetings = _grow_rooms(width, height, rooms, cost)
    groups = list(range(len(rooms)))
    # Sorting gives Kruskal its order and fixes the order of the random draws.
    for (a, b), (_total, u, v) in sorted(meetings.items(), key=lambda item: (item[1], item[0])):
        root_a, root_b = _root(groups, a), _root(groups, b)
        if root_a != root_b:
            groups[root_a] = root_b
        elif rng.random() >= loops:
            continue
        for square in (u, v):
            # A carved square's path back to its room is carved already.
            while cells[square] == ROCK:
                cells[square] = CORRIDOR
                hardness[square] = 0
                square = parent[square]
