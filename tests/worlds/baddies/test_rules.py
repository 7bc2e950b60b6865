"""Every rule of RULES §3, one test each, on small hand-made boards."""

from __future__ import annotations

import copy
import pickle
from types import MappingProxyType

from dungeon_of_doom.worlds.baddies import Board, parse_board, play_round
from dungeon_of_doom.worlds.baddies.rules import (
    BaddieFell,
    Barrier,
    Caught,
    Escaped,
    HeroFell,
    HeroMoved,
    HeroStayed,
    OffBoard,
)

HERO = 0
N, NE, E, SE, S, SW, W, NW, STAY = (
    (-1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (0, 0),
)


def board(*rows: str) -> Board:
    """A board drawn with the file glyphs; its hero stands on ``H``."""
    _, result = parse_board("name test\n" + "\n".join(rows) + "\n")
    result.heroes[HERO] = result.start
    return result


def picture(b: Board) -> list[str]:
    return list(b.drawing("."))


# -- the hero ------------------------------------------------------------------


def test_diagonal_into_a_wall_falls_back_to_the_vertical_move() -> None:
    b = board("..+.*", ".H...", ".....")
    facts = play_round(b, {HERO: NE})
    assert facts == [Barrier(HERO, (1, 1)), HeroMoved(HERO, (1, 1), (0, 1))]
    assert b.heroes[HERO] == (0, 1)


def test_the_vertical_fallback_square_may_be_the_ladder() -> None:
    b = board(".*+..", ".H...", ".....")
    facts = play_round(b, {HERO: NE})
    assert facts == [Barrier(HERO, (1, 1)), Escaped(HERO, (1, 1), (0, 1))]
    assert b.heroes == {}


def test_the_vertical_fallback_square_may_be_an_abyss() -> None:
    b = board(".#+.*", ".H...", ".....")
    facts = play_round(b, {HERO: NE})
    assert facts == [Barrier(HERO, (1, 1)), HeroFell(HERO, (1, 1), (0, 1), "#")]
    assert b.heroes == {}


def test_the_vertical_fallback_square_may_be_a_baddie_which_does_not_move() -> None:
    b = board(".m+.*", ".H...", ".....")
    facts = play_round(b, {HERO: NE})
    assert facts == [Barrier(HERO, (1, 1)), HeroFell(HERO, (1, 1), (0, 1), "m")]
    assert b.baddies == {(0, 1): "m"}


def test_a_wall_on_the_vertical_fallback_too_means_stay() -> None:
    b = board(".++.*", ".H...", ".....")
    facts = play_round(b, {HERO: NE})
    assert facts == [Barrier(HERO, (1, 1)), HeroStayed(HERO, (1, 1), "a wall")]


def test_there_is_no_horizontal_only_fallback() -> None:
    # East of the hero is free, but a diagonal into a wall never becomes a sideways move.
    b = board(".++.*", ".H...", ".....")
    play_round(b, {HERO: NE})
    assert b.heroes[HERO] == (1, 1)
    b = board(".....", ".H...", "..+.*")
    play_round(b, {HERO: SE})
    assert b.heroes[HERO] == (2, 1)


def test_straight_moves_into_a_wall_stay() -> None:
    b = board("..+.*", ".H+..", ".....")
    assert play_round(b, {HERO: E}) == [
        Barrier(HERO, (1, 1)),
        HeroStayed(HERO, (1, 1), "a wall"),
    ]
    b = board(".+..*", ".H...", ".....")
    play_round(b, {HERO: N})
    assert b.heroes[HERO] == (1, 1)


def test_edge_components_are_dropped_separately() -> None:
    b = board(".H..*", ".....")
    assert play_round(b, {HERO: NE}) == [
        OffBoard(HERO, (0, 1), "row"),
        HeroMoved(HERO, (0, 1), (0, 2)),
    ]
    b = board("....*", "H....")
    assert play_round(b, {HERO: NW}) == [
        OffBoard(HERO, (1, 0), "column"),
        HeroMoved(HERO, (1, 0), (0, 0)),
    ]
    b = board("*....", "....H")
    assert play_round(b, {HERO: SE}) == [
        OffBoard(HERO, (1, 4), "row"),
        OffBoard(HERO, (1, 4), "column"),
        HeroStayed(HERO, (1, 4), "the edge of the board"),
    ]


def test_the_hero_dies_stepping_into_an_abyss_or_a_baddie() -> None:
    b = board("H#..*")
    assert play_round(b, {HERO: E}) == [HeroFell(HERO, (0, 0), (0, 1), "#")]
    b = board("H~..*")
    assert play_round(b, {HERO: E}) == [HeroFell(HERO, (0, 0), (0, 1), "~")]
    assert b.baddies == {(0, 1): "~"}


def test_any_other_key_is_a_stay_and_a_stay_is_a_round() -> None:
    b = board("H...m*")
    assert play_round(b, {HERO: STAY}) == [HeroStayed(HERO, (0, 0), "")]
    assert b.baddies == {(0, 3): "m"}


# -- the baddies -----------------------------------------------------------------


def test_a_monster_steps_once_on_each_unaligned_axis() -> None:
    b = board("H.....", "......", "....m*")
    play_round(b, {HERO: STAY})
    assert b.baddies == {(1, 3): "m"}
    b = board("H....m*")
    play_round(b, {HERO: STAY})
    assert b.baddies == {(0, 4): "m"}


def test_a_super_monster_jumps_past_a_hero_one_square_away() -> None:
    b = board(".HM..*")
    facts = play_round(b, {HERO: STAY})
    assert b.baddies == {(0, 0): "M"}
    assert b.heroes == {HERO: (0, 1)}
    assert not [f for f in facts if isinstance(f, Caught)]


def test_a_super_monster_always_takes_two_steps_on_each_unaligned_axis() -> None:
    b = board("....M*", "H.....", "......")
    play_round(b, {HERO: STAY})
    assert b.baddies == {(2, 2): "M"}


def test_a_super_monster_passes_over_walls_and_abysses() -> None:
    b = board("H..#M*")
    play_round(b, {HERO: STAY})
    assert b.baddies == {(0, 2): "M"}
    b = board("H..+M*")
    play_round(b, {HERO: STAY})
    assert b.baddies == {(0, 2): "M"}


def test_a_bat_flies_to_the_heros_column_in_its_own_row() -> None:
    b = board("H.....", "......", ".....~", "*.....")
    play_round(b, {HERO: E})
    assert b.baddies == {(2, 1): "~"}


def test_a_bat_on_the_heros_row_catches_him() -> None:
    b = board("*.....", "H....~")
    facts = play_round(b, {HERO: STAY})
    assert facts[-1] == Caught(HERO, "~", (1, 5), (1, 0))
    assert b.heroes == {}
    assert b.baddies == {(1, 0): "~"}


def test_the_edge_rule_applies_to_baddies() -> None:
    b = board("H.....", ".M....", ".....*")
    facts = play_round(b, {HERO: STAY})
    assert facts[1:] == [OffBoard(None, (1, 1), "row"), OffBoard(None, (1, 1), "column")]
    assert b.baddies == {(1, 1): "M"}


def test_the_wall_rule_applies_to_baddies_and_the_ladder_is_a_wall_for_them() -> None:
    b = board("H.....", "*.....", ".m....")
    facts = play_round(b, {HERO: STAY})
    assert facts[1:] == [Barrier(None, (2, 1))]
    assert b.baddies == {(1, 1): "m"}
    b = board("H.....", "++....", ".m...*")
    play_round(b, {HERO: STAY})
    assert b.baddies == {(2, 1): "m"}


def test_a_baddie_that_moves_into_an_abyss_is_gone() -> None:
    b = board("H.#m.*")
    facts = play_round(b, {HERO: STAY})
    assert facts[1:] == [BaddieFell("m", (0, 3), (0, 2))]
    assert b.baddies == {}
    assert b.statics[(0, 2)] == "#"


def test_two_monsters_in_a_row_the_first_blocked_by_the_second() -> None:
    b = board("mm...H", ".....*")
    play_round(b, {HERO: STAY})
    # Row-major: (0,0) is visited first and finds (0,1) taken; then (0,1) moves on.
    assert b.baddies == {(0, 0): "m", (0, 2): "m"}


def test_a_baddie_that_moved_is_not_visited_again() -> None:
    b = board("m.....", "......", "......", "...H.*")
    play_round(b, {HERO: STAY})
    assert b.baddies == {(1, 1): "m"}


def test_the_round_goes_on_after_a_catch() -> None:
    b = board(
        "......",
        "..Hm..",
        "..#..m",
        "..m..*",
    )
    facts = play_round(b, {HERO: STAY})
    assert facts == [
        HeroStayed(HERO, (1, 2), ""),
        Caught(HERO, "m", (1, 3), (1, 2)),
        BaddieFell("m", (3, 2), (2, 2)),
    ]
    # The monster at (2,5) still aimed at the hero's last square and stepped to (1,4).
    assert b.baddies == {(1, 2): "m", (1, 4): "m"}


def test_nothing_moves_after_the_hero_escapes_or_dies() -> None:
    b = board("H*.m", "....")
    assert play_round(b, {HERO: E}) == [Escaped(HERO, (0, 0), (0, 1))]
    assert b.baddies == {(0, 3): "m"}
    b = board("H#.m", "...*")
    assert play_round(b, {HERO: E}) == [HeroFell(HERO, (0, 0), (0, 1), "#")]
    assert b.baddies == {(0, 3): "m"}


# -- several heroes and planners ---------------------------------------------------


def test_each_baddie_aims_at_the_nearest_hero_ties_to_the_first_who_joined() -> None:
    b = board("H.....m.....*")
    b.heroes[1] = (0, 12 - 1)
    play_round(b, {})
    # Distance 6 to hero 0 and 5 to hero 1: the monster goes east.
    assert b.baddies == {(0, 7): "m"}
    b = board("H.....m......*")
    b.heroes = {1: (0, 12), HERO: (0, 0)}
    play_round(b, {})
    # Distance 6 to both: hero 1 joined first.
    assert b.baddies == {(0, 7): "m"}


def test_heroes_act_in_join_order_and_block_each_other() -> None:
    b = board("H....*")
    b.heroes[1] = (0, 1)
    facts = play_round(b, {1: E, HERO: E})
    assert facts == [
        HeroStayed(HERO, (0, 0), "another hero"),
        HeroMoved(1, (0, 1), (0, 2)),
    ]
    assert b.heroes == {HERO: (0, 0), 1: (0, 2)}


def test_heroes_who_do_not_act_stay_and_can_be_caught() -> None:
    b = board("H.....", ".....*", "....m.")
    b.heroes[1] = (2, 3)
    facts = play_round(b, {HERO: STAY})
    assert facts[-1] == Caught(1, "m", (2, 4), (2, 3))
    assert b.heroes == {HERO: (0, 0)}


def test_a_copy_is_independent() -> None:
    b = board("H...m*")
    before = picture(b)
    c = b.copy()
    play_round(c, {HERO: E})
    assert picture(b) == before
    assert picture(c) != before


def test_deep_copies_and_pickles_are_independent_and_keep_the_statics_read_only() -> None:
    b = board("H...m*")
    before = picture(b)
    deep = copy.deepcopy(b)
    assert deep.statics is b.statics, "the statics never change, so copies share them"
    unpickled = pickle.loads(pickle.dumps(b))
    assert isinstance(unpickled.statics, MappingProxyType)
    for c in (deep, unpickled):
        assert picture(c) == before
        play_round(c, {HERO: E})
        assert picture(c) != before
        assert picture(b) == before
