"""``dod-play`` as a person runs it: a real process on a pseudo-terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time

import trio

from ..conftest import StartServer
from ..helpers import bound_port
from ..limits import process_limit
from .conftest import closed_port


class Terminal:
    """``python -m clients.terminal`` on a 100×30 pseudo-terminal; everything it writes is kept."""

    def __init__(self, *args: str) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        env = dict(os.environ, TERM="xterm-256color", COLUMNS="100", LINES="30")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "clients.terminal", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.master = master
        self.output = b""
        # Its start (Textual's import the most of it) and a screen or two of play.
        self.deadline = time.monotonic() + process_limit(work=2)

    def read_until(self, text: bytes) -> None:
        """Read until ``text`` has been written (fails at the deadline or at the end)."""
        while text not in self.output:
            if not self._read():
                raise AssertionError(f"{text!r} never came; got {self.output[-400:]!r}")

    def _read(self) -> bool:
        left = self.deadline - time.monotonic()
        if left <= 0 or not select.select([self.master], [], [], left)[0]:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:  # the process has gone and closed its side
            return False
        self.output += data
        return bool(data)

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def finish(self) -> int:
        """Read to the end; the exit status."""
        while self._read():
            pass
        os.close(self.master)
        try:
            return self.process.wait(timeout=max(self.deadline - time.monotonic(), 1))
        except subprocess.TimeoutExpired:
            # Left running, a client whose terminal is gone spun a core for the rest of
            # the run (its input thread reading end-of-file over and over).
            self.process.kill()
            self.process.wait()
            raise


def _unreachable(port: int) -> tuple[int, bytes]:
    terminal = Terminal("--port", str(port))
    return terminal.finish(), terminal.output


async def test_unreachable_server_prints_one_line_and_no_traceback() -> None:
    with closed_port() as port:
        status, output = await trio.to_thread.run_sync(_unreachable, port)
    assert status == 1
    assert f"dod-play: cannot connect to 127.0.0.1:{port}: connection refused".encode() in output
    assert b"Traceback" not in output


def _play_and_quit(port: int) -> tuple[int, bytes]:
    terminal = Terminal("--port", str(port), "--name", "Ada")
    terminal.read_until(b"you: Ada")
    terminal.type(b"q")
    terminal.read_until(b"Leave the game?")
    terminal.type(b"y")
    return terminal.finish(), terminal.output


async def test_quit_on_a_real_terminal(start_server: StartServer) -> None:
    server = await start_server(map="tiny", seed=1)
    status, output = await trio.to_thread.run_sync(_play_and_quit, bound_port(server))
    assert status == 0
    assert b"dod-play: BYE Thanks for playing." in output
    assert b"Traceback" not in output


def test_without_a_terminal_it_says_so_and_exits() -> None:
    with closed_port() as port:
        finished = subprocess.run(
            [sys.executable, "-m", "clients.terminal", "--port", str(port)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=process_limit(),
            check=False,
        )
    assert finished.returncode == 2
    assert b"must be a terminal" in finished.stderr
    assert b"Traceback" not in finished.stderr
