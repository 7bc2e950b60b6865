"""A child that holds its parent's lifeline (:mod:`commandline.lifeline`) ends when its
parent ends, ``kill -9`` included: its own way first, and for certain after a grace."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from commandline import lifeline

from ..helpers import REPO

WAIT = 60.0

PARENT = """
import subprocess, sys
from commandline import lifeline
child = subprocess.Popen([sys.executable, "-c", sys.argv[1]], **lifeline.child_options())
print(child.pid, flush=True)
child.wait()
"""

CHILD = """
import signal, sys, time
from commandline import lifeline
if sys.argv[1:] == ["stubborn"]:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a child that will not stop its own way
print("held" if lifeline.hold(grace=0.2) else "none", flush=True)
while True:
    time.sleep(60)
"""


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return True


def _family(tmp_path: Path, *child_args: str) -> tuple[subprocess.Popen[str], int]:
    """A parent process and the pid of its child, which has said whether it holds a
    lifeline (the child's line comes through the parent's standard output)."""
    child = tmp_path / "child.py"
    child.write_text(CHILD)
    command = f"import sys, runpy; sys.argv = ['child', *{list(child_args)!r}]; "
    command += f"runpy.run_path({str(child)!r})"
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, command],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=tmp_path,
    )
    assert parent.stdout is not None
    pid = int(parent.stdout.readline())
    assert parent.stdout.readline() == "held\n"
    return parent, pid


@pytest.mark.parametrize("child", ["obliging", "stubborn"])
def test_a_child_ends_when_its_parent_is_killed(tmp_path: Path, child: str) -> None:
    parent, pid = _family(tmp_path, child)
    try:
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=WAIT)
        deadline = time.monotonic() + WAIT
        while not _gone(pid):
            assert time.monotonic() < deadline, f"the {child} child outlived its parent"
            time.sleep(0.01)
    finally:
        if not _gone(pid):
            os.kill(pid, signal.SIGKILL)


def test_a_stale_variable_names_no_lifeline(monkeypatch: pytest.MonkeyPatch) -> None:
    # A variable inherited past a program that did not hold it names some other file
    # (or none): nothing is watched, and nothing is ended.
    with open(os.devnull) as devnull:
        monkeypatch.setenv(lifeline.ENVIRONMENT, str(devnull.fileno()))
        assert not lifeline.hold()
    monkeypatch.setenv(lifeline.ENVIRONMENT, "not a number")
    assert not lifeline.hold()
    assert lifeline.ENVIRONMENT not in os.environ
