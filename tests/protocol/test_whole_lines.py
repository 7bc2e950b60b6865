"""The server protocol's fast path: a chunk that is one whole canonical line.

A bot's chunk is most often exactly ``LOOK\\n`` or ``MOVE N\\n``; the server protocol
looks such a chunk up whole instead of framing and parsing it. Whatever the chunks,
the commands, their order and the errors must be those of the framer's path.
"""

from __future__ import annotations

import pytest

from dungeon_of_doom.protocol.commands import Look, Move, parse_command
from dungeon_of_doom.protocol.connection import ServerProtocol
from dungeon_of_doom.protocol.direction import Direction
from dungeon_of_doom.protocol.errors import LocalProtocolError, RemoteProtocolError
from dungeon_of_doom.protocol.framing import END_OF_INPUT, NEED_DATA


def test_a_whole_canonical_line_is_the_command_the_framer_would_give() -> None:
    server = ServerProtocol()
    server.receive_data(b"LOOK\n")
    assert server.next_event() == Look()
    assert server.next_event() is NEED_DATA
    server.receive_data(b"MOVE N\r\n")
    assert server.next_event() == Move(Direction.N)
    assert server.next_event() is NEED_DATA


def test_a_chunk_after_a_taken_line_keeps_its_place_in_the_order() -> None:
    server = ServerProtocol()
    server.receive_data(b"MOVE S\n")  # taken whole
    server.receive_data(b"MOVE E\n")  # the framer's, after the first
    server.receive_data(b"LOOK\nMOVE W\n")
    assert [server.next_event() for _ in range(4)] == [
        Move(Direction.S),
        Move(Direction.E),
        Look(),
        Move(Direction.W),
    ]
    assert server.next_event() is NEED_DATA


def test_a_canonical_chunk_that_ends_a_half_line_is_framed_with_it() -> None:
    server = ServerProtocol()
    server.receive_data(b"MOV")
    server.receive_data(b"LOOK\n")
    with pytest.raises(RemoteProtocolError, match="MOVLOOK"):
        server.next_event()
    assert server.next_event() is NEED_DATA


def test_a_canonical_chunk_inside_a_telnet_command_is_not_taken_whole() -> None:
    server = ServerProtocol()
    server.receive_data(b"\xff\xfd")  # IAC DO: the next byte is the option
    server.receive_data(b"LOOK\n")
    with pytest.raises(RemoteProtocolError, match="OOK"):
        server.next_event()
    assert server.data_to_send() == b"\xff\xfcL"  # IAC WONT 'L'


def test_a_line_feed_after_a_cr_ending_chunk_is_still_eaten_once() -> None:
    server = ServerProtocol(dialect="2016")  # blank lines are errors here
    server.receive_data(b"LOOK\r")
    server.receive_data(b"LOOK\n")
    server.receive_data(b"\nLOOK\n")
    assert server.next_event() == Look()
    assert server.next_event() == Look()
    with pytest.raises(RemoteProtocolError):
        server.next_event()  # the blank line after LOOK\n, as the framer reads it
    assert server.next_event() == Look()


def test_each_dialect_reads_whole_lines_its_own_way() -> None:
    server = ServerProtocol(dialect="2015")
    server.receive_data(b"HELLO\n")  # a 2015 HELLO needs a name: no fast path
    with pytest.raises(RemoteProtocolError, match="HELLO needs an argument"):
        server.next_event()
    server.receive_data(b"LOOK\n")
    assert server.next_event() == parse_command("LOOK")


def test_input_after_the_end_is_refused_on_the_fast_path_too() -> None:
    server = ServerProtocol()
    server.receive_data(b"")
    with pytest.raises(LocalProtocolError):
        server.receive_data(b"LOOK\n")
    assert server.next_event() is END_OF_INPUT


def test_chunks_that_are_not_bytes_take_the_framer() -> None:
    server = ServerProtocol()
    # Outside the declared type on purpose: what callers pass at run time.
    server.receive_data(bytearray(b"LOOK\n"))  # type: ignore[arg-type]
    assert server.next_event() == Look()


def test_drained_says_need_data_only_when_nothing_came_after_a_taken_line() -> None:
    """``drained`` lets the server stop asking ``next_event``: it must never be true
    while a command is still to come."""
    server = ServerProtocol()
    server.receive_data(b"MOVE S\n")  # taken whole
    assert not server.drained
    server.receive_data(b"LOOK\n")  # the framer's, after it
    assert server.next_event() == Move(Direction.S)
    assert not server.drained  # LOOK is still to come
    assert server.next_event() == Look()
    assert server.next_event() is NEED_DATA
    server.receive_data(b"MOVE N\n")  # taken whole, the framer empty
    assert server.next_event() == Move(Direction.N)
    assert server.drained
    assert server.next_event() is NEED_DATA
    server.receive_data(b"LOOK\n")
    assert not server.drained
    assert server.next_event() == Look()


def test_a_taken_line_owes_no_telnet_answer() -> None:
    server = ServerProtocol()
    server.receive_data(b"LOOK\n")
    assert not server.owed
    server.receive_data(b"\xff\xfd\x01")  # IAC DO ECHO
    assert server.owed
    assert server.next_event() == Look()
    assert server.next_event() is NEED_DATA
    assert server.data_to_send() == b"\xff\xfc\x01"
    assert not server.owed
