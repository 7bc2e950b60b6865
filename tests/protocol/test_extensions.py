"""The extension commands and pushed lines: parsing, exact bytes, and parsing back."""

from __future__ import annotations

import pytest

from dungeon_of_doom.protocol.commands import (
    Command,
    Create,
    Extend,
    Games,
    Join,
    Shout,
    Watch,
    parse_command,
)
from dungeon_of_doom.protocol.errors import RemoteProtocolError
from dungeon_of_doom.protocol.replies import (
    Extended,
    GameInfo,
    GameOver,
    GamesReply,
    Message,
    Notice,
    PlayerJoined,
    PlayerLeft,
    Push,
    ReplyParser,
    RoundEnded,
    Seen,
    View,
)

ARENA = GameInfo("arena", "crawler", "easy", 7, 2, 4, 1, 30.0)


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("EXTEND", Extend()),
        ("extend Events BOT", Extend(("events", "bot"))),
        ("SHOUT hello   there", Shout("hello there")),
        ("games", Games()),
        ("JOIN arena-2", Join("arena-2")),
        ("watch default", Watch("default")),
        ("CREATE arena crawler", Create("arena", "crawler")),
        (
            "CREATE arena Crawler map=easy seed=7 players=4 turn=2.5",
            Create("arena", "crawler", "easy", 7, 4, 2.5),
        ),
    ],
)
def test_extension_commands_parse_and_write_back(line: str, command: Command) -> None:
    assert parse_command(line) == command
    assert parse_command(command.to_line()) == command


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("SHOUT", "SHOUT takes a message"),
        ("SHOUT \x1b[31mred", "printable"),
        ("JOIN", "takes the name of one game"),
        ("JOIN a b", "takes the name of one game"),
        ("WATCH ../x", "is not a game name"),
        ("CREATE arena", "usage: CREATE"),
        ("CREATE arena classic size=3", 'unknown option "size=3"'),
        ("CREATE arena classic seed=x", "seed= takes a number"),
        ("CREATE arena classic seed=1 seed=2", "seed= given twice"),
        ("CREATE arena classic turn=0", "turn= takes seconds"),
        ("CREATE arena classic turn=nan", "turn= takes seconds"),
        ("CREATE arena classic players=1001", "players= takes a number from 1 to 1000"),
        ("HELLO Ada: admin", "may not hold ':'"),
        ("HELLO #1", "may not begin with '#'"),
    ],
)
def test_bad_extension_lines_say_what_is_wrong(line: str, fragment: str) -> None:
    with pytest.raises(RemoteProtocolError) as caught:
        parse_command(line)
    assert fragment in str(caught.value)
    assert str(caught.value).isprintable()


@pytest.mark.parametrize(
    ("reply", "wire"),
    [
        (Extended(("events", "chat")), b"EXTENDED events chat\n"),
        (Extended(()), b"EXTENDED\n"),
        (
            ARENA,
            b"GAME arena world=crawler map=easy seed=7 players=2 limit=4 watchers=1 turn=30\n",
        ),
        (
            GamesReply((ARENA, GameInfo("default", "classic", "default", 0, 0, None, 0, None))),
            b"GAMES 2\nGAME arena world=crawler map=easy seed=7 players=2 limit=4 watchers=1 "
            b"turn=30\nGAME default world=classic map=default seed=0 players=0 limit=none "
            b"watchers=0 turn=none\n",
        ),
        (GamesReply(()), b"GAMES 0\n"),
        (Message("Ada", "hi: there"), b"MESSAGE Ada: hi: there\n"),
        (Message("", "server restarting"), b"MESSAGE server restarting\n"),
        (PlayerJoined("Ada Lovelace"), b"JOINED Ada Lovelace\n"),
        (PlayerLeft("#3", "died"), b"LEFT #3: died\n"),
        (Seen("Ada", "MOVE NE", "FAIL"), b"SAW Ada: MOVE NE FAIL\n"),
        (
            Seen("Bo", "PICKUP", "SUCCESS, GOLD COINS: 2"),
            b"SAW Bo: PICKUP SUCCESS, GOLD COINS: 2\n",
        ),
        (RoundEnded(12, 2, 1), b"ROUND 12 acted=2 missed=1\n"),
        (View(("#.#", "P.E")), b"VIEW 2 3\n#.#\nP.E\n"),
        (GameOver("arena is over after 9 rounds"), b"GAMEOVER arena is over after 9 rounds\n"),
    ],
)
def test_extension_replies_exact_bytes_and_parse_back(reply: object, wire: bytes) -> None:
    assert reply.to_bytes() == wire  # type: ignore[attr-defined]
    parser = ReplyParser()
    results = [parser.feed(line) for line in wire.decode().splitlines()]
    assert results[-1] == reply
    assert all(result is None for result in results[:-1])


def test_every_pushed_line_is_a_push_and_no_reply_is() -> None:
    pushes = [
        Notice("x"),
        Message("a", "b"),
        PlayerJoined("a"),
        PlayerLeft("a", "quit"),
        Seen("a", "STAY", "SUCCESS"),
        RoundEnded(1, 1, 0),
        View(("..",)),
        GameOver("x"),
    ]
    assert all(isinstance(push, Push) for push in pushes)
    assert not isinstance(ARENA, Push) and not isinstance(Extended(()), Push)


@pytest.mark.parametrize(
    "line",
    [
        "ROUND 1",
        "ROUND x acted=1 missed=0",
        "SAW Ada MOVE N FAIL",
        "SAW Ada: MOVE N",
        "GAME arena world=classic",
        "LEFT Ada",
    ],
)
def test_malformed_pushes_are_the_servers_fault(line: str) -> None:
    with pytest.raises(RemoteProtocolError):
        ReplyParser().feed(line)
