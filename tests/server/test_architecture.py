"""docs/architecture.md draws the path a command really takes: a real server is traced
through one ``MOVE`` and one ``LOOK``, and the modules each passes through, in the order
it first enters them, must be the list the page states in its ``trace`` blocks; the
page's drawing must name them in that order too. A change of the path that the page does
not follow fails here.

The server runs on a frozen clock (trio's :class:`~trio.testing.MockClock`, rate 0), so
that no timer of its own (the watchdog, a game's flush) runs while a command is traced.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import trio
import trio.testing

from server.app import Server
from server.setup.config import ServerConfig

from ..helpers import REPO, Peer

PAGE = REPO / "docs" / "architecture.md"
TRACED = ("server", "protocol", "worlds")
"""The packages whose modules a trace records (not the libraries under them)."""


def stated(kind: str) -> list[str]:
    """The modules docs/architecture.md says a ``kind`` command passes through."""
    found = re.search(rf"```trace {kind}\n(.*?)```", PAGE.read_text(), re.DOTALL)
    assert found is not None, f"docs/architecture.md has no ```trace {kind} block"
    return found.group(1).split()


def drawn() -> list[str]:
    """The modules the page's drawing names, in its order (its first code block)."""
    found = re.search(r"```\n(.*?)```", PAGE.read_text(), re.DOTALL)
    assert found is not None
    return re.findall(r"(?:server|protocol|worlds)/[\w/]+\.py", found.group(1))


class Trace:
    """The modules entered while it is on, each once, in the order first entered."""

    def __init__(self) -> None:
        self.modules: list[str] = []

    def _profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        path = Path(frame.f_code.co_filename)
        if not path.is_relative_to(REPO):
            return
        module = path.relative_to(REPO).as_posix()
        if module.split("/")[0] in TRACED and module not in self.modules:
            self.modules.append(module)

    def __enter__(self) -> Trace:
        sys.setprofile(self._profile)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.setprofile(None)


async def _traced(peer: Peer, line: str) -> list[str]:
    """The modules the server passes through answering ``line``."""
    with Trace() as trace:
        await peer.ask(line)
    return trace.modules


async def test_the_page_draws_the_path_of_a_move_and_a_look(
    mock_clock: trio.testing.MockClock, nursery: trio.Nursery, tmp_path: Path
) -> None:
    # A 2013 client in the classic world, replays on (as `make run` serves), on the tiny
    # map ("#G.E#"): the player steps east and back west.
    server = Server(ServerConfig(port=0, map="tiny", seed=1, replay_dir=tmp_path, db=None))
    await nursery.start(server.run)
    assert server.port is not None
    peer = await Peer.connect(server.port)
    await peer.ask("LOOK")  # joined
    assert await peer.ask("MOVE E") == ["SUCCESS"]  # the replay's file is made here
    move = await _traced(peer, "MOVE W")
    look = await _traced(peer, "LOOK")
    assert move == stated("MOVE"), "docs/architecture.md's ```trace MOVE block"
    assert look == stated("LOOK"), "docs/architecture.md's ```trace LOOK block"
    names = drawn()
    positions = [names.index(module) for module in move if module in names]
    assert len(positions) == len(move), f"the drawing misses {set(move) - set(names)}"
    assert positions == sorted(positions), "the drawing names them in the order they come"
    await peer.aclose()
    server.shutdown()
