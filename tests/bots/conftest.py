from __future__ import annotations

import sys
from dataclasses import dataclass

import trio

from bots.result import BotResult, parse_line

from ..helpers import REPO
from ..limits import process_limit


def bot_limit() -> float:
    """Seconds a launch of a few bots may take: their starts (a launcher and three
    bots) and a few seconds of play each, scaled by the machine's load now."""
    return process_limit(starts=4, work=3)


@dataclass
class Finished:
    returncode: int
    stdout: str
    stderr: str

    @property
    def result(self) -> BotResult:
        """The bot's result: the last line it printed."""
        report = parse_line(self.stdout.splitlines()[-1])
        assert isinstance(report, BotResult), self.stdout + self.stderr
        return report


async def run_module(module: str, *args: str) -> Finished:
    """Run ``python -m <module> <args>`` to its end, as its own process."""
    with trio.fail_after(bot_limit()):
        process = await trio.run_process(
            [sys.executable, "-m", module, *args],
            capture_stdout=True,
            capture_stderr=True,
            check=False,
            cwd=REPO,
        )
    return Finished(process.returncode, process.stdout.decode(), process.stderr.decode())
