"""The profile's LOOK table: samples grouped by the deepest frame a group names."""

from __future__ import annotations

from pathlib import Path

from bench import profile

_LOOP = 'process 1:"python -m server";run (trio/_core/_run.py:1);Poller._serve (server/poller.py:9)'
_READ = (
    "Transport.take_input (server/transport.py:3);os_read (libpython3.11.so.1.0);read (libc.so.6)"
)
_GAME = "Game.handle (server/game.py:5)"
_VIEW = "look_window_bytes (worlds/classic/view.py:7)"
_WAIT = "get_events (trio/_io_epoll.py:4);epoll_wait (libc.so.6)"
RAW = "\n".join(
    [
        f"{_LOOP};{_READ} 30",
        f"{_LOOP};{_GAME};{_VIEW} 10",
        f"{_LOOP};{_GAME} 10",
        f'process 1:"python -m dungeon_of_doom.server";run (trio/_core/_run.py:1);{_WAIT} 50',
        "thread 2;WorkerThread._work (trio/_core/_thread_cache.py:8);acquire (libc.so.6) 99",
    ]
)


def test_samples_go_to_the_deepest_group_and_idle_is_left_out(tmp_path: Path) -> None:
    raw = tmp_path / "look.raw"
    raw.write_text(RAW)
    counts = profile.grouped(raw)
    assert counts == {
        "read system call": 30,
        "the view (look_window_bytes)": 10,
        "the game (handle, _look, _look_reply)": 10,
        profile.IDLE_GROUP: 50,
    }
    table = profile.grouped_table(raw, microseconds_per_command=10.0)
    # 50 busy samples: the read is 60 % of them, 6 of the command's 10 µs.
    assert "| read system call | 60.0% | 6.00 |" in table
    assert "| the view (look_window_bytes) | 20.0% | 2.00 |" in table
    assert "50 samples, left out" in table
