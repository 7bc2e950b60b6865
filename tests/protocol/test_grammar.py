"""Each reply's grammar is declared once (issue 18): what the formatter writes, the parser
reads back exactly, and a value it could not read back is refused when the reply is built."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from dungeon_of_doom.protocol.errors import LocalProtocolError
from dungeon_of_doom.protocol.replies import (
    Error,
    GameInfo,
    GamesReply,
    HelpReply,
    MapReply,
    Message,
    PlayerLeft,
    Reply,
    ReplyParser,
    Seen,
    Win,
)


def read_back(reply: Reply) -> Reply:
    parser = ReplyParser()
    results = [parser.feed(line) for line in reply.to_bytes().decode().split("\n")[:-1]]
    assert all(result is None for result in results[:-1])
    assert results[-1] is not None
    return results[-1]


# The round-trip property of every reply type is in test_roundtrip.py.


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
def test_a_reply_that_could_not_be_read_back_is_refused_when_built(
    build: Callable[[], object],
) -> None:
    with pytest.raises(LocalProtocolError):
        build()
