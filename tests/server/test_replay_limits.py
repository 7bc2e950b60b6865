"""Replays cannot be filled by anyone: no file for a game nobody played, a rate, a
retention, a bounded header for a huge board, and nothing acknowledged lost to SIGKILL."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import structlog
import trio
import trio.testing

from protocol.commands import Stay
from server.replay.format import TRUNCATED_RESERVE
from server.replay.reader import open_world, read_replay, rerun
from server.replay.shelf import ReplayShelf
from server.replay.writer import ReplayWriter
from worlds.api import PlayerKind
from worlds.registry import load_plugin

from ..conftest import WriteMap
from ..helpers import Peer, bound_port
from ..limits import process_limit
from .conftest import StartGameServer
from .test_cli import SCRIPT, _started
from .test_lobby_limits import room


async def _game(port: int, *commands: str) -> None:
    """One client plays ``commands`` in the default game, then quits."""
    peer = await Peer.connect(port)
    await peer.send("".join(f"{c}\n" for c in (*commands, "QUIT")))
    await peer.read_to_end()


async def test_a_game_nobody_acted_in_writes_no_replay(
    start_game_server: StartGameServer, replay_dir: Path
) -> None:
    server = await start_game_server(map="tiny", seed=1)
    for _ in range(50):  # HELLO/QUIT in a loop: before, a file each time
        await _game(bound_port(server), "HELLO")
    await trio.testing.wait_all_tasks_blocked()
    assert not replay_dir.exists() or not list(replay_dir.iterdir())
    await _game(bound_port(server), "HELLO", "MOVE W")
    await trio.testing.wait_all_tasks_blocked()
    (path,) = replay_dir.iterdir()
    records = read_replay(path).records
    player = records[0]["join"]
    assert records[0] == {"round": 0, "join": player, "kind": "P"}
    assert records[1] == {"round": 1, "actions": [[player, "MOVE W"]]}


async def test_new_replays_are_rate_limited(
    start_game_server: StartGameServer, replay_dir: Path
) -> None:
    server = await start_game_server(map="tiny", seed=1, replay_rate=0.001, replay_burst=3)
    with structlog.testing.capture_logs() as logs:
        for _ in range(20):
            await _game(bound_port(server), "MOVE W")
        await trio.testing.wait_all_tasks_blocked()
    assert len(list(replay_dir.iterdir())) == 3
    warnings = [e for e in logs if e["event"] == "replay not recorded: too many games start"]
    assert len(warnings) == 1, "one warning for a burst, not one per game"


async def test_old_replays_are_deleted_beyond_the_retention(
    start_game_server: StartGameServer, replay_dir: Path
) -> None:
    server = await start_game_server(map="tiny", seed=1, replay_keep=2)
    for number in range(5):
        await _game(bound_port(server), "HELLO", *["MOVE W"] * (number + 1))
    await trio.testing.wait_all_tasks_blocked()
    kept = sorted(replay_dir.iterdir())
    assert len(kept) == 2
    moves = sorted(len(read_replay(path).records) for path in kept)
    assert moves == [2 + 4 + 1, 2 + 5 + 1], "the two newest games: join, moves, leave, end"


async def test_a_huge_board_is_recorded_by_digest_not_copied(
    start_game_server: StartGameServer, replay_dir: Path, write_map: WriteMap
) -> None:
    path = write_map(room(40))
    server = await start_game_server(map=path, seed=1, max_map_bytes=1024)
    await _game(bound_port(server), "MOVE W", "MOVE N")
    await trio.testing.wait_all_tasks_blocked()
    (file,) = replay_dir.iterdir()
    assert file.stat().st_size < 1024, "the 1640-byte board is not in the replay"
    replay = read_replay(file)
    assert "view" not in replay.header and "map_files" not in replay.header
    assert len(replay.header["view_sha256"]) == 64
    world = open_world(replay, load_plugin("classic"))  # checked against the digest
    assert len([step for step in rerun(replay, world) if "actions" in step.record]) == 2


async def test_sigkill_loses_no_acknowledged_action(tmp_path: Path) -> None:
    board = tmp_path / "room.map"
    board.write_text(room(12))
    replays = tmp_path / "replays"
    process = await trio.lowlevel.open_process(
        [SCRIPT, "--port", "0", "--map", str(board), "--replay-dir", str(replays)],
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    try:
        port, _ = await _started(process)
        peer = await Peer.connect(port)
        assert await peer.ask("HELLO") == ["GOLD 0"]
        answered = 0
        for step in range(40):
            reply = await peer.ask("MOVE E" if step % 2 else "MOVE W")
            assert reply[0] in ("SUCCESS", "FAIL")
            answered += 1
        process.send_signal(signal.SIGKILL)
        with trio.fail_after(process_limit()):
            assert await process.wait() == -signal.SIGKILL
    finally:
        process.kill()
    (path,) = replays.iterdir()
    replay = read_replay(path)
    actions = [record for record in replay.records if "actions" in record]
    assert len(actions) == answered == 40
    assert "end" not in replay.records[-1], "killed: no end record, nothing else missing"


async def test_a_live_replay_stops_at_its_cap_and_the_game_plays_on(
    start_game_server: StartGameServer, replay_dir: Path
) -> None:
    server = await start_game_server(map="tiny", seed=1, max_replay_bytes=4096)
    peer = await Peer.connect(bound_port(server))
    assert (await peer.ask("HELLO"))[0].startswith("GOLD")
    with structlog.testing.capture_logs() as logs:
        for step in range(300):  # about 35 bytes a move: 10 KB unbounded
            reply = await peer.ask("MOVE E" if step % 2 else "MOVE W")
            assert reply[0] in ("SUCCESS", "FAIL"), "the game plays on past the cap"
    (path,) = replay_dir.iterdir()
    assert path.stat().st_size <= 4096
    replay = read_replay(path)
    last = replay.records[-1]
    assert "the replay reached its limit of 4096 bytes" in last["truncated"]
    actions = [record for record in replay.records if "actions" in record]
    assert 50 < len(actions) < 300
    assert last["round"] == len(actions) + 1, "the first round not recorded"
    world = open_world(replay, load_plugin("classic"))
    assert len(list(rerun(replay, world))) == len(replay.records)
    truncated = [e for e in logs if e["event"] == "replay truncated"]
    assert len(truncated) == 1 and truncated[0]["path"] == path.name
    await peer.send("QUIT\n")
    await peer.read_to_end()
    assert read_replay(path).records[-1] == last, "nothing after the truncated line"


async def test_live_replays_count_against_the_folder_bytes(
    start_game_server: StartGameServer, replay_dir: Path
) -> None:
    server = await start_game_server(map="tiny", seed=1, replay_keep_bytes=6000)
    for _ in range(4):  # finished replays of about 1 KB each
        await _game(bound_port(server), "HELLO", *["MOVE W"] * 20)
    assert len(list(replay_dir.iterdir())) == 4
    peer = await Peer.connect(bound_port(server))
    assert (await peer.ask("HELLO"))[0].startswith("GOLD")
    for step in range(400):
        await peer.ask("MOVE E" if step % 2 else "MOVE W")
        total = sum(path.stat().st_size for path in replay_dir.iterdir())
        assert total <= 6000, f"after move {step}: {total} bytes in the folder"
    (live,) = replay_dir.iterdir()  # the finished ones made room for it, then it stopped
    assert "--replay-keep-bytes" in read_replay(live).records[-1]["truncated"]


def test_replays_being_written_together_stay_within_the_folder_bytes(tmp_path: Path) -> None:
    shelf = ReplayShelf(tmp_path, keep_bytes=8192, max_bytes=6000)
    header = {"replay": 1, "game": "g"}
    writers = [ReplayWriter(shelf, dict(header)) for _ in range(2)]
    for round_number in range(1, 200):
        for writer in writers:
            writer.action(round_number, 1, Stay())
            writer.flush()
    sizes = [path.stat().st_size for path in tmp_path.iterdir()]
    assert sum(sizes) <= 8192
    reasons = sorted(str(writer.truncated) for writer in writers)
    assert "--replay-keep-bytes" in reasons[0] or "--replay-keep-bytes" in reasons[1]
    assert shelf.live_bytes == 0, "both files closed when they stopped"


def test_records_before_the_first_action_are_held_to_the_cap_too(tmp_path: Path) -> None:
    """Joins and leaves wait in memory until the first action makes the file: a client
    that joins and leaves for ever beside an idle player cannot grow them without end."""
    shelf = ReplayShelf(tmp_path, max_bytes=4096)
    writer = ReplayWriter(shelf, {"replay": 1, "game": "g"})
    with structlog.testing.capture_logs() as logs:
        for player in range(2, 2000):
            writer.join(0, player, PlayerKind.HUMAN)
            writer.leave(0, player, "quit")
    assert sum(map(len, writer._early)) <= 4096
    assert [e["event"] for e in logs] == ["replay not recorded"]
    writer.action(1, 1, Stay())
    writer.close(1, "all players left")
    assert not list(tmp_path.iterdir()), "a game whose start was not kept is not recorded"


def test_a_file_opened_later_lowers_what_the_others_may_still_write(tmp_path: Path) -> None:
    """The shelf answers a flush within every limit by two comparisons (issue 31); a
    second live file takes its reserve from what the first may still write, at once."""
    shelf = ReplayShelf(tmp_path, keep_bytes=8192, max_bytes=None)
    first = ReplayWriter(shelf, {"replay": 1, "game": "a"})
    first.action(1, 1, Stay())
    first.flush()
    assert first.path is not None
    room = 8192 - TRUNCATED_RESERVE - shelf.live_bytes  # alone, it may write this much
    assert shelf.refusal(first.path, room) is None
    second = ReplayWriter(shelf, {"replay": 1, "game": "b"})
    second.action(1, 1, Stay())
    second.flush()
    # Now both reserves are kept back, and the first file's own bytes count.
    assert shelf.refusal(first.path, room) is not None
    assert "--replay-keep-bytes" in str(shelf.refusal(first.path, room))
    assert shelf.refusal(first.path, 10) is None
    second.close(1, "all players left")
    assert shelf.refusal(first.path, 10) is None
