"""Each reply's grammar is declared once (issue 18): what the formatter writes, the parser
reads back exactly, and a value it could not read back is refused when the reply is built."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.errors import LocalProtocolError
from protocol.replies import (
    ActionPoints,
    Bye,
    Error,
    Extended,
    GameInfo,
    GameOver,
    GamesReply,
    Gold,
    GoldCoins,
    HelpReply,
    HitMod,
    HitPoints,
    Lose,
    MapReply,
    Message,
    Notice,
    PlayerJoined,
    PlayerLeft,
    Reply,
    ReplyParser,
    RoundEnded,
    Seen,
    TurnBegins,
    TurnOf,
    TurnOver,
    Win,
)

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
word = st.text(st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")), min_size=1)
number = st.integers(-(10**6), 10**6)
count = st.integers(0, 10**6)

REPLIES = st.one_of(
    st.builds(Gold, count),
    st.builds(GoldCoins, count),
    st.builds(Error, text),
    st.builds(Extended, st.lists(word, max_size=4).map(tuple)),
    st.builds(
        GameInfo,
        st.from_regex(r"[A-Za-z0-9_-]{1,24}", fullmatch=True),
        word,
        text,
        number,
        count,
        st.none() | count,
        count,
        st.none() | st.floats(0.001, 86400, allow_nan=False),
    ),
    st.builds(Notice, text),
    st.builds(Message, text, text),
    st.builds(PlayerJoined, text),
    st.builds(PlayerLeft, text, text),
    st.builds(Seen, text, text, st.sampled_from(["SUCCESS", "FAIL", "SUCCESS, GOLD COINS: 3"])),
    st.builds(RoundEnded, count, count, count),
    st.builds(GameOver, text),
    st.builds(TurnBegins, count),
    st.builds(TurnOver, st.booleans()),
    st.builds(TurnOf, text),
    st.builds(HitMod, number),
    st.builds(ActionPoints, count),
    st.builds(HitPoints, count),
    st.builds(Win, text),
    st.builds(Lose, text),
    st.builds(Bye, text),
)


def read_back(reply: Reply) -> Reply:
    parser = ReplyParser()
    results = [parser.feed(line) for line in reply.to_bytes().decode().split("\n")[:-1]]
    assert all(result is None for result in results[:-1])
    assert results[-1] is not None
    return results[-1]


@given(st.data())
def test_every_reply_the_formatter_writes_the_parser_reads_back(data: st.DataObject) -> None:
    try:
        reply = data.draw(REPLIES)
    except LocalProtocolError:
        return  # refused when built: never written (the next test shows what is refused)
    again = read_back(reply)
    assert again == reply
    assert again.to_bytes() == reply.to_bytes()


def test_a_map_spec_with_a_space_leaves_games_readable() -> None:
    # Issue 18, defect 2: GAME ... map=my maps/x.map was written and could not be read.
    game = GameInfo("default", "classic", "my maps/x.map", 0, 1, None, 0, None)
    assert game.line() == (
        "GAME default world=classic map=my%20maps/x.map seed=0 players=1 limit=none "
        "watchers=0 turn=none"
    )
    games = GamesReply((game, GameInfo("b", "crawler", "easy", 1, 0, 2, 0, 30.0)))
    assert read_back(games) == games
    # Specs without such bytes are written as they are.
    plain = GameInfo("g", "classic", "generated:seed=1,width=9", 0, 0, None, 0, None)
    assert "map=generated:seed=1,width=9 " in plain.line()


@pytest.mark.parametrize(
    "build",
    [
        lambda: Error("two\nlines"),
        lambda: Seen("Ada: the great", "MOVE N", "SUCCESS"),
        lambda: Seen("Ada", "MOVE N", "MAYBE"),
        lambda: PlayerLeft("a: b", "quit"),
        lambda: Message("Ada: x", "hi"),
        lambda: GameInfo("two words", "classic", "tiny", 0, 0, None, 0, None),
        lambda: GameInfo("g", "big world", "tiny", 0, 0, None, 0, None),
        lambda: HelpReply(("fine", "not\rfine")),
        lambda: MapReply(("#\n#", "###")),
        lambda: Win("escaped\nWIN again"),
    ],
)
def test_a_reply_that_could_not_be_read_back_is_refused_when_built(build) -> None:
    with pytest.raises(LocalProtocolError):
        build()
