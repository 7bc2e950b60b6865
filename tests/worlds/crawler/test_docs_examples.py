"""docs/worlds/crawler.md's worked examples, each level played against a real server and
its transcript compared line for line (issue 40): what a monster destroys, what blocks
its sight, what the copies hold after an amulet."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ...conftest import StartServer, WriteMap
from ...helpers import Peer, bound_port

DOC = Path(__file__).parents[3] / "docs" / "worlds" / "crawler.md"
BLOCK = re.compile(r"<!-- (level|transcript): (\w+) -->\n```\n(.*?)```", re.DOTALL)


def _examples() -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for kind, name, text in BLOCK.findall(DOC.read_text()):
        found.setdefault(name, {})[kind] = text
    return found


def test_the_doc_holds_the_three_examples() -> None:
    examples = _examples()
    assert set(examples) == {"destroy", "sight", "double"}
    assert all(set(example) == {"level", "transcript"} for example in examples.values())


@pytest.mark.parametrize("name", ["destroy", "sight", "double"])
async def test_a_worked_example_is_what_the_world_does(
    start_server: StartServer, write_map: WriteMap, name: str
) -> None:
    example = _examples()[name]
    server = await start_server(world="crawler", map=write_map(example["level"], ".txt"))
    peer = await Peer.connect(bound_port(server))
    for line in example["transcript"].splitlines():
        if line.startswith("> "):
            await peer.send(line[2:] + "\n")
        else:
            assert await peer.read_line() == line
