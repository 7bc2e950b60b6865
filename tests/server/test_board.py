"""The ``board`` capability: a spectator told who is where, on every level, by name."""

from __future__ import annotations

from dungeon_of_doom.protocol.replies import Board, LevelView, ReplyParser, View
from dungeon_of_doom.server.game.board import Scene

from ..helpers import Peer, bound_port
from .conftest import StartGameServer, nothing_received


async def read_push(peer: Peer, parser: ReplyParser) -> object:
    """The next whole pushed reply (a multi-line one gathered)."""
    while True:
        reply = parser.feed(await peer.read_line())
        if reply is not None:
            return reply


async def test_a_board_spectator_is_told_each_player_by_name_and_level(
    start_game_server: StartGameServer,
) -> None:
    server = await start_game_server(world="crawler", map="tutorial")
    watcher, plain = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    ada = await Peer.connect(bound_port(server))
    assert await watcher.ask("EXTEND board") == ["EXTENDED board"]
    assert (await watcher.ask("WATCH default"))[0].startswith("GAME default world=crawler")
    parser = ReplyParser()
    assert isinstance(await read_push(watcher, parser), View)
    assert await read_push(watcher, parser) == Board(1, ())
    assert (await plain.ask("WATCH default"))[0].startswith("GAME default")
    assert isinstance(ReplyParser().feed(await plain.read_line()), type(None))  # VIEW 3 7
    await plain.read_lines(3)

    assert await ada.ask("HELLO Ada") == ["GOLD 1"]
    assert isinstance(await read_push(watcher, parser), View)
    assert await read_push(watcher, parser) == Board(
        1, ("Ada: level=1 row=1 col=0 gold=0 moves=0",)
    )
    for move in ("S", *"EEEEEE", "N"):  # round the pillar to the door of level 1
        assert await ada.ask(f"MOVE {move}") == ["SUCCESS"]
    seen: list[object] = []
    while not (seen and isinstance(seen[-1], Board) and "level=2" in seen[-1].players[0]):
        seen.append(await read_push(watcher, parser))
    level_two = [push for push in seen if isinstance(push, LevelView)]
    assert level_two and level_two[-1].level == 2
    assert level_two[-1].rows[1][0] == "P", "Ada drawn where she arrived on level 2"
    assert seen[-1] == Board(1, ("Ada: level=2 row=1 col=0 gold=0 moves=8",))

    # A new name is told at once, though the map did not change.
    await ada.send("HELLO Ada Lovelace\n")
    assert await ada.read_line() == "GOLD 1"
    assert await read_push(watcher, parser) == Board(
        1, ("Ada Lovelace: level=2 row=1 col=0 gold=0 moves=8",)
    )

    # A spectator that did not ask for the board gets VIEWs only, as before.
    lines: list[str] = []
    while len(lines) < 4 or not await nothing_received(plain):
        lines.append(await plain.read_line())
    assert not [line for line in lines if line.startswith(("BOARD", "LEVEL"))]
    assert lines[0].startswith("VIEW")


async def test_board_lines_tell_what_the_world_adds(start_game_server: StartGameServer) -> None:
    server = await start_game_server(world="battle", seed=3)
    watcher, ada = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await watcher.ask("EXTEND board events") == ["EXTENDED events board"]
    await watcher.ask("WATCH default")
    parser = ReplyParser()
    await read_push(watcher, parser)
    await read_push(watcher, parser)
    assert await ada.ask("HELLO Ada") == ["GOLD 3"]
    board = None
    while not isinstance(board, Board) or not board.players:
        board = await read_push(watcher, parser)
    assert board.players[0].startswith("Ada: level=1 row=")
    assert board.players[0].endswith(" ap=6 hp=3")


def test_a_level_larger_than_the_whole_map_limit_is_not_sent() -> None:
    small, large = ("..", ".."), ("." * 100,) * 100
    scene = Scene(((".",), small, large), 1, ())
    pushes = scene.pushes(max_bytes=1000)
    assert pushes == [LevelView(2, small), Board(1, ())]
    assert len(scene.pushes()) == 3
    # Only the levels that changed since a scene already sent are sent again.
    moved = Scene(((".",), ("P.", ".."), large), 1, ())
    assert moved.pushes(since=scene) == [LevelView(2, ("P.", "..")), Board(1, ())]
