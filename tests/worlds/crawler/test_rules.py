"""Every rule of a crawler turn (RULES §2), each on a tiny hand-made level."""

from __future__ import annotations

import pytest

from dungeon_of_doom.worlds.crawler import (
    Command,
    GameOver,
    Grid,
    Outcome,
    State,
    Status,
    parse_level,
)
from dungeon_of_doom.worlds.crawler.levelfile import MAX_SIDE

UP, DOWN, LEFT, RIGHT, STAY = Command


def game(*texts: str, treasure: int = 0) -> State:
    return State([parse_level(text) for text in texts], treasure=treasure)


def test_a_chain_of_monsters_in_one_line_all_advance_without_merging() -> None:
    state = game("1 6\n0 5\nM M - - ? -")
    state.step(STAY)
    assert state.render() == ["-MM-?o"]
    state.step(STAY)
    assert state.render() == ["--MM?o"]


def test_a_chain_next_to_the_player_kills_and_closes_up() -> None:
    state = game("2 4\n0 3\nM M M -\n? - - -")
    turn = state.step(STAY)
    assert turn.died and state.outcome is Outcome.DIED
    assert state.render() == ["-MMM", "?---"]


def test_a_pillar_blocks_sight() -> None:
    state = game("2 5\n0 4\nM + M - -\n? - - - -")
    state.step(STAY)
    assert state.render()[0] == "M+-Mo"


def test_treasure_doors_and_monsters_do_not_block_sight_and_are_destroyed() -> None:
    state = game("2 6\n0 5\nM $ ? @ - -\n- - - - ? -")
    state.step(STAY)
    assert state.render()[0] == "-M?@-o"
    state.step(STAY)
    assert state.render()[0] == "--M@-o", "the treasure square is open once the monster leaves"
    state.step(STAY)
    assert state.render()[0] == "---M-o", "the door is destroyed"


def test_monsters_see_only_in_straight_lines() -> None:
    state = game("3 3\n1 1\nM - -\n- - -\n- ? M")
    state.step(STAY)
    assert state.render() == ["M--", "-o-", "-?M"]
    assert state.outcome is None


def test_monsters_from_all_four_sides_meet_on_the_player() -> None:
    state = game("3 3\n1 1\n? M -\nM - M\n- M -")
    turn = state.step(STAY)
    assert turn.died
    assert state.render() == ["?--", "-M-", "---"]


def test_a_door_ends_the_turn_before_monsters_move() -> None:
    state = game("1 4\n0 1\nM - ? -", "1 3\n0 2\n? - -")
    old_grid = state.grid
    turn = state.step(RIGHT)
    assert (turn.status, turn.row, turn.col, turn.died) == (Status.LEAVE, 0, 2, False)
    assert old_grid.text_rows() == ["M-?-"], "the monster did not move"
    assert (state.level_number, state.row, state.col) == (2, 0, 2)
    assert state.render() == ["?-o"]


def test_monsters_move_after_an_ordinary_step() -> None:
    state = game("1 4\n0 1\nM - - ?")
    state.step(RIGHT)
    assert state.render() == ["-Mo?"]


def test_a_door_on_the_last_level_ends_the_game() -> None:
    state = game("1 2\n0 0\n- ?")
    turn = state.step(RIGHT)
    assert turn.status is Status.LEAVE and state.outcome is Outcome.FINISHED
    with pytest.raises(GameOver):
        state.step(STAY)


def test_the_amulet_doubles_after_the_monsters_move_with_the_player_top_left() -> None:
    state = game("2 4\n0 0\n- @ - M\n? - - -")
    turn = state.step(RIGHT)
    assert (turn.status, turn.grew) == (Status.AMULET, True)
    assert state.render() == ["-oM---M-", "?---?---", "--M---M-", "?---?---"]
    assert (state.row, state.col) == (0, 1)


def test_no_doubling_when_the_monsters_kill_first() -> None:
    state = game("1 4\n0 0\n- @ M ?")
    turn = state.step(RIGHT)
    assert turn.died and turn.grew is None
    assert state.render() == ["-M-?"]


def test_doubling_beyond_the_limits_leaves_the_level_as_it_is() -> None:
    cols = MAX_SIDE // 2 + 1
    state = game(f"1 {cols}\n0 0\n-@?" + "-" * (cols - 3))
    turn = state.step(RIGHT)
    assert (turn.status, turn.grew) == (Status.AMULET, False)
    assert (state.grid.rows, state.grid.cols) == (1, cols)
    assert not Grid(23_171, 23_171, bytearray()).can_double(), "2 × 23,171 squared > INT32_MAX"
    assert Grid(23_170, 23_170, bytearray()).can_double()


def test_the_exit_without_treasure_is_a_pillar() -> None:
    state = game("1 3\n0 0\n- ! $")
    turn = state.step(RIGHT)
    assert turn.status is Status.STAY and (state.row, state.col) == (0, 0)
    with_treasure = game("1 3\n0 0\n- ! $", treasure=1)
    assert with_treasure.step(RIGHT).status is Status.ESCAPE
    assert with_treasure.outcome is Outcome.ESCAPED
    assert with_treasure.render() == ["-o$"]


def test_treasure_is_taken_on_entry_and_carries_over_levels() -> None:
    state = game("1 3\n0 0\n- $ ?", "1 3\n0 0\n- $ !")
    assert state.step(RIGHT).status is Status.TREASURE
    assert state.render() == ["-o?"]
    state.step(RIGHT)
    state.step(RIGHT)
    assert state.step(RIGHT).status is Status.ESCAPE
    assert (state.treasure, state.moves) == (2, 4)


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("1 2\n0 0\n- ?", UP),
        ("1 3\n0 0\n- + ?", RIGHT),
        ("2 2\n0 0\n- M\n+ ?", RIGHT),
        ("1 2\n0 0\n- ?", STAY),
    ],
    ids=["edge", "pillar", "monster", "stay"],
)
def test_stays_and_bumps_count_as_moves(text: str, command: Command) -> None:
    state = game(text)
    turn = state.step(command)
    assert turn.status is Status.STAY and (turn.row, turn.col) == (0, 0)
    assert state.moves == 1


def test_same_level_same_commands_same_game_and_copies_are_independent() -> None:
    text = "4 4\n3 0\nM - $ -\n- + - M\n- - @ -\n- - - ?"
    commands = [RIGHT, UP, RIGHT, STAY, DOWN, RIGHT]
    first, second = game(text), game(text)
    branch = None
    for number, command in enumerate(commands):
        if number == 2:
            branch = first.copy()
            before = branch.key()
        first.step(command)
        second.step(command)
        assert first.key() == second.key()
    assert branch is not None and branch.key() == before
    assert branch.key() != first.key()
    assert hash(first.key()) == hash(second.key())
