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
