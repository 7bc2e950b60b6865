"""Both ends of the protocol as state machines, fed literal bytes."""

from __future__ import annotations

import pytest

from protocol.commands import Hello, Look, Move
from protocol.connection import ClientProtocol, ServerProtocol
from protocol.direction import Direction
from protocol.errors import RemoteProtocolError
from protocol.framing import END_OF_INPUT, NEED_DATA
from protocol.replies import Gold, LookReply, Success


def test_server_side_skips_blank_lines_and_reports_bad_ones() -> None:
    server = ServerProtocol()
    server.receive_data(b"\r\n  \nHELLO\r\nDANCE\nmove e\n")
    assert server.next_event() == Hello()
    with pytest.raises(RemoteProtocolError):
        server.next_event()
    assert server.next_event() == Move(Direction.E)
    assert server.next_event() is NEED_DATA
    server.receive_data(b"")
    assert server.next_event() is END_OF_INPUT


def test_server_side_answers_telnet_and_formats_replies() -> None:
    server = ServerProtocol()
    server.receive_data(b"\xff\xfd\x01LOOK\n")
    assert server.next_event() == Look()
    assert server.data_to_send() == b"\xff\xfc\x01"
    assert server.send(Gold(5)) == b"GOLD 5\n"


def test_server_side_line_limit() -> None:
    server = ServerProtocol(max_line_length=10)
    server.receive_data(b"x" * 11)
    with pytest.raises(RemoteProtocolError) as caught:
        server.next_event()
    assert caught.value.fatal


def test_client_side_round_trip() -> None:
    client = ClientProtocol()
    assert client.send(Move(Direction.N)) == b"MOVE N\n"
    client.receive_data(b"GOLD 2\nLOOKREPLY\nX...X\n")
    assert client.next_event() == Gold(2)
    assert client.next_event() is NEED_DATA
    client.receive_data(b".....\n..G..\n.....\nX...X\nSUCCESS\n")
    assert client.next_event() == LookReply(("X...X", ".....", "..G..", ".....", "X...X"))
    assert client.next_event() == Success()
    client.receive_data(b"")
    assert client.next_event() is END_OF_INPUT


def test_client_side_close_inside_a_reply_is_an_error() -> None:
    client = ClientProtocol()
    client.receive_data(b"LOOKREPLY\nX...X\n")
    assert client.next_event() is NEED_DATA
    client.receive_data(b"")
    with pytest.raises(RemoteProtocolError):
        client.next_event()
