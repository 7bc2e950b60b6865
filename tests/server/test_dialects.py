"""Every dialect against a real server on port 0, byte for byte.

The clients here are written from ``DIALECTS.md`` (what the 2015 and 2016 programs send
and read), not from those programs. The tiny map is ``#G.E#`` with a goal of 1; seed 1
puts the first player on the gold, west of the floor and the exit.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from protocol.dialects import dialect_named
from protocol.replies import Reply, TurnBegins
from server.app import Server
from server.cli import main
from server.session.greetings import TurnReminder, turn_points
from server.setup.listening import parse_listens

from ..conftest import StartServer
from ..helpers import Peer, bound_port
from .conftest import nothing_received

TINY = {"map": "tiny", "seed": 1}
VIEW_2013 = b"LOOKREPLY\nX###X\n#####\n##G.E\n#####\nX###X\n"


async def exactly(peer: Peer, line: str, expected: bytes) -> None:
    """Send ``line`` and read exactly ``expected``, and nothing more."""
    if line is not None:
        await peer.send(line.encode() + b"\n")
    assert await peer.read_exactly(len(expected)) == expected
    assert await nothing_received(peer)


def port(server: Server, dialect: str) -> int:
    return next(listen.port for listen in server.listening if listen.dialect == dialect)


async def test_2015_a_whole_game_as_the_bath_skeleton_speaks_it(start_server: StartServer) -> None:
    server = await start_server(dialect="2015", **TINY)
    peer = await Peer.connect(bound_port(server))
    # Unasked, on connect: the goal, then the turn (the client sends nothing before).
    assert await peer.read_exactly(len(b"GOLD 1\nSTARTTURN\n")) == b"GOLD 1\nSTARTTURN\n"
    await exactly(peer, "HELLO", b"FAIL HELLO needs an argument\n")
    await exactly(peer, "HELLO bob", b"HELLO bob\n")
    await exactly(peer, "LOOK", VIEW_2013 + b"\n")
    for line in ("look", " LOOK", "", "QUITE"):
        await exactly(peer, line, b"FAIL invalid command\n")
    await exactly(peer, "LOOK now", b"FAIL LOOK does not take an argument\n")
    await exactly(peer, "MOVE", b"FAIL MOVE needs a direction\n")
    await exactly(peer, "MOVE n", b"FAIL invalid direction\n")
    await exactly(peer, "MOVE N", b"FAIL can't move into a wall\n")
    await exactly(peer, "PICKUP", b"SUCCESS\nTREASUREMOD 1\n")
    await exactly(peer, "PICKUP", b"FAIL nothing to pick up\n")
    await exactly(peer, "SHOUT", b"FAIL need something to shout\n")
    await exactly(peer, "SHOUT hello all", b"FROM bob\nMESSAGE hello all\n")
    await exactly(peer, "MOVE E", b"SUCCESS\n")
    await exactly(peer, "MOVE E", b"SUCCESS\nWIN\n")
    # The connection stays, as the 2015 server kept it; the game is over for it.
    await exactly(peer, "MOVE W", b"FAIL the game is over\n")
    await exactly(peer, "LOOK", b"FAIL the game is over\n")


async def test_2016_a_whole_game_as_its_clients_read_it(start_server: StartServer) -> None:
    server = await start_server(dialect="2016", **TINY)
    peer = await Peer.connect(bound_port(server))
    assert await nothing_received(peer)  # no greeting: its bot sends HELLO first
    await exactly(peer, "HELLO", b"GOLD: 1\n")
    await exactly(peer, "LOOK", b"X###X\n#####\n##P.E\n#####\nX###X\n\n")
    await exactly(peer, "  look  ", b"X###X\n#####\n##P.E\n#####\nX###X\n\n")
    await exactly(peer, "", b"FAIL\n")
    await exactly(peer, "DANCE", b"FAIL\n")
    await exactly(peer, "MOVE N", b"FAIL\n")
    await exactly(peer, "PICKUP", b"SUCCESS, GOLD COINS: 1\n")
    await exactly(peer, "HELLO", b"GOLD: 0\n")  # what is still needed: its bot heads out at 0
    await exactly(peer, "MOVE E", b"SUCCESS\n")
    await peer.send(b"MOVE E\n")
    assert await peer.read_to_end() == (
        b"SUCCESS\nCongratulations!!! \n You have escaped the Dungeon of Dooom!!!!!! \n"
        b"Thank you for playing!\nGame Over! You escaped the dungeon with 1 gold in 4 moves.\n"
    )


SMALL = "name Small\nwin 1\n#####\n#G.E#\n#...#\n#####\n"
"""Six squares, each within sight of every other."""


async def test_listeners_of_every_dialect_share_one_game(
    start_server: StartServer, write_map: Callable[[str], str]
) -> None:
    server = await start_server(listen="0,0:2015,0:2016", map=write_map(SMALL), seed=1)
    assert [listen.dialect for listen in server.listening] == ["2013", "2015", "2016"]
    classic = await Peer.connect(port(server, "2013"))
    await exactly(classic, "HELLO Ada", b"GOLD 1\n")
    zss = await Peer.connect(port(server, "2015"))
    assert await zss.read_exactly(len(b"GOLD 1\nSTARTTURN\n")) == b"GOLD 1\nSTARTTURN\n"
    lib = await Peer.connect(port(server, "2016"))
    await exactly(lib, "HELLO", b"GOLD: 1\n")
    # The 2013 player moves: the 2015 client sees a change, the 2016 one is told to LOOK
    # again, the 2013 one (no EXTEND) gets its replies alone, unchanged.
    for direction in "NESW":
        await classic.send(f"MOVE {direction}\n")
        if await classic.read_line() == "SUCCESS":
            break
        assert await nothing_received(zss) and await nothing_received(lib)  # no move, no news
    else:
        raise AssertionError("Ada could not move")
    await exactly(zss, None, b"CHANGE\n")  # type: ignore[arg-type]
    await exactly(lib, None, b"SERVERCHANGE\n")  # type: ignore[arg-type]
    # Chat reaches each in its own words; the 2013 client did not ask for it.
    await exactly(zss, "SHOUT hi", b"FROM #2\nMESSAGE hi\n")
    await exactly(lib, None, b"CHAT #2: hi\n")  # type: ignore[arg-type]
    assert await nothing_received(classic)
    # The 2013 view keeps its header and no blank line.
    view = await classic.ask("LOOK")
    assert view[0] == "LOOKREPLY" and len(view) == 6
    assert await nothing_received(classic)


async def test_2015_in_a_world_with_turns_tells_the_worlds_turns(
    start_server: StartServer, write_map: Callable[[str], str]
) -> None:
    arena = "name Arena\nwin 1\n#########\n#G.....E#\n#.......#\n#########\n"
    server = await start_server(world="battle", map=write_map(arena), seed=203, dialect="2015")
    first = await Peer.connect(bound_port(server))
    assert await first.read_exactly(len(b"GOLD 1\nSTARTTURN\n")) == b"GOLD 1\nSTARTTURN\n"
    second = await Peer.connect(bound_port(server))
    # A later player is told the goal only; the turn is the first player's.
    assert await second.read_exactly(len(b"GOLD 1\n")) == b"GOLD 1\n"
    assert await nothing_received(second)
    await exactly(second, "MOVE E", b"FAIL not your turn\n")
    await exactly(first, "APGET", b"AP 6\n")
    await exactly(first, "ENDTURN", b"ENDTURN\n")
    assert await second.read_exactly(len(b"STARTTURN\n")) == b"STARTTURN\n"


class _World:
    has_turns = True
    turn: int | None = 1

    def action_points(self, player: int) -> int:
        return 4


class _Client:
    """What :class:`TurnReminder` needs of a client, and what it was sent."""

    def __init__(self) -> None:
        self.closed = False
        self.sent: list[bytes] = []

    def push(self, line: Reply) -> None:
        self.sent.append(dialect_named("2015").render(line))


def test_a_silent_client_is_reminded_of_its_turn_less_often_each_time() -> None:
    client = _Client()
    world = _World()
    world.has_turns = False  # a world without turns: always its turn
    reminder = TurnReminder(client, lambda: turn_points(world, 1), 0.0)  # type: ignore[arg-type]
    reminder.check(1.9)
    assert client.sent == []
    reminder.check(2.0)
    assert client.sent == [b"STARTTURN\n"]
    reminder.check(5.9)  # the next after 4 more seconds
    assert len(client.sent) == 1
    reminder.check(6.0)
    assert len(client.sent) == 2
    reminder.acted(7.0)  # a command starts the count again from 2 seconds
    reminder.check(9.0)
    assert len(client.sent) == 3
    client.closed = True
    reminder.check(100.0)
    assert len(client.sent) == 3


def test_in_a_world_with_turns_only_the_player_whose_turn_it_is_is_reminded() -> None:
    world = _World()
    client = _Client()
    reminder = TurnReminder(client, lambda: turn_points(world, 1), 0.0)  # type: ignore[arg-type]
    world.turn = 2
    reminder.check(3.0)
    assert client.sent == []
    world.turn = 1
    reminder.check(4.0)  # silence counts from the last check that found another's turn
    assert client.sent == []
    reminder.check(5.0)
    assert client.sent == [b"STARTTURN\n"]
    assert TurnBegins(4).to_bytes() == b"STARTTURN 4\n"  # the 2013 form says the points


def test_listen_flags_are_repeatable_and_checked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [name for name in os.environ if name.startswith("DOD_")]:
        monkeypatch.delenv(name)
    assert (
        main(["--listen", "40004", "--listen", "40005:2015", "--dialect", "2016", "--print-config"])
        == 0
    )
    out = capsys.readouterr().out
    assert "listen" in out and '"40004,40005:2015"' in out and "dialect" in out
    assert [str(x) for x in parse_listens("40004,40005:2015", "2016")] == [
        "40004:2016",
        "40005:2015",
    ]
    for bad, message in (
        ("40005:2014", "unknown dialect '2014'"),
        ("port", "expected PORT or PORT:DIALECT"),
        ("70000", "a port is from 0 to 65535"),
    ):
        with pytest.raises(SystemExit) as exit:
            main(["--listen", bad, "--print-config"])
        assert exit.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("dod-server: error: --listen: ") and message in err, err
        assert err.count("\n") == 1


async def test_names_and_chat_that_are_not_utf8_are_refused_in_every_dialect(
    start_server: StartServer,
) -> None:
    # Issue 20: they reached other players as U+FFFD; now the line is refused whole.
    server = await start_server(listen="0,0:2015", **TINY)
    listener = await Peer.connect(port(server, "2013"))
    assert await listener.ask("EXTEND") == ["EXTENDED events chat"]
    await exactly(listener, "HELLO Ada", b"GOLD 1\n")
    classic = await Peer.connect(port(server, "2013"))
    await classic.send(b"HELLO Ren\xe9e\n")
    assert await classic.read_line() == (
        "ERROR the line is not UTF-8 text (byte 0xe9 at 9); send UTF-8"
    )
    await classic.send(b"SHOUT caf\xe9\n")
    assert await classic.read_line() == (
        "ERROR the line is not UTF-8 text (byte 0xe9 at 9); send UTF-8"
    )
    zss = await Peer.connect(port(server, "2015"))
    await zss.read_exactly(len(b"GOLD 1\nSTARTTURN\n"))
    await zss.send(b"HELLO Ren\xe9e\n")
    assert await zss.read_line() == "FAIL the line is not UTF-8 text (byte 0xe9 at 9); send UTF-8"
    # Ada heard of the 2015 player arriving, and of nothing with a replaced byte.
    assert await listener.read_line() == "JOINED #2"
    assert await nothing_received(listener)


async def test_a_refused_connection_is_told_why_in_its_own_dialect(
    start_server: StartServer,
) -> None:
    # The refusal used to be written around the protocol, in 2013 words to every client.
    server = await start_server(dialect="2015", max_connections=1, **TINY)
    first = await Peer.connect(bound_port(server))
    assert await first.read_exactly(len(b"GOLD 1\nSTARTTURN\n")) == b"GOLD 1\nSTARTTURN\n"
    second = await Peer.connect(bound_port(server))
    assert await second.read_to_end() == (
        b"FROM SERVER\nMESSAGE the server is full (1 connections); try again later\n"
    )


async def test_2015_apget_in_a_world_without_turns_answers_its_endless_turn(
    start_server: StartServer,
) -> None:
    # zss's GUI asks APGET after every move and showed "Failed!" for the FAIL it got.
    server = await start_server(listen="0,0:2015", **TINY)
    zss = await Peer.connect(port(server, "2015"))
    assert await zss.read_exactly(len(b"GOLD 1\nSTARTTURN\n")) == b"GOLD 1\nSTARTTURN\n"
    await exactly(zss, "APGET", b"AP 6\n")
    await exactly(zss, "MOVE N", b"FAIL can't move into a wall\n")
    await exactly(zss, "APGET", b"AP 6\n")  # a turn that never ends is never spent
    # The 2013 dialect keeps its word: no action points where there are no turns.
    classic = await Peer.connect(port(server, "2013"))
    await exactly(classic, "HELLO Ada", b"GOLD 1\n")
    await exactly(classic, "APGET", b"ERROR APGET is not available in the classic world\n")


async def _moves_that_succeed(peer: Peer, count: int) -> int:
    """Make ``count`` moves that succeed, back and forth (SMALL: every square in sight)."""
    moved = 0
    for _ in range(8 * count):
        for direction in "NESW":
            await peer.send(f"MOVE {direction}\n")
            if await peer.read_line() == "SUCCESS":
                moved += 1
                break
        if moved == count:
            return moved
    raise AssertionError(f"moved {moved} times of {count}")


async def test_look_again_pushes_are_coalesced_until_the_client_next_speaks(
    start_server: StartServer, write_map: Callable[[str], str]
) -> None:
    # Every move within sight pushed its own CHANGE; a busy game buried zss's AI client.
    server = await start_server(listen="0,0:2015,0:2016", map=write_map(SMALL), seed=1)
    zss = await Peer.connect(port(server, "2015"))
    assert await zss.read_exactly(len(b"GOLD 1\nSTARTTURN\n")) == b"GOLD 1\nSTARTTURN\n"
    lib = await Peer.connect(port(server, "2016"))
    await exactly(lib, "HELLO", b"GOLD: 1\n")
    classic = await Peer.connect(port(server, "2013"))
    await exactly(classic, "HELLO Ada", b"GOLD 1\n")
    await _moves_that_succeed(classic, 3)
    await exactly(zss, None, b"CHANGE\n")  # type: ignore[arg-type]
    await exactly(lib, None, b"SERVERCHANGE\n")  # type: ignore[arg-type]
    # Once the client has spoken (its LOOK shows every move so far), the next move is news.
    zss_view = await zss.ask("LOOK")
    assert zss_view[0] == "LOOKREPLY" and await zss.read_line() == ""  # its blank line
    assert await nothing_received(zss)
    await _moves_that_succeed(classic, 2)
    await exactly(zss, None, b"CHANGE\n")  # type: ignore[arg-type]
    assert await nothing_received(lib)  # lib has not spoken since its SERVERCHANGE


def _ch_view(header: bytes, rows: tuple[str, ...]) -> bytes:
    """ch739's view: a header, the rows, what lies under each square in sight (the last
    hint twice: its client drops one), ``RENDERHINT END``."""
    hints = [
        f"RENDERHINT {col} {row} TILETYPE {glyph if glyph in '#E' else '.'}\n"
        for row, line in enumerate(rows)
        for col, glyph in enumerate(line)
        if glyph != "X"
    ]
    body = "".join(f"{row}\n" for row in rows) + "".join(hints) + hints[-1] + "RENDERHINT END\n"
    return header + body.encode()


async def test_2016ch_a_whole_game_as_ch739s_client_reads_it(start_server: StartServer) -> None:
    server = await start_server(dialect="2016ch", **TINY)
    peer = await Peer.connect(bound_port(server))
    assert await nothing_received(peer)  # its client speaks first: HELLO <name>
    await exactly(peer, "HELLO", b"FAIL HELLO needs an argument.\n")
    # Its GUI starts on HELLO; its bot acts only after STARTTURN, on the view pushed as
    # CHANGE (it never sends LOOK); its reader reads rows up to RENDERHINT END.
    start = ("X###X", "#####", "##G.E", "#####", "X###X")
    await exactly(peer, "HELLO bob", b"HELLO bob\nSTARTTURN\n" + _ch_view(b"CHANGE \n", start))
    await exactly(peer, "LOOK", _ch_view(b"LOOKREPLY\n", start))
    await exactly(peer, "  LOOK", b"FAIL invalid command.\n")
    await exactly(peer, "LOOK now", b"FAIL LOOK does not take an argument.\n")
    await exactly(peer, "MOVE N", b"FAIL can't move into a wall\n")  # the view is unchanged
    picked = ("X###X", "#####", "##..E", "#####", "X###X")
    await exactly(peer, "PICKUP", b"SUCCESS\nTREASUREMOD 1\n" + _ch_view(b"CHANGE \n", picked))
    moved = ("X###X", "#####", "#..E#", "#####", "X###X")
    await exactly(peer, "move E", b"SUCCESS\n" + _ch_view(b"CHANGE \n", moved))
    await exactly(peer, "MOVE E", b"SUCCESS\nWIN\n")
    await exactly(peer, "LOOK", b"FAIL the game is over\n")  # it stays, as its server kept it


async def test_2016ch_sees_another_players_move_as_a_pushed_view(
    start_server: StartServer, write_map: Callable[[str], str]
) -> None:
    server = await start_server(listen="0,0:2016ch", map=write_map(SMALL), seed=1)
    ch = await Peer.connect(port(server, "2016ch"))
    await ch.send(b"HELLO bot\n")
    assert await ch.read_line() == "HELLO bot"
    assert await ch.read_line() == "STARTTURN"
    assert await ch.read_line() == "CHANGE "
    first = tuple([await ch.read_line() for _ in range(5)])
    while await ch.read_line() != "RENDERHINT END":
        pass
    classic = await Peer.connect(port(server, "2013"))
    await exactly(classic, "HELLO Ada", b"GOLD 1\n")
    assert await nothing_received(ch)  # a player's arrival is no move
    await _moves_that_succeed(classic, 1)
    assert await ch.read_line() == "CHANGE "
    seen = tuple([await ch.read_line() for _ in range(5)])
    assert seen != first and "P" in "".join(seen)  # Ada, in sight, where she moved to


def _mbk_view(*rows: str) -> bytes:
    return b"".join(b"L5" + row.encode() + b"\n" for row in rows)


async def test_2016mbk_a_whole_game_as_mbuckley2000s_client_reads_it(
    start_server: StartServer,
) -> None:
    # Its GUI sends NAME first (our 2013 word for it was ERROR unknown command, and the GUI
    # stayed black); its reader dies on a blank line, and ignores lines it does not know.
    server = await start_server(dialect="2016mbk", **TINY)
    peer = await Peer.connect(bound_port(server))
    # As mbuckley2000's server greets every connection (its client reads past it).
    assert await peer.read_line() == "Welcome to the dungeon! Mwuahaha"
    start = _mbk_view("X###X", "#####", "##P.E", "#####", "X###X")
    await exactly(peer, "NAME bob", b"H1\n" + start)  # the gold still needed, and the view
    await exactly(peer, "HELLO", b"H1\n")
    await exactly(peer, "LOOK", start)
    await exactly(peer, "MOVE N", b"MF\n")
    for refused in ("DANCE", "", "MOVE"):
        await exactly(peer, refused, b"")  # its server answered nothing
    await exactly(peer, "PICKUP", b"PS1\n" + start)
    await exactly(peer, "PICKUP", b"PF\n")
    await exactly(peer, "SAY hi all", b"Cbob: hi all\n")
    await exactly(peer, "HELLO", b"H0\n")
    moved = _mbk_view("X###X", "#####", "#.PE#", "#####", "X###X")
    await exactly(peer, "move e", b"MS\n" + moved)
    # Then the connection ends, as mbuckley2000's server exits after a win: its bot
    # ignores WIN and would walk into a wall for ever (issue 39).
    await peer.send(b"MOVE East\n")
    assert await peer.read_to_end() == b"MS\nWIN\n"
