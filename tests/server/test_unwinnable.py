"""The 2013 conundrum over real sockets (issue 29): one player of four takes all the
gold and escapes; the game then ends for the three others, each told how."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from pathlib import Path

from dungeon_of_doom.server.replay.reader import read_replay

from ..helpers import Peer, bound_port
from .conftest import StartGameServer

FOUR = "name Four\nwin 2\n#########\n#G.G...E#\n#.......#\n#########\n"
STEPS = {"N": (-1, 0), "S": (1, 0), "E": (0, 1), "W": (0, -1)}


async def position(peer: Peer) -> tuple[int, int]:
    rows = (await peer.ask("MAP"))[1:]
    row = next(number for number, line in enumerate(rows) if "@" in line)
    return row, rows[row].index("@")


def route(
    rows: list[str], start: tuple[int, int], goal: tuple[int, int], busy: set[tuple[int, int]]
) -> list[str]:
    """The moves of a shortest way from ``start`` to ``goal`` around walls and ``busy``."""
    came: dict[tuple[int, int], tuple[tuple[int, int], str] | None] = {start: None}
    queue = deque([start])
    while queue:
        square = queue.popleft()
        if square == goal:
            break
        for word, (d_row, d_col) in STEPS.items():
            step = (square[0] + d_row, square[1] + d_col)
            if rows[step[0]][step[1]] != "#" and step not in busy and step not in came:
                came[step] = (square, word)
                queue.append(step)
    moves: list[str] = []
    square = goal
    while (back := came[square]) is not None:
        square, word = back
        moves.append(f"MOVE {word}")
    return moves[::-1]


async def test_a_game_nobody_can_win_ends_for_every_player_with_lose(
    start_game_server: StartGameServer, write_map: Callable[[str], str], replay_dir: Path
) -> None:
    server = await start_game_server(map=write_map(FOUR), seed=11)
    peers = [await Peer.connect(bound_port(server)) for _ in range(4)]
    squares = [await position(peer) for peer in peers]
    rows = FOUR.splitlines()[2:]
    coins = [(1, 1), (1, 3)]
    assert not {*coins, (1, 7)} & set(squares), "the seed puts nobody on gold or the exit"
    winner, others = peers[0], peers[1:]
    busy = set(squares[1:])
    here = squares[0]
    for target in (*coins, (1, 7)):
        for move in route(rows, here, target, busy):
            assert await winner.ask(move) == ["SUCCESS"]
        here = target
        if target != (1, 7):
            assert (await winner.ask("PICKUP"))[0].startswith("SUCCESS")
    assert (await winner.read_to_end()).decode().startswith("WIN ")
    for peer in others:
        assert (await peer.read_to_end()).decode() == (
            "LOSE nobody can win any more: 0 gold is left in the dungeon, no player still "
            "here holds more than 0, and 2 is needed to escape; the game is over\n"
        )
    # The replay says how the game ended; the next game is a fresh one.
    (path,) = replay_dir.iterdir()
    assert read_replay(path).records[-1]["end"] == "nobody could win any more"
