"""Each dialect's bytes, both ways, with literal bytes (DIALECTS.md, docs/dialects.md)."""

from __future__ import annotations

import pytest

from dungeon_of_doom.protocol.commands import Attack, Hello, Look, Move, Pickup, Quit, Shout
from dungeon_of_doom.protocol.connection import ServerProtocol
from dungeon_of_doom.protocol.dialects import DIALECTS, UnknownDialect, dialect_named
from dungeon_of_doom.protocol.direction import Direction
from dungeon_of_doom.protocol.errors import RemoteProtocolError
from dungeon_of_doom.protocol.framing import NEED_DATA
from dungeon_of_doom.protocol.replies import (
    ActionPoints,
    Bye,
    Done,
    Error,
    Fail,
    GamesReply,
    GameWon,
    Gold,
    GoldCoins,
    HitMod,
    LookReply,
    Lose,
    Message,
    Notice,
    NotYourTurn,
    PlayerJoined,
    PlayerLeft,
    Reply,
    RoundEnded,
    Seen,
    Success,
    TurnBegins,
    TurnOf,
    TurnOver,
    Win,
)

VIEW = LookReply(("X###X", "#####", "##G.E", "#####", "X###X"))

# One row per reply, one column per dialect: the table of docs/dialects.md, as bytes.
TABLE: list[tuple[Reply, bytes, bytes, bytes]] = [
    (Gold(1, name="bob", held=1), b"GOLD 1\n", b"HELLO bob\n", b"GOLD: 0\n"),
    (Gold(2), b"GOLD 2\n", b"GOLD 2\n", b"GOLD: 2\n"),
    (Success(), b"SUCCESS\n", b"SUCCESS\n", b"SUCCESS\n"),
    (Done(), b"SUCCESS\n", b"", b"SUCCESS\n"),
    (Fail("can't move into a wall"), b"FAIL\n", b"FAIL can't move into a wall\n", b"FAIL\n"),
    (
        GoldCoins(1),
        b"SUCCESS, GOLD COINS: 1\n",
        b"SUCCESS\nTREASUREMOD 1\n",
        b"SUCCESS, GOLD COINS: 1\n",
    ),
    (
        VIEW,
        b"LOOKREPLY\nX###X\n#####\n##G.E\n#####\nX###X\n",
        b"LOOKREPLY\nX###X\n#####\n##G.E\n#####\nX###X\n\n",
        b"X###X\n#####\n##P.E\n#####\nX###X\n\n",
    ),
    (Error("unknown command"), b"ERROR unknown command\n", b"FAIL unknown command\n", b"FAIL\n"),
    (
        NotYourTurn("it is not your turn: Ada is playing"),
        b"ERROR it is not your turn: Ada is playing\n",
        b"FAIL not your turn\n",
        b"FAIL\n",
    ),
    (Message("Ada", "hi"), b"MESSAGE Ada: hi\n", b"FROM Ada\nMESSAGE hi\n", b"CHAT Ada: hi\n"),
    # The 2015 server said nothing in words but that the game was won (RULES-battle §6).
    (Notice("1 gold fell to the floor"), b"NOTICE 1 gold fell to the floor\n", b"", b""),
    (
        GameWon("Ada has won the game"),
        b"NOTICE Ada has won the game\n",
        b"FROM SERVER\nMESSAGE Someone has won the game!!\n",
        b"",
    ),
    (
        Seen("Ada", "MOVE N", "SUCCESS"),
        b"SAW Ada: MOVE N SUCCESS\n",
        b"CHANGE\n",
        b"SERVERCHANGE\n",
    ),
    (Seen("Ada", "PICKUP", "SUCCESS"), b"SAW Ada: PICKUP SUCCESS\n", b"", b""),
    (Seen("Ada", "MOVE N", "FAIL"), b"SAW Ada: MOVE N FAIL\n", b"", b""),
    (PlayerJoined("Ada"), b"JOINED Ada\n", b"", b""),
    (PlayerLeft("Ada", "quit"), b"LEFT Ada: quit\n", b"", b""),
    (RoundEnded(3, 1, 0), b"ROUND 3 acted=1 missed=0\n", b"", b""),
    (TurnBegins(6), b"STARTTURN 6\n", b"STARTTURN\n", b""),
    (TurnOver(), b"ENDTURN\n", b"ENDTURN\n", b""),
    (TurnOf("Ada"), b"TURN Ada\n", b"", b""),
    (HitMod(-1), b"HITMOD -1\n", b"HITMOD -1\n", b""),
    (ActionPoints(4), b"AP 4\n", b"AP 4\n", b"AP 4\n"),
    (
        Win("You escaped."),
        b"WIN You escaped.\n",
        b"WIN\n",
        b"Congratulations!!! \n You have escaped the Dungeon of Dooom!!!!!! \n"
        b"Thank you for playing!\nGame Over! You escaped.\n",
    ),
    (Lose("You died."), b"LOSE You died.\n", b"LOSE\n", b"Game Over! You died.\n"),
    (
        Bye("Thanks for playing."),
        b"BYE Thanks for playing.\n",
        b"FROM SERVER\nMESSAGE Thanks for playing.\n",
        b"Game Over! Thanks for playing.\n",
    ),
    (GamesReply(()), b"GAMES 0\n", b"GAMES 0\n", b"GAMES 0\n"),
]


@pytest.mark.parametrize(("reply", "era2013", "era2015", "era2016"), TABLE)
def test_every_reply_in_every_dialect(
    reply: Reply, era2013: bytes, era2015: bytes, era2016: bytes
) -> None:
    assert dialect_named("2013").render(reply) == era2013 == reply.to_bytes()
    assert dialect_named("2015").render(reply) == era2015
    assert dialect_named("2016").render(reply) == era2016


def test_the_2015_treasure_line_says_what_the_pickup_added() -> None:
    dialect = dialect_named("2015")
    assert dialect.render(GoldCoins(1)) == b"SUCCESS\nTREASUREMOD 1\n"
    assert dialect.render(GoldCoins(4)) == b"SUCCESS\nTREASUREMOD 3\n"
    # A total that fell (a new game) starts the count again.
    assert dialect.render(GoldCoins(2)) == b"SUCCESS\nTREASUREMOD 2\n"


def test_the_2016_look_puts_the_player_in_the_centre_of_a_lantern_view_too() -> None:
    rows = ("X.....X", ".......", ".......", "...G...", ".......", ".......", "X.....X")
    assert dialect_named("2016").render(LookReply(rows)) == (
        b"X.....X\n.......\n.......\n...P...\n.......\n.......\nX.....X\n\n"
    )


def test_unknown_dialect_names_the_known_ones() -> None:
    with pytest.raises(UnknownDialect, match="2013, 2015, 2016"):
        dialect_named("2014")
    assert set(DIALECTS) == {"2013", "2015", "2016", "2016ch", "2016mbk"}


def events(dialect: str, data: bytes) -> list[object]:
    """What a server of ``dialect`` makes of ``data``: commands, or the error's message."""
    server = ServerProtocol(dialect=dialect)
    server.receive_data(data)
    seen: list[object] = []
    while True:
        try:
            event = server.next_event()
        except RemoteProtocolError as error:
            seen.append(str(error))
            continue
        if event is NEED_DATA:
            return seen
        seen.append(event)


def test_2015_reads_lines_as_the_bath_skeleton_did() -> None:
    assert events(
        "2015",
        b"LOOK\nlook\n LOOK\n\nLOOK now\nHELLO\nHELLO bob\nMOVE\nMOVE n\nMOVE NORTH\nMOVE N\n"
        b"ATTACK E\nPICKUP\nSHOUT\nSHOUT hello there\nENDTURN whatever\nDANCE\nQUIT\n",
    ) == [
        Look(),
        "invalid command",
        "invalid command",
        "invalid command",
        "LOOK does not take an argument",
        "HELLO needs an argument",
        Hello("bob"),
        "MOVE needs a direction",
        "invalid direction",
        "invalid direction",
        Move(Direction.N),
        Attack(Direction.E),
        Pickup(),
        "need something to shout",
        Shout("hello there"),
        events("2013", b"ENDTURN\n")[0],
        "invalid command",
        Quit(),
    ]


def test_2016_reads_trimmed_lines_in_any_case_and_refuses_blank_ones() -> None:
    assert events("2016", b"  look  \n\n\tmove e\nDANCE\n") == [
        Look(),
        "invalid command",
        Move(Direction.E),
        'unknown command "DANCE"; send HELP for the list of commands',
    ]


def test_2013_is_unchanged_blank_lines_skipped() -> None:
    assert events("2013", b"\n  look \nmove e\n") == [Look(), Move(Direction.E)]


def test_the_server_protocol_renders_in_its_dialect() -> None:
    assert ServerProtocol().send(Fail("x")) == b"FAIL\n"
    assert ServerProtocol(dialect="2015").send(Fail("x")) == b"FAIL x\n"
    assert ServerProtocol(dialect="2016").send(Gold(3, held=1)) == b"GOLD: 2\n"
