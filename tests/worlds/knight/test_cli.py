"""The dod-knight command: what it prints, what it saves, and how it fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from dungeon_of_doom.worlds.knight.cli import main
from dungeon_of_doom.worlds.knight.dungeon_master import generate
from dungeon_of_doom.worlds.knight.grid import read_grid


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_the_example_is_solved_and_drawn(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "example")
    lines = out.splitlines()
    assert status == 0
    assert lines[0] == "grid: example, 3 x 3"
    assert lines[1] == "least starting health: 7"
    assert lines[2].startswith("path (bottom-up, ") and lines[2].endswith(" s): EESS")
    assert lines[3] == "lowest health on the way: 1 at (2, 2); health at the end: 1"
    assert lines[5:] == [" [-2] [-3]  [3]", "  -5  -10   [1]", "  10   30  [-5]"]


def test_compare_times_all_four(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "greedy", "--compare", "--no-grid")
    table = out.split("\n\n")[-1].splitlines()
    assert status == 0
    assert table[0].split() == ["algorithm", "health", "path", "seconds"]
    assert [row.split()[:3] for row in table[1:]] == [
        [name, "12", "ok"] for name in ("recursive", "memoised", "bottom-up", "binary-search")
    ]


def test_compare_skips_plain_recursion_on_big_grids(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "30x30", "--compare")
    assert status == 0
    assert "recursive      skipped: it would take 1.2e+17 calls" in out


def test_only_small_grids_are_drawn_unless_asked(capsys: pytest.CaptureFixture[str]) -> None:
    assert "[" in run(capsys, "100x100")[1]
    assert "[" not in run(capsys, "101x100")[1]
    assert "[" in run(capsys, "101x100", "--grid")[1]
    assert "[" not in run(capsys, "example", "--no-grid")[1]


def test_a_generated_grid_is_saved_and_reloads(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "g.txt"
    status, out, _ = run(
        capsys, "6x7,range=-9..5", "--seed", "3", "--save", str(target), "--algorithm", "memoised"
    )
    assert status == 0
    assert out.startswith("grid: 6x7,range=-9..5,seed=3, 6 x 7\n")
    assert read_grid(target) == generate(6, 7, low=-9, high=5, seed=3)
    assert target.read_text().startswith("# 6 x 7: 6x7,range=-9..5,seed=3\n")
    assert run(capsys, str(target))[1].splitlines()[1] == out.splitlines()[1]


def test_list_names_the_shipped_grids(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--list") == (0, "corridor\nexample\ngauntlet\ngreedy\n", "")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["nowhere"], "dod-knight: error: nowhere: no such knight grid"),
        (["example,health=9"], "health= is an option of the knight world"),
        (["20x20", "--algorithm", "recursive"], "plain recursion is too slow here"),
    ],
)
def test_mistakes_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert err.startswith(message) or message in err
