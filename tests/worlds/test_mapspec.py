"""The ``generated`` map spec, the classic plugin reading it, and a server hosting one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mapgen import Settings, generate
from worlds.classic import plugin
from worlds.classic.generated import to_classic
from worlds.errors import MapError
from worlds.mapspec import generated_spec as parse_spec

from ..conftest import StartServer
from ..helpers import Peer, bound_port
from ..limits import process_limit


@pytest.mark.parametrize(
    ("spec", "seed", "settings"),
    [
        ("generated", 42, Settings()),
        ("generated:", 42, Settings()),
        ("generated:7", 7, Settings()),
        ("Generated: 7 ", 7, Settings()),
        ("generated:seed=7,width=120,height=40", 7, Settings(width=120, height=40)),
        ("generated:width=60,rooms=9", 42, Settings(width=60, rooms=9)),
        (
            "generated:3,room-width=3-8,room-height=2,winding=2.5,loops=0",
            3,
            Settings(room_width=(3, 8), room_height=(2, 2), winding=2.5, loops=0),
        ),
    ],
)
def test_specs_name_a_seed_and_settings(spec: str, seed: int, settings: Settings) -> None:
    parsed = parse_spec(spec, default_seed=42)
    assert parsed is not None
    assert (parsed.seed, parsed.settings) == (seed, settings)


def test_levels_only_where_the_world_has_levels() -> None:
    parsed = parse_spec("generated:4,levels=2", with_levels=True)
    assert parsed is not None and (parsed.seed, parsed.levels) == (4, 2)
    unset = parse_spec("generated:4", with_levels=True)
    assert unset is not None and unset.levels is None
    with pytest.raises(MapError, match="levels is only for worlds of several levels"):
        parse_spec("generated:4,levels=2")
    with pytest.raises(MapError, match="at least 1 level, not 0"):
        parse_spec("generated:levels=0", with_levels=True)
    with pytest.raises(MapError, match="levels must be a whole number"):
        parse_spec("generated:levels=many", with_levels=True)


@pytest.mark.parametrize("spec", [None, "default", "maps/x.map", "generated.map", "gen:7"])
def test_other_specs_are_not_this_syntax(spec: str | None) -> None:
    assert parse_spec(spec) is None


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("generated:x", "seed must be a whole number, not 'x'"),
        ("generated:width=wide", "width must be a whole number"),
        ("generated:loops=some", "loops must be a number"),
        ("generated:depth=3", "unknown setting 'depth'; settings are seed, width"),
        ("generated:7,seed=8", "seed is given twice"),
        ("generated:room-width=2-4", "room width must be at least 3"),
        ("generated:room-height=a-b", "expected a size or a range"),
        ("generated:width=12,height=8", "cannot fit"),
    ],
)
def test_bad_specs_are_map_errors_naming_the_spec(spec: str, reason: str) -> None:
    with pytest.raises(MapError) as caught:
        parse_spec(spec)
    assert caught.value.source == spec
    assert reason in caught.value.reason


def test_a_spec_whose_seed_cannot_place_five_rooms_is_a_map_error() -> None:
    parsed = parse_spec("generated:width=21,height=8")
    assert parsed is not None
    with pytest.raises(MapError, match="only 4 rooms"):
        parsed.generate()


def test_the_classic_plugin_loads_a_generated_map() -> None:
    loaded = plugin.load_map("generated:seed=7,width=60,height=20")
    assert loaded == to_classic(generate(7, Settings(width=60, height=20)), seed=7)


def test_without_a_seed_the_game_seed_names_the_dungeon() -> None:
    assert plugin.load_map("generated", seed=5) == plugin.load_map("generated:5")
    assert plugin.open("generated", seed=5).map == plugin.load_map("generated:5")
    assert plugin.load_map("generated", seed=6) != plugin.load_map("generated:5")


def test_the_server_command_reports_a_bad_spec() -> None:
    result = subprocess.run(
        [str(Path(sys.executable).with_name("dod-server")), "--map", "generated:rooms=3"],
        capture_output=True,
        text=True,
        timeout=process_limit(),
    )
    assert result.returncode == 2
    assert "generated:rooms=3: a dungeon needs at least 5 rooms" in result.stderr


async def test_a_server_on_a_generated_dungeon_answers_look(start_server: StartServer) -> None:
    spec = "generated:seed=7,width=60,height=20"
    expected = to_classic(generate(7, Settings(width=60, height=20)), seed=7)
    server = await start_server(map=spec, seed=3)
    peer = await Peer.connect(bound_port(server))
    assert await peer.ask("HELLO") == [f"GOLD {expected.goal}"]
    look = await peer.ask("LOOK")
    assert look[0] == "LOOKREPLY"
    assert [len(row) for row in look[1:]] == [5] * 5
    assert look[1][0] == look[1][4] == look[5][0] == look[5][4] == "X"
    rows = (await peer.ask("MAP"))[1:]
    ((r, c),) = [(r, c) for r, row in enumerate(rows) for c, t in enumerate(row) if t == "@"]
    assert rows[r][:c] + expected.rows[r][c] + rows[r][c + 1 :] == expected.rows[r]
    assert rows[:r] + rows[r + 1 :] == list(expected.rows[:r] + expected.rows[r + 1 :])
    assert look[3][2] == expected.rows[r][c], "the centre shows the tile under the player"
    await peer.aclose()
