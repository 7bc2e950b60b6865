"""Reply bytes are exact (RULES §1), and the client-side parser reads them back."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from dungeon_of_doom.protocol.dialects import DIALECTS, dialect_named
from dungeon_of_doom.protocol.errors import LocalProtocolError, RemoteProtocolError
from dungeon_of_doom.protocol.replies import (
    Bye,
    Error,
    Fail,
    Gold,
    GoldCoins,
    HelpReply,
    LookReply,
    Lose,
    MapReply,
    Notice,
    Redirect,
    ReplyParser,
    Success,
    Win,
)

VIEW = ("X###X", "#.###", ".GG..", "###.#", "X#G.X")


@pytest.mark.parametrize(
    ("reply", "wire"),
    [
        (Gold(2), b"GOLD 2\n"),
        (Gold(0), b"GOLD 0\n"),
        (Success(), b"SUCCESS\n"),
        (Fail(), b"FAIL\n"),
        (GoldCoins(3), b"SUCCESS, GOLD COINS: 3\n"),
        (LookReply(VIEW), b"LOOKREPLY\nX###X\n#.###\n.GG..\n###.#\nX#G.X\n"),
        (Error("bad"), b"ERROR bad\n"),
        (HelpReply(("a", "b")), b"HELP 2\na\nb\n"),
        (MapReply(("#.#", "#E#")), b"MAP 2 3\n#.#\n#E#\n"),
        (Notice("hi"), b"NOTICE hi\n"),
        (Win("yay"), b"WIN yay\n"),
        (Lose("oh"), b"LOSE oh\n"),
        (Bye("bye"), b"BYE bye\n"),
        (Redirect("arena", "10.0.0.1:40004"), b"REDIRECT arena 10.0.0.1:40004\n"),
        (Redirect("g-2", "[::1]:4000"), b"REDIRECT g-2 [::1]:4000\n"),
    ],
)
def test_exact_bytes_and_parse_back(reply: object, wire: bytes) -> None:
    assert reply.to_bytes() == wire  # type: ignore[attr-defined]
    parser = ReplyParser()
    lines = wire.decode().splitlines()
    results = [parser.feed(line) for line in lines]
    assert results[:-1] == [None] * (len(lines) - 1)
    assert results[-1] == reply


@pytest.mark.parametrize(
    "build",
    [
        lambda: LookReply(("XXXXX",) * 4),
        lambda: Redirect("a game", "10.0.0.1:40004"),  # a game name is one word
        lambda: Redirect("arena", "10.0.0.1"),  # an address without its port
        lambda: LookReply(("XXXX",) * 5),
        lambda: MapReply(()),
        lambda: MapReply(("..", "...")),
        lambda: Error("two\nlines").to_bytes(),
    ],
)
def test_impossible_replies_are_our_mistake(build: Callable[[], object]) -> None:
    with pytest.raises(LocalProtocolError):
        build()


@pytest.mark.parametrize(
    "line", ["GOLD: 2", "GOLD two", "SUCCESS, GOLD COINS: x", "WHAT", "MAP 2", "MAP x 2", ""]
)
def test_parser_rejects_what_is_no_reply(line: str) -> None:
    with pytest.raises(RemoteProtocolError):
        ReplyParser().feed(line)


def test_malformed_look_rows_are_the_servers_fault() -> None:
    parser = ReplyParser()
    parser.feed("LOOKREPLY")
    for row in VIEW[:4]:
        assert parser.feed(row) is None
    with pytest.raises(RemoteProtocolError):
        parser.feed("X#G.")


def test_help_with_no_lines() -> None:
    assert ReplyParser().feed("HELP 0") == HelpReply(())


def test_a_look_drawn_as_bytes_is_the_same_reply_in_every_dialect() -> None:
    rows = ("X.#.X", ".G...", "..E..", "P....", "X...X")
    body = b"X.#.X\n.G...\n..E..\nP....\nX...X\n"
    drawn, built = LookReply.drawn(body), LookReply(rows)
    assert isinstance(drawn, LookReply)
    assert drawn.rows == rows and drawn == built and built == drawn
    assert hash(drawn) == hash(built) and repr(drawn) == repr(built)
    assert drawn.to_bytes() == built.to_bytes() == b"LOOKREPLY\n" + body
    assert drawn.lines() == built.lines()
    assert drawn != LookReply(("X...X",) * 5)
    for name in DIALECTS:
        # Each connection has its own dialect object (some remember what they sent).
        assert dialect_named(name).render(drawn) == dialect_named(name).render(built), name
