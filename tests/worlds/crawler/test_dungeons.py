"""Dungeons: how the map option names them, the sample dungeons, and ours being solvable."""

from __future__ import annotations

from collections import deque
from pathlib import Path

import pytest

from dungeon_of_doom.worlds.crawler import Command, Outcome, State, open_dungeon, plugin
from dungeon_of_doom.worlds.errors import MapError
from dungeon_of_doom.worlds.registry import load_plugin

KEYS = "wsade"  # Command order: up, down, left, right, stay
COMMANDS = dict(zip(KEYS, Command, strict=True))


def shortest_escape(state: State, limit: int = 200_000) -> str | None:
    """Breadth-first search over the rules' own states: the fewest keys to escape."""
    seen = {state.key()}
    queue = deque([(state, "")])
    while queue:
        current, keys = queue.popleft()
        for command, key in zip(Command, KEYS, strict=True):
            after = current.copy()
            after.step(command)
            if after.outcome is Outcome.ESCAPED:
                return keys + key
            if after.outcome is None and after.key() not in seen:
                seen.add(after.key())
                queue.append((after, keys + key))
        assert len(seen) < limit, "the search grew beyond its budget"
    return None


def test_the_plugin_is_registered_and_lists_the_shipped_dungeons() -> None:
    assert load_plugin("crawler") is plugin
    assert plugin.maps() == ["easy", "hard", "tutorial"]
    world = plugin.open(None, seed=3)
    assert [level.source for level in world.dungeon.levels] == [
        f"maps/crawler/tutorial{n}.txt" for n in range(1, 6)
    ]


@pytest.mark.parametrize(("name", "moves"), [("tutorial", 28), ("easy", 22), ("hard", 47)])
def test_each_shipped_dungeon_is_solvable(name: str, moves: int) -> None:
    dungeon = open_dungeon(name)
    keys = shortest_escape(State(dungeon.levels))
    assert keys is not None and len(keys) == moves
    replay = State(dungeon.levels)
    for key in keys:
        replay.step(COMMANDS[key])
    assert replay.outcome is Outcome.ESCAPED and replay.treasure >= 1


def test_the_tutorial_levels_teach_one_rule_each() -> None:
    levels = open_dungeon("tutorial").levels
    tiles = [set(level.tiles.decode()) for level in levels]
    assert tiles[0] == {"-", "+", "?"}
    assert "$" in tiles[1] and "M" not in tiles[1]
    assert "M" in tiles[2] and "@" not in tiles[2]
    assert "@" in tiles[3]
    assert "!" in tiles[4] and "?" not in tiles[4]


def test_map_option_forms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for number in (1, 2, 3):
        (tmp_path / f"cave{number}.txt").write_text(f"1 2\n0 0\n- {'?' if number < 3 else '!'}")
    prefix = str(tmp_path / "cave")
    assert len(open_dungeon(prefix).levels) == 3
    assert len(open_dungeon(f"{prefix}:2").levels) == 2
    single = open_dungeon(str(tmp_path / "cave3.txt"))
    assert (single.name, len(single.levels)) == ("cave3", 1)
    assert len(open_dungeon("easy:1").levels) == 1
    with pytest.raises(MapError, match=r"cave4\.txt: no such level file"):
        open_dungeon(f"{prefix}:4")
    with pytest.raises(MapError, match=r"a shipped crawler dungeon \(easy, hard, tutorial\)"):
        open_dungeon(str(tmp_path / "nothing"))
    with pytest.raises(MapError, match="at least 1 level"):
        open_dungeon(f"{prefix}:0")
    (tmp_path / "cave2.txt").write_text("1 2\n0 0\n- x")
    with pytest.raises(MapError, match=r"cave2\.txt:3:3: unknown tile 'x'"):
        open_dungeon(prefix)


def test_the_sample_tutorial_escapes_in_16_moves_as_in_the_seed(compat: Path) -> None:
    dungeon = open_dungeon(str(compat / "crawler-levels" / "tutorial"))
    assert len(dungeon.levels) == 4
    state = State(dungeon.levels)
    keys = "ssd" + "dwdd" + "ssd" + "sssddw"
    for key in keys:
        state.step(COMMANDS[key])
    assert (state.outcome, state.treasure, state.moves) == (Outcome.ESCAPED, 1, 16)
    assert shortest_escape(State(dungeon.levels)) is not None


def test_the_sample_easy_and_hard_dungeons_load_and_play(compat: Path) -> None:
    folder = compat / "crawler-levels"
    assert len(open_dungeon(f"{folder / 'hard'}:3").levels) == 3
    state = State(open_dungeon(f"{folder / 'easy'}:2").levels)
    for key in "wawwdassssddddssaaaaaas":
        state.step(COMMANDS[key])
    assert (state.outcome, state.moves) == (Outcome.ESCAPED, 23)
