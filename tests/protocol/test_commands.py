"""Parsing lines into commands, and writing them back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dungeon_of_doom.protocol.commands import (
    Hello,
    Help,
    Look,
    Map,
    Move,
    Pickup,
    Quit,
    Stay,
    parse_command,
)
from dungeon_of_doom.protocol.direction import Direction
from dungeon_of_doom.protocol.errors import RemoteProtocolError


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("HELLO", Hello()),
        ("hello", Hello()),
        ("  HeLLo  ", Hello()),
        ("HELLO Ada", Hello("Ada")),
        ("HELLO  Ada   Lovelace ", Hello("Ada Lovelace")),
        ("MOVE N", Move(Direction.N)),
        ("move s", Move(Direction.S)),
        ("Move\tE", Move(Direction.E)),
        ("  MOVE    w  ", Move(Direction.W)),
        ("MOVE ne", Move(Direction.NE)),
        ("PICKUP", Pickup()),
        ("pickup", Pickup()),
        ("LOOK", Look()),
        ("look ", Look()),
        ("QUIT", Quit()),
        ("HELP", Help()),
        ("STAY", Stay()),
        ("map", Map()),
    ],
)
def test_commands_in_any_case_and_spacing(line: str, command: object) -> None:
    assert parse_command(line) == command


@pytest.mark.parametrize("line", ["", "   ", "\t"])
def test_blank_lines_are_not_commands(line: str) -> None:
    assert parse_command(line) is None


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("DANCE", 'unknown command "DANCE"; send HELP'),
        ("MOVE", "MOVE takes one direction"),
        ("MOVE N S", "MOVE takes one direction"),
        ("MOVE UP", '"UP" is not a direction'),
        ("LOOK AROUND", "LOOK takes no arguments"),
        ("QUIT now", "QUIT takes no arguments"),
        ("HELLO \x1b[31mred", "printable"),
        ("HELLO " + "x" * 40, "at most 24"),
    ],
)
def test_bad_lines_say_what_is_wrong(line: str, fragment: str) -> None:
    with pytest.raises(RemoteProtocolError) as caught:
        parse_command(line)
    assert fragment in str(caught.value)
    assert not caught.value.fatal


def test_errors_never_echo_control_characters() -> None:
    with pytest.raises(RemoteProtocolError) as caught:
        parse_command("\x1b]0;pwned\x07")
    assert str(caught.value).isprintable()


@pytest.mark.parametrize(
    "command",
    [
        Hello(),
        Hello("Ada"),
        *(Move(d) for d in Direction),
        Pickup(),
        Look(),
        Quit(),
        Help(),
        Stay(),
        Map(),
    ],
)
def test_to_line_parses_back(command: object) -> None:
    assert parse_command(command.to_line()) == command  # type: ignore[attr-defined]


@given(st.text(max_size=200))
def test_parser_raises_only_its_own_error(line: str) -> None:
    try:
        parse_command(line)
    except RemoteProtocolError as error:
        assert str(error).isprintable()
