"""What --map may name in the knight world: files, shipped grids, generated grids, health."""

from __future__ import annotations

from pathlib import Path

import pytest

from dungeon_of_doom.worlds.errors import MapError
from dungeon_of_doom.worlds.knight.dungeon_master import generate
from dungeon_of_doom.worlds.knight.grid import Grid
from dungeon_of_doom.worlds.knight.solver import min_health
from dungeon_of_doom.worlds.knight.spec import parse_spec, shipped_grids

EXAMPLE = Grid([[-2, -3, 3], [-5, -10, 1], [10, 30, -5]])


def test_the_default_is_the_seeds_example() -> None:
    spec = parse_spec(None)
    assert (spec.grid, spec.name, spec.health) == (EXAMPLE, "example", None)


def test_shipped_grids_load_and_say_their_answer() -> None:
    assert {"example", "greedy", "corridor", "gauntlet"} <= set(shipped_grids())
    answers = {"example": 7, "greedy": 12, "corridor": 6, "gauntlet": 36}
    for name, health in answers.items():
        assert min_health(parse_spec(name).grid) == health


def test_gauntlet_is_the_generated_grid_it_says_it_is() -> None:
    assert parse_spec("gauntlet").grid == parse_spec("8x12,range=-30..20,seed=4").grid


def test_a_file_path_with_health(tmp_path: Path) -> None:
    path = tmp_path / "mine.txt"
    path.write_text("1 -5\n-5 1\n")
    spec = parse_spec(f"{path},health=9")
    assert (spec.grid, spec.name, spec.health) == (Grid([[1, -5], [-5, 1]]), "mine", 9)


def test_a_file_whose_name_holds_a_comma(tmp_path: Path) -> None:
    path = tmp_path / "a,b.txt"
    path.write_text("4\n")
    assert parse_spec(str(path)).grid == Grid([[4]])


def test_generated_grids_take_the_seed_argument_unless_the_spec_gives_one() -> None:
    assert parse_spec("4x5", seed=9).grid == generate(4, 5, seed=9)
    spec = parse_spec(" 4X5 , range=-3..7 , seed=2 , health=40 ", seed=9)
    assert spec.grid == generate(4, 5, low=-3, high=7, seed=2)
    assert spec.health == 40
    assert spec.name == "4x5,range=-3..7,seed=2"


@pytest.mark.parametrize(
    "text, message",
    [
        ("nowhere", "no such knight grid; a map spec may name a shipped knight grid (corridor,"),
        ("example,speed=3", "unknown option 'speed=3'"),
        ("example,health", "unknown option 'health'"),
        ("example,health=2,health=3", "health= is given twice"),
        ("example,health=0", "at least 1, not 0"),
        ("example,health=lots", "health= takes a whole number, not 'lots'"),
        ("example,range=-5..5", "range= applies only to generated grids"),
        ("example,seed=1", "seed= applies only to generated grids"),
        ("3x3,range=5", "range= takes LOW..HIGH"),
        ("3x3,range=5..1", "the range 5..1 is empty"),
        ("0x3", "at least 1 x 1"),
        ("3x3,seed=x", "seed= takes a whole number"),
    ],
)
def test_mistakes_say_what_is_accepted(text: str, message: str) -> None:
    with pytest.raises(MapError) as caught:
        parse_spec(text)
    assert message in str(caught.value)
    assert str(caught.value).startswith(f"{text}: ")
