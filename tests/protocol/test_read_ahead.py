"""Looking ahead while a command waits for its answer: what may not wait is found, the
rest is still returned in its turn, and each line is looked at once."""

from __future__ import annotations

import pytest

from protocol.commands import Hello, Look, Move, Quit, Shout
from protocol.connection import ServerProtocol
from protocol.direction import Direction
from protocol.errors import RemoteProtocolError
from protocol.framing import END_OF_INPUT, NEED_DATA, LineFramer
from protocol.replies import Bye, Success

LIMIT = 1 << 16


def test_the_framer_shows_each_line_once_and_still_returns_it() -> None:
    framer = LineFramer()
    framer.receive_data(b"ONE\r\nTWO\nthr")
    assert framer.lines_ahead() == [b"ONE", b"TWO"]
    assert framer.lines_ahead() == []
    framer.receive_data(b"ee\n")
    assert framer.next_event() == "ONE"
    assert framer.lines_ahead() == [b"three"]
    framer.receive_data(b"last")
    framer.receive_data(b"")
    assert framer.lines_ahead() == [b"last"], "at the end, the last line is whole"
    assert framer.ended
    assert [framer.next_event() for _ in range(4)] == ["TWO", "three", "last", END_OF_INPUT]


def test_the_framer_shows_the_lines_before_one_too_long_then_refuses() -> None:
    framer = LineFramer(max_line_length=5)
    framer.receive_data(b"ok\n" + b"x" * 6 + b"\nafter\n")
    assert framer.lines_ahead() == [b"ok"]
    with pytest.raises(RemoteProtocolError) as caught:
        framer.lines_ahead()
    assert caught.value.fatal and "line too long" in str(caught.value)
    with pytest.raises(RemoteProtocolError):
        framer.next_event()  # refused from then on, as after next_event raised it


def test_a_quit_is_found_ahead_and_the_rest_still_comes_in_order() -> None:
    server = ServerProtocol()
    server.receive_data(b"MOVE E\n")
    assert server.next_event() == Move(Direction.E)  # held, say for its round
    server.receive_data(b"LOOK\nDANCE\n\n")
    assert server.read_ahead(LIMIT) is NEED_DATA
    server.receive_data(b"SHOUT hi\n")
    assert server.read_ahead(LIMIT) is NEED_DATA
    assert server.next_event() == Look()
    with pytest.raises(RemoteProtocolError):
        server.next_event()  # refused in its turn, not ahead
    assert server.next_event() == Shout("hi")
    server.receive_data(b"HELLO\nquit\nLOOK\n")
    assert server.read_ahead(LIMIT) == Quit()
    assert server.send(Bye("Thanks for playing.")) == b"BYE Thanks for playing.\n"


def test_a_quit_taken_whole_by_the_fast_path_is_found_too() -> None:
    server = ServerProtocol()
    server.receive_data(b"LOOK\n")
    assert server.next_event() == Look()
    server.receive_data(b"QUIT\n")  # one canonical line: taken without the framer
    assert server.read_ahead(LIMIT) == Quit()


def test_the_end_of_input_and_a_line_too_long_do_not_wait() -> None:
    server = ServerProtocol(max_line_length=10)
    server.receive_data(b"HELLO\nLOOK\n")
    assert server.next_event() == Hello()
    server.receive_data(b"")
    assert server.read_ahead(LIMIT) is END_OF_INPUT
    assert server.next_event() == Look(), "what came before the end is still there"
    assert server.next_event() is END_OF_INPUT

    long = ServerProtocol(max_line_length=10)
    long.receive_data(b"HELLO\nLOOK\n" + b"x" * 11)
    assert long.next_event() == Hello()
    with pytest.raises(RemoteProtocolError) as caught:
        long.read_ahead(LIMIT)
    assert caught.value.fatal


def test_past_the_limit_it_asks_for_no_more() -> None:
    server = ServerProtocol()
    server.receive_data(b"LOOK\n")
    server.next_event()
    server.receive_data(b"HELLO\n" * 10)  # 50 bytes unreturned (lines without their ends)
    assert server.read_ahead(50) is NEED_DATA
    server.receive_data(b"HELLO\n")
    assert server.read_ahead(50) is None
    assert [server.next_event() for _ in range(11)] == [Hello()] * 11


def test_looking_ahead_changes_no_answer_of_a_dialect_that_answers_by_the_command() -> None:
    """mbk's answers name the command they answer (``MS``): a line looked at ahead, even
    one refused, must not change the answer to the command still waiting."""
    server = ServerProtocol(dialect="2016mbk")
    server.receive_data(b"MOVE E\n")
    assert server.next_event() == Move(Direction.E)
    server.receive_data(b"DANCE\nLOOK\n")
    assert server.read_ahead(LIMIT) is NEED_DATA
    assert server.send(Success()) == b"MS\n", "the MOVE is answered as a MOVE"
    with pytest.raises(RemoteProtocolError) as caught:
        server.next_event()
    assert server.send(Success()) == b"", f"a refused line answers no MOVE ({caught.value})"
