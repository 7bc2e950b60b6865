"""Both ends of the protocol as state machines, fed literal bytes."""

from __future__ import annotations

import pytest

from dungeon_of_doom.protocol.commands import Extend, Hello, Look, Move
from dungeon_of_doom.protocol.connection import ClientProtocol, ServerProtocol, ServerState
from dungeon_of_doom.protocol.direction import Direction
from dungeon_of_doom.protocol.errors import LocalProtocolError, RemoteProtocolError
from dungeon_of_doom.protocol.framing import END_OF_INPUT, NEED_DATA
from dungeon_of_doom.protocol.replies import (
    Bye,
    Error,
    Extended,
    GameInfo,
    GameOver,
    Gold,
    LookReply,
    Message,
    Notice,
    PlayerJoined,
    Success,
    TurnBegins,
    View,
    Win,
)

GAME = GameInfo("arena", "classic", "default", 1, 0, None, 0, None)


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


# -- the server's invariants: capabilities and the final line ---------------------------


def command(server: ServerProtocol, data: bytes) -> object:
    server.receive_data(data)
    return server.next_event()


def test_a_push_the_client_did_not_ask_for_is_refused_until_extend_turns_it_on() -> None:
    server = ServerProtocol()
    joined, chat = PlayerJoined("Ada"), Message("Ada", "hi")
    assert not server.wants(joined) and not server.wants(chat)
    with pytest.raises(LocalProtocolError, match="EXTEND events"):
        server.send(joined)
    with pytest.raises(LocalProtocolError, match="EXTEND chat"):
        server.send(chat)
    extend = command(server, b"EXTEND events\r\n")
    assert isinstance(extend, Extend)
    answer = server.extend(extend)
    assert server.send(answer) == b"EXTENDED events\n"
    assert server.send(joined) == b"JOINED Ada\n"
    with pytest.raises(LocalProtocolError):
        server.send(chat)  # events is not chat
    answer = server.extend(command(server, b"EXTEND\n"))  # type: ignore[arg-type]
    assert server.send(answer) == b"EXTENDED events chat\n"
    assert server.send(chat) == b"MESSAGE Ada: hi\n"


def test_extended_turns_on_only_what_extend_asked_for_and_never_turns_one_off() -> None:
    server = ServerProtocol()
    with pytest.raises(LocalProtocolError, match="answers only EXTEND"):
        server.send(Extended(("events",)))
    command(server, b"EXTEND chat\n")
    with pytest.raises(LocalProtocolError, match="did not ask for"):
        server.send(Extended(("chat", "events")))
    assert server.capabilities == frozenset()  # a refused reply changes nothing
    assert server.send(Extended(("chat",))) == b"EXTENDED chat\n"
    command(server, b"EXTEND events\n")
    with pytest.raises(LocalProtocolError, match="off"):
        server.send(Extended(("events",)))
    assert server.send(Extended(("events", "chat"))) == b"EXTENDED events chat\n"


def test_bot_is_left_out_once_the_player_is_in_a_world() -> None:
    server = ServerProtocol()
    extend = command(server, b"EXTEND bot events\n")
    assert isinstance(extend, Extend)
    assert server.send(server.extend(extend, bot_allowed=False)) == b"EXTENDED events\n"
    assert not server.bot
    extend = command(server, b"EXTEND bot\n")
    assert isinstance(extend, Extend)
    assert server.send(server.extend(extend)) == b"EXTENDED events bot\n"
    assert server.bot


def test_a_dialect_s_clients_have_its_capabilities_from_the_start() -> None:
    server = ServerProtocol(dialect="2015")
    assert server.events and server.chat and not server.bot
    assert server.send(TurnBegins(0)) == b"STARTTURN\n"
    assert server.send(Message("Ada", "hi")) == b"FROM Ada\nMESSAGE hi\n"


def test_views_reach_only_a_client_that_watches() -> None:
    server = ServerProtocol()
    view = View(("#.#", "..."))
    with pytest.raises(LocalProtocolError, match="WATCH"):
        server.send(view)
    command(server, b"WATCH arena\n")
    assert server.send(GAME).startswith(b"GAME arena ")
    assert server.send(view) == b"VIEW 2 3\n#.#\n...\n"
    assert server.send(GameOver("arena is over")) == b"GAMEOVER arena is over\n"
    command(server, b"JOIN arena\n")
    server.send(GAME)  # a player now, no longer a spectator
    assert not server.wants(view)


def test_nothing_goes_after_the_final_line() -> None:
    server = ServerProtocol()
    command(server, b"EXTEND\n")
    server.send(Extended(("events", "chat")))
    assert server.send(Win("You escaped.")) == b"WIN You escaped.\n"
    assert server.state is ServerState.CLOSED
    # A Bye is no push: wants() must refuse it, though its type says it is never given one.
    assert not server.wants(Notice("x")) and not server.wants(Bye(""))  # type: ignore[arg-type]
    for reply in (Success(), Notice("x"), Bye("twice")):
        with pytest.raises(LocalProtocolError, match="final line"):
            server.send(reply)


def test_in_a_dialect_that_keeps_the_client_only_bye_is_final() -> None:
    server = ServerProtocol(dialect="2015")
    assert server.send(Win("")) == b"WIN\n"
    assert server.send(Error("the game is over")) == b"FAIL the game is over\n"
    assert server.send(Bye("Thanks for playing.")) == (
        b"FROM SERVER\nMESSAGE Thanks for playing.\n"
    )
    with pytest.raises(LocalProtocolError):
        server.send(Success())


def test_the_server_and_the_client_talk_in_memory() -> None:
    """A ServerProtocol and a ClientProtocol with no socket between them."""
    server, client = ServerProtocol(), ClientProtocol()
    server.receive_data(client.send(Extend(("events",))) + client.send(Look()))
    extend = server.next_event()
    assert isinstance(extend, Extend)
    out = server.send(server.extend(extend))
    assert server.next_event() == Look()
    look = LookReply(("X...X", ".....", "..P..", ".....", "X...X"))
    out += server.send(look) + server.send(PlayerJoined("Ada")) + server.send(Bye("bye"))
    client.receive_data(out)
    client.receive_data(b"")
    assert [client.next_event() for _ in range(5)] == [
        Extended(("events",)),
        look,
        PlayerJoined("Ada"),
        Bye("bye"),
        END_OF_INPUT,
    ]


@pytest.mark.parametrize("dialect", ["2013", "2015"])
def test_connections_of_one_dialect_share_the_set_of_what_they_start_with(dialect: str) -> None:
    # One object for all of them, not one a connection (issue 31 counts each idle byte).
    first, second = ServerProtocol(dialect=dialect), ServerProtocol(dialect=dialect)
    assert first.capabilities is second.capabilities
    assert first.capabilities == frozenset(first.dialect.capabilities)
    first.receive_data(b"EXTEND bot\n")
    command = first.next_event()
    assert isinstance(command, Extend)
    first.send(first.extend(command))
    assert "bot" in first.capabilities
    assert "bot" not in second.capabilities, "what one is granted stays its own"
