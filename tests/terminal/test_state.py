"""What the client learns from HELP, notices and pushes, the status line and the log."""

from __future__ import annotations

from dungeon_of_doom.clients.terminal.messages import (
    Entry,
    Kind,
    MessageLog,
    describe_final,
    describe_push,
)
from dungeon_of_doom.clients.terminal.state import GameState, read_help
from dungeon_of_doom.clients.terminal.status import status_line
from dungeon_of_doom.protocol.direction import Direction
from dungeon_of_doom.protocol.replies import (
    GameInfo,
    Lose,
    Message,
    Notice,
    PlayerLeft,
    Push,
    RoundEnded,
    Seen,
    View,
)

BADDIES_HELP = (
    "You are in the baddies world. Commands (any letter case):",
    "HELLO [name]   the gold you need to win; with a name, also sets your name",
    "MOVE <dir>     move one square; directions here: N NE E SE S SW W NW",
    "STAY           let one turn pass without moving",
)


def test_help_names_the_world_its_moves_and_stay() -> None:
    world = read_help(BADDIES_HELP)
    assert world.name == "baddies"
    assert set(world.directions) == set(Direction)
    assert world.stay


def test_help_of_an_unknown_server_keeps_the_2013_defaults() -> None:
    world = read_help(["HELLO", "MOVE <direction>"])
    assert world.name is None
    assert set(world.directions) == {Direction.N, Direction.E, Direction.S, Direction.W}
    assert not world.stay


def playing(world: str) -> GameState:
    state = GameState("127.0.0.1", 40004, connected=True)
    state.enter(GameInfo("default", world, "default", 0, 1, None, 0, 30.0), watching=False)
    return state


def test_crawler_notices_carry_treasure_and_level() -> None:
    state = playing("crawler")
    state.goal = 1
    state.take_push(Notice("You now have 2 treasures."))
    state.take_push(Notice("Level 3"))
    assert (state.gold, state.level) == (2, 3)
    assert "treasure 2/1" in status_line(state) and "level 3" in status_line(state)


def test_knight_notices_carry_health() -> None:
    state = playing("knight")
    state.take_push(Notice("Health 5 at (0, 2) after a potion of +3. Next: E off the grid, S 1."))
    assert "health 5" in status_line(state)


def test_status_line_of_a_player_in_a_round() -> None:
    state = playing("baddies")
    state.goal, state.moves, state.name = 0, 4, "Ada"
    state.take_push(RoundEnded(7, 2, 0))
    state.pending = "MOVE NE"
    assert status_line(state) == (
        "baddies world │ game default │ you: Ada │ gold 0/0 │ moves 4 │ players 1 │ round 7"
        " │ MOVE NE: waiting for the round"
    )


def test_a_spectator_sees_views_and_counts() -> None:
    state = GameState("h", 1, connected=True)
    state.take_push(View(("#P.E#",)))  # it may come before WATCH's answer is read
    state.enter(GameInfo("arena", "classic", "tiny", 0, 2, None, 3, None), watching=True)
    assert state.rows == ("#P.E#",)
    line = status_line(state)
    assert "watching" in line and "watchers 3" in line and "moves" not in line


def test_joining_another_game_starts_the_count_again() -> None:
    state = playing("classic")
    state.gold, state.moves, state.map_rows = 2, 9, ("#@#",)
    state.enter(GameInfo("duo", "crawler", "easy", 0, 1, 2, 0, 30.0), watching=False)
    assert (state.world.name, state.game, state.gold, state.moves, state.rows) == (
        "crawler",
        "duo",
        0,
        0,
        (),
    )
    state.update_games((GameInfo("duo", "crawler", "easy", 0, 2, 2, 1, 30.0),))
    assert state.players == 2


def described(push: Push) -> Entry:
    """What ``describe_push`` says of ``push``, which it must describe."""
    entry = describe_push(push)
    assert entry is not None, f"{push!r} is not described"
    return entry


def test_pushes_in_words() -> None:
    assert described(Message("Bob", "hi")).text == "<Bob> hi"
    assert described(Message("Bob", "hi")).kind is Kind.CHAT
    assert described(PlayerLeft("#2", "moved")).text == "#2 moved to another game"
    assert described(Seen("Bob", "MOVE N", "FAIL")).text == "Bob: MOVE N FAIL"
    assert describe_push(RoundEnded(1, 1, 0)) is None
    assert describe_final(Lose("You died.")).kind is Kind.LOSE
    assert describe_final(None).kind is Kind.ERROR


def test_message_log_keeps_the_newest_and_counts_all() -> None:
    log = MessageLog(limit=3)
    for number in range(5):
        log.add(Kind.INFO, str(number))
    assert [entry.text for entry in log.since(0)] == ["2", "3", "4"]
    assert log.added == 5
    assert [entry.text for entry in log.since(3)] == ["3", "4"]
    assert log.since(5) == []
