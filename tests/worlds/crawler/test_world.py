"""The crawler world: the protocol's view of the rules, and several players in one dungeon."""

from __future__ import annotations

import pytest

from dungeon_of_doom.protocol.commands import Move, Pickup, Stay
from dungeon_of_doom.protocol.direction import Direction
from dungeon_of_doom.worlds.api import (
    Blocked,
    Died,
    Escaped,
    Event,
    Joined,
    Left,
    Moved,
    NothingToPickUp,
    Notice,
    PlayerKind,
    ResultEvent,
    Stayed,
    WorldError,
    WorldFull,
)
from dungeon_of_doom.worlds.crawler import CrawlerWorld, Dungeon, parse_level
from dungeon_of_doom.worlds.crawler import text as say

N, S, E, W = (Move(Direction[name]) for name in "NSEW")


def world(*texts: str) -> CrawlerWorld:
    return CrawlerWorld(Dungeon("test", tuple(parse_level(text) for text in texts)))


def kinds(events: list[Event]) -> list[str]:
    return [type(event).__name__ for event in events]


def test_join_on_the_start_then_the_nearest_free_open_square() -> None:
    game = world("3 3\n1 1\n- + -\n- - -\n? - -")
    assert game.join(1) == [Joined(1, (1, 1))]
    assert game.join(2) == [Joined(2, (1, 0))], "distance 1, upper row first, then left"
    assert game.goal == 1 and game.level_of(1) == 1


def test_a_move_answers_moved_or_blocked_and_every_turn_counts() -> None:
    game = world("2 3\n0 0\n- + ?\n- - -")
    game.join(1)
    assert game.resolve([(1, E)]) == [Blocked(1, "a pillar")]
    assert game.resolve([(1, N)]) == [Blocked(1, "the edge of the map")]
    assert game.resolve([(1, Stay())]) == [Stayed(1)]
    assert game.resolve([(1, S)]) == [Moved(1, (0, 0), (1, 0))]
    assert game.status(1).moves == 4  # type: ignore[union-attr]


def test_pickup_is_not_a_turn_treasure_is_taken_on_entry() -> None:
    game = world("1 4\n0 1\nM - $ ?")
    game.join(1)
    assert game.resolve([(1, Pickup())]) == [NothingToPickUp(1)]
    assert game.render(1) == ("Mo$?",), "no monster moved"
    events = game.resolve([(1, E)])
    assert events == [
        Moved(1, (0, 1), (0, 2)),
        Notice(1, say.FOUND_TREASURE),
        Notice(1, "You now have 1 treasure."),
    ]
    status = game.status(1)
    assert status is not None and (status.gold, status.moves) == (1, 1)


def test_the_sealed_exit_is_explained_and_the_escape_reports_totals() -> None:
    game = world("1 4\n0 1\n! - $ -")
    game.join(1)
    assert game.resolve([(1, W)]) == [
        Blocked(1, "the exit, which needs a treasure"),
        Notice(1, say.EXIT_SEALED),
    ]
    game.resolve([(1, E)])
    game.resolve([(1, W)])
    events = game.resolve([(1, W)])
    assert events[-1] == Escaped(
        1,
        1,
        4,
        "Congratulations, adventurer! You have escaped the dungeon! "
        "You escaped with 1 treasure and in 4 total moves.",
    )
    assert 1 not in game and game.leave(1) == []


def test_death_is_the_final_event() -> None:
    game = world("1 3\n0 1\nM - ?")
    game.join(1)
    assert game.resolve([(1, Stay())]) == [Stayed(1), Died(1, say.DIED)]
    assert game.status(1) is None


def test_a_door_leads_to_the_next_level_and_the_last_door_ends_the_game() -> None:
    game = world("1 2\n0 0\n- ?", "1 3\n0 1\n? - -")
    game.join(1)
    events = game.resolve([(1, E)])
    assert events == [
        Moved(1, (0, 0), (0, 1)),
        Notice(1, say.THROUGH_DOOR),
        Notice(1, "Level 2"),
    ]
    assert game.level_of(1) == 2 and game.render(1) == ("?o-",)
    assert game.resolve([(1, W)])[-1] == Died(1, say.LAST_DOOR)


def test_players_block_each_other_and_show_in_look_and_map() -> None:
    game = world("2 4\n0 0\n- - - ?\n+ - - -")
    game.join(1)
    game.join(2, PlayerKind.BOT)
    assert game.resolve([(1, E)]) == [Blocked(1, "another adventurer")]
    assert game.look(1) == ("X###X", "#####", "##-B-", "##+--", "X###X")
    assert game.render(1)[0] == "oB-?"
    assert game.render(None) == ("PB-?", "+---")


def test_a_round_moves_each_monster_at_most_once() -> None:
    # Between two players: it steps toward the first, then sees the second but
    # has moved already this round; in the next round it turns back.
    game = world("2 5\n0 0\n- - M - -\n? - - - -")
    game.join(1)
    game.join(2, at=(0, 4))
    assert game.resolve([(1, Stay()), (2, Stay())]) == [Stayed(1), Stayed(2)]
    assert game.render(None)[0] == "PM--P"
    game.resolve([(2, Stay())])
    assert game.render(None)[0] == "P-M-P"


def test_a_monster_blocked_by_one_that_moved_stays_and_never_merges() -> None:
    game = world("3 5\n2 2\n? - M - -\n- M - - -\n- - - - -")
    game.join(1)
    game.join(2, at=(1, 4))
    game.resolve([(1, Stay()), (2, Stay())])
    assert game.render(None) == ("?----", "-MM-P", "--P--")
    game.resolve([(2, Stay())])
    assert game.render(None) == ("?----", "--MMP", "--P--")


def test_a_monster_chasing_one_player_kills_another_in_its_way() -> None:
    game = world("2 4\n0 0\n- - M -\n? - - -")
    game.join(1)
    game.join(2)  # at (0, 1), between the monster and player 1
    events = game.resolve([(1, Stay()), (2, Stay())])
    assert events == [Stayed(1), Died(2, say.DIED), Blocked(2, "you were caught before your turn")]
    assert game.render(1)[0] == "oM--"


def test_the_amulet_doubles_the_level_for_everyone_on_it() -> None:
    game = world("2 3\n0 0\n- @ -\n? - -")
    game.join(1)
    game.join(2, at=(0, 2))
    events = game.resolve([(1, E)])
    assert events[1:] == [
        Notice(1, say.AMULET_CRUMBLES),
        Notice(1, say.GROUND_RUMBLES),
        Notice(2, say.GROUND_RUMBLES),
    ]
    assert game.status(2).position == (0, 2)  # type: ignore[union-attr]
    assert len(game.render(1)) == 4 and len(game.render(1)[0]) == 6


def test_a_door_to_a_full_level_stays_shut() -> None:
    game = world("1 3\n0 0\n- - ?", "1 2\n0 0\n- !")
    game.join(1)
    game.resolve([(1, E)])
    game.resolve([(1, E)])
    assert game.level_of(1) == 2
    game.join(2)
    game.resolve([(2, E)])
    assert game.resolve([(2, E)]) == [Blocked(2, "the door: there is no room beyond it")]
    assert game.leave(1) == [Left(1)]
    assert kinds(game.resolve([(2, E)])) == ["Moved", "Notice", "Notice"]


def test_an_amulet_past_the_size_limits_is_explained() -> None:
    cols = 500_000
    game = world(f"1 {cols}\n0 0\n- @ ?" + " -" * (cols - 3))
    game.join(1)
    events = game.resolve([(1, E)])
    assert events[1:] == [Notice(1, say.AMULET_CRUMBLES), Notice(1, say.CANNOT_GROW)]
    assert game.grid(0).cols == cols


def test_no_room_and_acting_twice_in_a_round_are_refused() -> None:
    game = world("1 2\n0 0\n- ?")
    game.join(1)
    with pytest.raises(WorldFull):
        game.join(2)
    with pytest.raises(WorldError):
        game.resolve([(1, Stay()), (1, Stay())])
    with pytest.raises(WorldError):
        game.resolve([(7, Stay())])


def test_a_player_sees_only_actions_on_their_own_level() -> None:
    """Issue 18 defect 1: a player on level 2 was told of moves on level 1 nearby."""
    game = world("2 3\n0 0\n- ? -\n- - -", "2 3\n0 0\n- - -\n- - !")
    game.join(1)
    game.join(2)
    assert game.resolve([(1, E), (2, Stay())])[0] == Moved(1, (0, 0), (0, 1))
    assert game.level_of(1) == 2 and game.level_of(2) == 1
    (moved,) = [e for e in game.resolve([(1, Stay()), (2, E)]) if isinstance(e, Moved)]
    assert moved == Moved(2, (1, 0), (1, 1))
    assert not game.witnesses(1, moved), "level 2 does not see level 1, however near the squares"
    game.join(3)  # on level 1, beside player 2
    assert game.witnesses(3, moved)
    (stayed,) = game.resolve([(1, Stay()), (2, Stay()), (3, Stay())])[:1]
    assert isinstance(stayed, ResultEvent)
    assert not game.witnesses(2, stayed) and not game.witnesses(3, stayed), "player 1 is on level 2"


def test_no_win_is_possible_once_no_treasure_is_left_for_anyone_without_one() -> None:
    game = world("1 4\n0 0\n- $ - !")
    game.join(1)
    game.join(2)
    assert game.status(2).position == (0, 2)  # type: ignore[union-attr]
    assert game.unwinnable() is None
    game.resolve([(2, W)])  # takes the only treasure
    assert game.unwinnable() is None, "player 2 holds a treasure: a win is possible"
    game.resolve([(2, E)])
    assert kinds(game.resolve([(2, E)]))[-1] == "Escaped"
    assert game.unwinnable() == (
        "nobody can win any more: no treasure is left where anyone still here can "
        "reach it, and one is needed to open the exit"
    )


def test_a_treasure_on_a_deeper_level_keeps_a_win_possible() -> None:
    game = world("1 3\n0 0\n- - ?", "1 3\n0 0\n- $ !")
    game.join(1)
    assert game.unwinnable() is None, "the second level, not loaded yet, holds one"


def test_a_dungeon_made_without_treasure_is_left_to_be_played() -> None:
    game = world("1 3\n0 0\n- - ?")
    game.join(1)
    assert game.unwinnable() is None
