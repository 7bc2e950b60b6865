"""The twenty-line bot of docs/bots.md, exactly as written there, plays to a win."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import trio

from ..conftest import StartServer
from ..helpers import REPO
from .conftest import bot_limit


def example_bot() -> str:
    text = (REPO / "docs" / "bots.md").read_text()
    section = text.split("## A bot in twenty lines", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match is not None
    return match[1]


async def test_the_documented_bot_wins_the_tiny_map(
    start_server: StartServer, tmp_path: Path
) -> None:
    code = example_bot()
    assert len(code.splitlines()) <= 25
    script = tmp_path / "greedy.py"
    script.write_text(code)
    server = await start_server(map="tiny", seed=1)
    with trio.fail_after(bot_limit()):
        finished = await trio.run_process(
            [sys.executable, str(script), str(server.port)], capture_stdout=True, check=False
        )
    assert finished.returncode == 0
    assert re.fullmatch(
        rb"server closed: WIN You escaped the dungeon with 1 gold in \d+ moves\.\n",
        finished.stdout,
    )
