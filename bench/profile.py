"""Sampling a running server with py-spy, and the top functions of what it saw.

:func:`record` attaches ``py-spy record`` to a process for a while and writes its
raw output (one collapsed stack per line, with a sample count); :func:`summary`
reads that file back as the functions that cost the most, by samples spent in the
function itself (``self``) and in it or anything it called (``total``). Either
needs ``py-spy`` (``pip install -e '.[bench]'``); nothing else in :mod:`bench`
does.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

_FRAME = re.compile(r"^(?P<function>.*?) \((?P<file>[^()]*?)(?::\d+)?\)$")


def py_spy() -> str:
    """The py-spy executable, next to this interpreter or on the path."""
    beside = Path(sys.executable).with_name("py-spy")
    found = str(beside) if beside.exists() else shutil.which("py-spy")
    if found is None:
        raise SystemExit("py-spy is not installed: pip install -e '.[bench]'")
    return found


def record(
    pid: int, output: Path, duration: float, rate: int = 200, native: bool = False
) -> subprocess.Popen[bytes]:
    """Start sampling ``pid`` for ``duration`` seconds into ``output`` (raw format);
    ``native`` adds the C functions under the Python ones (the system calls, the
    interpreter's own work)."""
    return subprocess.Popen(
        [
            py_spy(),
            "record",
            *(["--native"] if native else []),
            "--pid",
            str(pid),
            "--duration",
            str(max(1, round(duration))),
            "--rate",
            str(rate),
            "--format",
            "raw",
            "--output",
            str(output),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _name(frame: str) -> str:
    """``function (path/to/file.py:12)`` as ``file.py:function``, short enough for a table."""
    match = _FRAME.match(frame)
    if match is None:
        return frame
    return f"{Path(match['file']).name}:{match['function']}"


def summary(raw: Path, top: int = 15) -> tuple[int, list[tuple[str, float, float]]]:
    """The samples taken, and the ``top`` functions as (name, self %, total %) by self."""
    own: Counter[str] = Counter()
    total: Counter[str] = Counter()
    samples = 0
    for line in raw.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [_name(frame) for frame in stack.split(";")]
        # The first frame is the thread ("process 12:"); the last is where the sample fell.
        frames = [f for f in frames if not f.startswith(("process ", "thread "))]
        if not frames:
            continue
        samples += count
        own[frames[-1]] += count
        for name in set(frames):
            total[name] += count
    if not samples:
        return 0, []
    rows = [
        (name, 100 * count / samples, 100 * total[name] / samples)
        for name, count in own.most_common(top)
    ]
    return samples, rows


def table(raw: Path, top: int = 15) -> str:
    """:func:`summary` as lines of text."""
    samples, rows = summary(raw, top)
    lines = [f"profile: {samples} samples   self %  total %  function"]
    lines += [f"  {own:22.1f}  {total:7.1f}  {name}" for name, own, total in rows]
    return "\n".join(lines)


LOOK_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("waiting in epoll_wait (idle)", (":epoll_wait",)),
    ("read system call", (":os_read",)),
    ("write system call", (":os_write",)),
    ("trio's run loop, wait_readable", ("_run.py:unrolled_run",)),
    ("the poller's round", ("poller.py:Poller._serve",)),
    (
        "the transport's own work",
        ("transport.py:Transport.take_input", "transport.py:Transport.write_out"),
    ),
    ("the view (look_window_bytes)", ("view.py:look_window_bytes",)),
    ("the game (handle, _look, _look_reply)", ("game.py:Game.handle",)),
    (
        "the reply rendered and queued",
        (
            "mailbox.py:Mailbox.send",
            "connection.py:ServerProtocol.send",
            "mailbox.py:Mailbox.events",
        ),
    ),
    (
        "the command loop",
        ("fast_path.py:FastPath.handle_input", "client.py:Connection.handle_input"),
    ),
    ("the reply built", ("world.py:ClassicWorld.look_bytes", "replies.py:_DrawnLook.to_bytes")),
    (
        "parsing",
        (
            "connection.py:ServerProtocol.next_event",
            "client.py:Connection.data_received",
            "connection.py:ServerProtocol.events",
            "connection.py:_kind",
            "framing.py:LineFramer.next_event",
        ),
    ),
    ("settling (the replay's flush)", ("shelf.py:ReplayShelf.flush",)),
    ("the turn check", ("game.py:Game._look_waits_for_turn",)),
    ("the lobby's routing", ("lobby.py:Lobby.command",)),
)
"""The groups of docs/performance.md's "where each microsecond of a LOOK goes": a sample
belongs to the group of the deepest frame on its stack whose ``file:function`` ends with
one of these (a native frame's file is its library, which differs between Pythons)."""

IDLE_GROUP = LOOK_GROUPS[0][0]


def grouped(
    raw: Path, groups: tuple[tuple[str, tuple[str, ...]], ...] = LOOK_GROUPS
) -> Counter[str]:
    """Samples of the server's main thread by group (``other`` for none); the samples of
    trio's worker threads (idle, in the records store's thread cache) are left out."""
    counts: Counter[str] = Counter()
    for line in raw.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        frames = [_name(f) for f in stack.split(";") if not f.startswith(("process ", "thread "))]
        if not frames or "_thread_cache.py:WorkerThread._work" in frames:
            continue
        best, deepest = "other", -1
        for depth, frame in enumerate(frames):
            for group, names in groups:
                if depth > deepest and frame.endswith(names):
                    best, deepest = group, depth
        counts[best] += int(count_text)
    return counts


def grouped_table(raw: Path, microseconds_per_command: float) -> str:
    """:func:`grouped` as a Markdown table, the busy samples' shares turned into
    microseconds of ``microseconds_per_command`` (the CPU cost of one command)."""
    counts = grouped(raw)
    busy = sum(counts.values()) - counts[IDLE_GROUP]
    rows = ["| where | share | µs per command |", "|---|---|---|"]
    for group, count in counts.most_common():
        if group == IDLE_GROUP or not busy:
            continue
        share = count / busy
        rows.append(f"| {group} | {share:.1%} | {share * microseconds_per_command:.2f} |")
    rows.append(f"| ({IDLE_GROUP}: {counts[IDLE_GROUP]} samples, left out) | | |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m bench.profile",
        description="a py-spy raw profile of LOOKs as docs/performance.md's table",
    )
    parser.add_argument("raw", type=Path, help="from bench.load --profile FILE --profile-native")
    parser.add_argument(
        "--replies-per-cpu-second",
        type=float,
        required=True,
        help="the game's, from the same bench.load run",
    )
    args = parser.parse_args(argv)
    print(grouped_table(args.raw, 1e6 / args.replies_per_cpu_second))


if __name__ == "__main__":
    main()
