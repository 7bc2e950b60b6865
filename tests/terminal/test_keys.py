"""Key bindings per world: the original games' keys, and no key doing two things."""

from __future__ import annotations

import pytest

from dungeon_of_doom.clients.terminal.keys import Action, Verb, keymap_for, spectator_keymap
from dungeon_of_doom.protocol.direction import Direction


def move(name: str) -> Action:
    return Action(Verb.MOVE, Direction[name])


@pytest.mark.parametrize("world", ["classic", "crawler", "knight"])
def test_q_quits_where_it_is_not_a_move(world: str) -> None:
    assert keymap_for(world).action("q") == Action(Verb.QUIT)


def test_crawler_keys_are_the_originals() -> None:
    keys = keymap_for("crawler")
    assert [keys.action(k) for k in "wasd"] == [move("N"), move("W"), move("S"), move("E")]
    assert keys.action("e") == Action(Verb.STAY)
    assert keys.action("up") == move("N")
    assert keys.action("p") is None  # treasure is taken by stepping on it


def test_baddies_nine_keys_and_quit_elsewhere() -> None:
    keys = keymap_for("baddies")
    pad = {"q": "NW", "w": "N", "e": "NE", "a": "W", "d": "E", "z": "SW", "x": "S", "c": "SE"}
    for key, direction in pad.items():
        assert keys.action(key) == move(direction)
    assert keys.action("s") == Action(Verb.STAY)
    assert keys.action("left") == move("W")
    for key in ("escape", "ctrl+q", "ctrl+c"):
        assert keys.action(key) == Action(Verb.QUIT)


def test_classic_has_pickup_and_no_stay() -> None:
    keys = keymap_for("classic")
    assert keys.action("p") == Action(Verb.PICKUP)
    assert Action(Verb.STAY) not in keys.bindings.values()


def test_knight_binds_only_east_and_south() -> None:
    keys = keymap_for("knight")
    moves = {a.direction for a in keys.bindings.values() if a.verb is Verb.MOVE}
    assert moves == {Direction.E, Direction.S}
    assert keys.action("d") == keys.action("right") == move("E")
    assert keys.action("w") is None


def test_unknown_world_is_built_from_what_help_offers() -> None:
    four = keymap_for("maze", directions=[Direction.N, Direction.S], stay=True)
    assert four.action("w") == move("N") and four.action("a") is None
    assert four.action("e") == Action(Verb.STAY)
    eight = keymap_for(None, directions=list(Direction))
    assert eight.action("q") == move("NW")
    assert eight.action("ctrl+q") == Action(Verb.QUIT)


def test_every_keymap_has_help_chat_and_the_command_line() -> None:
    for keys in [*(keymap_for(w) for w in ("classic", "crawler", "baddies", "knight"))]:
        assert keys.action("question_mark") == Action(Verb.HELP)
        assert keys.action("colon") == Action(Verb.COMMAND)
        assert keys.action("t") == Action(Verb.CHAT)
    assert not any(a.is_turn for a in spectator_keymap().bindings.values())


def test_help_lines_group_the_keys_of_one_action() -> None:
    lines = keymap_for("crawler").help_lines()
    assert any(line.startswith("↑ w ") and "move north (MOVE N)" in line for line in lines)
    assert any(line.startswith("e ") and "STAY" in line for line in lines)


def test_turns_name_their_protocol_command() -> None:
    assert move("NE").protocol_line == "MOVE NE"
    assert Action(Verb.STAY).protocol_line == "STAY"
    assert Action(Verb.HELP).protocol_line is None
