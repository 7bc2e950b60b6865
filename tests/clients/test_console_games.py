"""The console games end quietly when their reader goes away or Ctrl-C is pressed."""

from __future__ import annotations

import io
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from commandline import BROKEN_PIPE_STATUS, INTERRUPTED_STATUS

from ..helpers import REPO
from ..limits import process_limit

BIN = Path(sys.executable).parent


@pytest.mark.parametrize(
    ("script", "answers"),
    [
        ("dod-crawler", b"tutorial 5\n" + b"sdsdsdsd\n" * 200),
        ("dod-baddies", b"15\n40\n50\n6\n2\n1\n" + b"w\n" * 200),
    ],
)
def test_a_reader_that_goes_away_ends_the_game_without_a_traceback(
    script: str, answers: bytes
) -> None:
    game = subprocess.Popen(
        [str(BIN / script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    # The default buffering makes stdout a BufferedReader, which can return what is there.
    assert isinstance(game.stdout, io.BufferedReader) and game.stdin is not None
    # The answers fit in the pipe; the game's output, two hundred boards, does not.
    game.stdin.write(answers)
    game.stdin.close()
    game.stdout.read1(100)
    game.stdout.close()  # like `dod-crawler | head -1`
    assert game.wait(timeout=process_limit()) in (0, BROKEN_PIPE_STATUS)
    assert game.stderr is not None
    assert b"Traceback" not in game.stderr.read()


def test_ctrl_c_ends_the_game_with_status_130() -> None:
    game = subprocess.Popen(
        [str(BIN / "dod-crawler")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert isinstance(game.stdout, io.BufferedReader)
    seen = b""
    while b"Please enter the dungeon name" not in seen:
        chunk = game.stdout.read1(4096)
        assert chunk, "the game ended before asking for a dungeon"
        seen += chunk
    game.send_signal(signal.SIGINT)
    # Standard input stays open until the game has ended: closing it first would race
    # the signal with the end of input, which ends the game normally (status 0).
    assert game.wait(timeout=process_limit()) == INTERRUPTED_STATUS
    _, errors = game.communicate(timeout=process_limit())
    assert b"Traceback" not in errors


# The crawler, asking for its dungeon, with a Ctrl-C that lands while Python runs a weak
# reference's callback (as a garbage collection between the prompt and the read of its
# answer may): Python drops an exception raised there, "Exception ignored".
CTRL_C_IN_A_CALLBACK = """
import os, signal, sys, weakref
from clients import crawler_console

def interrupted(_ref):
    os.kill(os.getpid(), signal.SIGINT)
    sum(range(1000))  # the handler runs here, inside the callback

class Garbage:
    pass

asked = crawler_console.Keyboard.word

def word(self):
    garbage = Garbage()
    ref = weakref.ref(garbage, interrupted)
    del garbage
    return asked(self)

crawler_console.Keyboard.word = word
sys.argv[0] = "dod-crawler"
sys.exit(crawler_console.main([]))
"""


def test_ctrl_c_that_lands_in_a_finalizer_still_ends_the_game() -> None:
    # Before: the KeyboardInterrupt was dropped and the game waited for its dungeon's
    # name for ever (its standard input stays open), as the Ctrl-C test above did once
    # in ten suite runs.
    game = subprocess.Popen(
        [sys.executable, "-c", CTRL_C_IN_A_CALLBACK],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    try:
        status = game.wait(timeout=process_limit())  # standard input left open
    except subprocess.TimeoutExpired:
        game.kill()
        _, errors = game.communicate()
        pytest.fail(f"the game ignored Ctrl-C: {errors.decode()}")
    _, errors = game.communicate()
    assert status == INTERRUPTED_STATUS
    assert errors.decode().strip() == "dod-crawler: interrupted"
