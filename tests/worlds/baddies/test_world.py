"""The baddies world behind the plugin interface: results, endings, notices, views, heroes."""

from __future__ import annotations

import pytest

from dungeon_of_doom.protocol.commands import Move, Pickup, Stay
from dungeon_of_doom.protocol.direction import ALL_DIRECTIONS, Direction
from dungeon_of_doom.worlds.api import (
    Blocked,
    Died,
    Escaped,
    Joined,
    Left,
    Moved,
    NothingToPickUp,
    Notice,
    PlayerKind,
    Stayed,
    WorldError,
    WorldFull,
)
from dungeon_of_doom.worlds.baddies import BaddiesWorld, parse_board, plugin

E, W, N = Move(Direction.E), Move(Direction.W), Move(Direction.N)


def world(*rows: str, seed: int = 0) -> BaddiesWorld:
    _, board = parse_board("name test\n" + "\n".join(rows) + "\n")
    return BaddiesWorld(board, seed=seed)


def test_the_world_declares_its_protocol() -> None:
    w = plugin.open(None, seed=1)
    assert w.directions == ALL_DIRECTIONS and w.allows_stay and w.has_rounds
    assert w.goal == 0


def test_the_first_hero_takes_the_start_and_later_ones_the_left_columns() -> None:
    w = plugin.open(None, seed=3)
    assert w.join(1) == [Joined(1, w.board.start)]
    again = plugin.open(None, seed=3)
    again.join(1)
    for player in range(2, 8):
        (event,) = w.join(player)
        assert isinstance(event, Joined)
        assert event.position[1] < 3 and event.position != w.board.start
        assert again.join(player) == [event]
    assert len(set(w.board.heroes.values())) == 7


def test_a_full_board_refuses_a_hero() -> None:
    w = world("H*")
    w.join(1)
    with pytest.raises(WorldFull):
        w.join(2)


def test_results_for_each_action() -> None:
    w = world("H....", "....*", "+....")
    w.join(1)
    assert w.resolve([(1, E)]) == [Moved(1, (0, 0), (0, 1))]
    assert w.resolve([(1, N)]) == [Blocked(1, "the edge of the board")]
    assert w.resolve([(1, Stay())]) == [Stayed(1)]
    assert w.resolve([(1, Pickup())]) == [NothingToPickUp(1)]
    assert w.status(1).moves == 4  # type: ignore[union-attr]
    w.resolve([(1, Move(Direction.SW))])
    assert w.resolve([(1, Move(Direction.S))]) == [Blocked(1, "a wall")]


def test_escape_is_a_move_then_the_final_line_then_a_notice() -> None:
    w = world("H*..")
    w.join(1)
    assert w.resolve([(1, E)]) == [
        Moved(1, (0, 0), (0, 1)),
        Escaped(1, 0, 1, "Hero Escaped! You reached the ladder in 1 moves."),
        Notice(None, "A hero escaped by the ladder at row 0, column 1."),
    ]
    assert 1 not in w and w.status(1) is None
    assert w.leave(1) == []


def test_falling_into_the_abyss_or_a_baddie() -> None:
    w = world("H#.*")
    w.join(1)
    assert w.resolve([(1, E)]) == [
        Moved(1, (0, 0), (0, 1)),
        Died(1, "Hero did not escape... You fell into the abyss."),
        Notice(None, "A hero fell into the abyss at row 0, column 1."),
    ]
    w = world("HM..*")
    w.join(1)
    assert w.resolve([(1, E)])[1:] == [
        Died(1, "Hero did not escape... You ran into a super monster."),
        Notice(None, "A hero ran into a super monster at row 0, column 1."),
    ]


def test_caught_heroes_die_and_falling_baddies_are_told() -> None:
    w = world("H..m..", "..#..*", ".....~")
    w.join(1)
    w.join(2, at=(2, 1))
    # Both baddies are nearer hero 2: the monster falls on its way, the bat catches.
    assert w.resolve([(1, Stay()), (2, Stay())]) == [
        Stayed(1),
        Stayed(2),
        Notice(None, "A monster fell into the abyss at row 1, column 2."),
        Died(2, "Hero did not escape... A bat caught you."),
        Notice(None, "A bat caught a hero at row 2, column 1."),
    ]
    assert 2 not in w and 1 in w
    assert w.render(1) == ("@.....", "..#..*", ".~....")


def test_heroes_act_in_join_order_whatever_the_order_given() -> None:
    w = world("H....*")
    w.join(1)
    w.join(2, at=(0, 1))
    assert w.resolve([(2, E), (1, E)]) == [
        Blocked(1, "another hero"),
        Moved(2, (0, 1), (0, 2)),
    ]


def test_bad_actions_are_refused() -> None:
    w = world("H....*")
    w.join(1)
    with pytest.raises(WorldError, match="not in the world"):
        w.resolve([(5, E)])
    with pytest.raises(WorldError, match="twice"):
        w.resolve([(1, E), (1, E)])
    with pytest.raises(WorldError, match="already"):
        w.join(1)
    with pytest.raises(WorldError, match="cannot place"):
        w.join(2, at=(0, 5))


def test_leaving_empties_the_square() -> None:
    w = world("H....*")
    w.join(1)
    assert w.leave(1) == [Left(1)]
    assert w.render() == (".....*",)


def test_look_keeps_the_2013_rules_with_this_worlds_glyphs() -> None:
    w = world("H.+m", "#~M*")
    w.join(1)
    w.join(2, PlayerKind.BOT, at=(0, 1))
    assert w.look(1) == (
        "X###X",
        "#####",
        "##.B+",
        "###~M",
        "X###X",
    )


def test_map_shows_the_viewer_as_at_and_others_as_p_or_b() -> None:
    w = world("H.+m", "#~M*")
    w.join(1)
    w.join(2, at=(0, 1))
    assert w.render(1) == ("@P+m", "#~M*")
    assert w.render(2) == ("P@+m", "#~M*")
    assert w.render() == ("PP+m", "#~M*")
