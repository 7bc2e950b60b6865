"""A round-trip property per reply type: built → bytes → parsed → equal (issue 18).

Every concrete reply class of :mod:`protocol.replies` has a strategy here that draws
its fields from hostile text (line breaks, ``": "``, spaces, ``%``, non-ASCII): a reply
is either refused when it is built (:class:`LocalProtocolError`), or the bytes it
writes are read back, by :class:`~protocol.connection.ClientProtocol` fed through the
framer, into an equal reply that writes the same bytes.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dungeon_of_doom.protocol import replies as replies_module
from dungeon_of_doom.protocol.connection import ClientProtocol
from dungeon_of_doom.protocol.errors import LocalProtocolError
from dungeon_of_doom.protocol.framing import NEED_DATA
from dungeon_of_doom.protocol.replies import (
    ActionPoints,
    Best,
    BestsReply,
    Board,
    Bye,
    Done,
    Error,
    Extended,
    Fail,
    GameInfo,
    GameOver,
    GamesReply,
    GameWon,
    Gold,
    GoldCoins,
    HelpReply,
    HitMod,
    HitPoints,
    Identity,
    LeaderboardReply,
    LevelView,
    LoggedIn,
    LookReply,
    Lose,
    MapReply,
    Message,
    Notice,
    NotYourTurn,
    NotYourTurnToEnd,
    PlayerJoined,
    PlayerLeft,
    Redirect,
    Registered,
    Reply,
    RoundEnded,
    Seen,
    Standing,
    Success,
    TurnBegins,
    TurnOf,
    TurnOver,
    View,
    Win,
)

hostile = st.sampled_from(list("ab :#%=,\n\r\t\u00e9\u2603\x00\x7f\udce9"))
"""Characters that break lines, fields and encodings, drawn often rather than by luck:
``\\udce9`` is what a file name's Latin-1 byte 0xe9 becomes in Python (issue 28)."""
text = st.text(hostile | st.characters(), max_size=20)
word = st.text(hostile | st.characters(), min_size=1, max_size=10)
number = st.integers(-(10**9), 10**9)
count = st.integers(0, 10**9)
rating = st.floats(-1e6, 1e6, allow_nan=False) | st.sampled_from([0.005, -0.005, 1.125])
glyphs = st.sampled_from(list("#.GEPXB @\u2588"))


def square(size: int) -> st.SearchStrategy[tuple[str, ...]]:
    return st.lists(
        st.text(glyphs, min_size=size, max_size=size), min_size=size, max_size=size
    ).map(tuple)


rectangle = (
    st.integers(1, 6)
    .flatmap(
        lambda width: st.lists(
            st.text(glyphs | hostile, min_size=width, max_size=width), max_size=6
        )
    )
    .map(tuple)
)

games = st.builds(
    GameInfo,
    st.from_regex(r"[A-Za-z0-9_-]{1,24}", fullmatch=True) | word,
    word,
    text,
    number,
    count,
    st.none() | count,
    count,
    st.none() | st.floats(0, 86400, allow_nan=False),
)
standings = st.builds(Standing, number, rating, rating, rating, count, count, text)

STRATEGIES: dict[type[Reply], st.SearchStrategy[Reply]] = {
    Success: st.just(Success()),
    Done: st.just(Done()),
    Fail: st.builds(Fail, text),
    Gold: st.builds(Gold, number, st.none() | text, number),
    GoldCoins: st.builds(GoldCoins, number),
    LookReply: st.sampled_from([5, 7]).flatmap(square).map(LookReply),
    Error: st.builds(Error, text),
    NotYourTurn: st.builds(NotYourTurn, text),
    NotYourTurnToEnd: st.builds(NotYourTurnToEnd, text),
    HelpReply: st.lists(text, max_size=4).map(tuple).map(HelpReply),
    MapReply: rectangle.map(MapReply),
    Extended: st.lists(word, max_size=4).map(tuple).map(Extended),
    GameInfo: games,
    GamesReply: st.lists(games, max_size=3).map(tuple).map(GamesReply),
    LeaderboardReply: st.builds(LeaderboardReply, word, st.lists(standings, max_size=3).map(tuple)),
    Registered: st.builds(Registered, text, word),
    Redirect: st.builds(
        Redirect,
        st.from_regex(r"[A-Za-z0-9_-]{1,24}", fullmatch=True),
        st.from_regex(r"[a-z0-9.:\[\]-]{1,30}:[0-9]{1,5}", fullmatch=True),
    ),
    LoggedIn: st.builds(LoggedIn, text),
    Identity: st.builds(
        Identity, text, st.from_regex(r"[A-Za-z0-9_-]{1,24}", fullmatch=True) | word
    ),
    Notice: st.builds(Notice, text),
    GameWon: st.builds(GameWon, text),
    Message: st.builds(Message, st.just("") | text, text),
    PlayerJoined: st.builds(PlayerJoined, text),
    PlayerLeft: st.builds(PlayerLeft, text, text),
    Seen: st.builds(
        Seen, text, text, st.sampled_from(["SUCCESS", "FAIL", "SUCCESS, GOLD COINS: 3"]) | text
    ),
    RoundEnded: st.builds(RoundEnded, number, number, number),
    View: rectangle.map(View),
    LevelView: st.builds(LevelView, count, rectangle),
    BestsReply: st.builds(
        BestsReply,
        word,
        st.lists(st.builds(Best, number, count, number, count, word, text), max_size=3).map(tuple),
    ),
    Board: st.builds(Board, count, st.lists(text, max_size=4).map(tuple)),
    GameOver: st.builds(GameOver, text),
    ActionPoints: st.builds(ActionPoints, number),
    HitPoints: st.builds(HitPoints, number),
    TurnBegins: st.builds(TurnBegins, number),
    TurnOver: st.builds(TurnOver, st.booleans()),
    TurnOf: st.builds(TurnOf, text),
    HitMod: st.builds(HitMod, number),
    Win: st.builds(Win, text),
    Lose: st.builds(Lose, text),
    Bye: st.builds(Bye, text),
}

READ_AS: dict[type[Reply], type[Reply]] = {
    Done: Success,
    NotYourTurn: Error,
    NotYourTurnToEnd: Error,
    GameWon: Notice,
}
"""Replies that are written as another (the server's nuance, not the wire's)."""


def concrete_replies() -> list[type[Reply]]:
    found: list[type[Reply]] = []
    for _, cls in inspect.getmembers(replies_module, inspect.isclass):
        if (
            issubclass(cls, Reply)
            and dataclasses.is_dataclass(cls)
            and hasattr(cls, "form")
            and not cls.__name__.startswith("_")  # a private way to hold a public reply
        ):
            found.append(cls)
    return found


def test_every_reply_type_has_a_round_trip_property() -> None:
    assert set(concrete_replies()) == set(STRATEGIES)


def as_read(reply: Reply) -> Reply:
    kind = READ_AS.get(type(reply))
    if kind is None:
        return reply
    fields = {f.name: getattr(reply, f.name) for f in dataclasses.fields(reply)}  # type: ignore[arg-type]
    return kind(**fields)


def read_back(data: bytes) -> list[Any]:
    client = ClientProtocol()
    client.receive_data(data)
    events = []
    while (event := client.next_event()) is not NEED_DATA:
        events.append(event)
    return events


@pytest.mark.parametrize("kind", list(STRATEGIES), ids=lambda kind: kind.__name__)
@settings(max_examples=40)  # 35 reply types: the whole suite keeps its time budget
@given(data=st.data())
def test_built_written_read_back_equal(kind: type[Reply], data: st.DataObject) -> None:
    try:
        reply = data.draw(STRATEGIES[kind])
    except LocalProtocolError:
        return  # refused when built, so never written
    assert type(reply) is kind
    written = reply.to_bytes()
    assert read_back(written) == [as_read(reply)]
    assert read_back(written)[0].to_bytes() == written


@settings(max_examples=100)
@given(spec=text)
@example(spec="caf\udce9.map")  # a Latin-1 file name, as Python hands it over
@example(spec="my maps/100%.map")
def test_any_map_spec_is_refused_when_built_or_read_back_exactly(spec: str) -> None:
    """The ``map=`` field alone, every other field valid: whatever the spec holds, the
    ``GAME`` line either cannot be built or carries it exactly (issue 28)."""
    try:
        game = GameInfo("g", "classic", spec, 0, 0, None, 0, None)
    except LocalProtocolError:
        return
    assert read_back(game.to_bytes()) == [game]


@pytest.mark.parametrize(
    "build",
    [
        lambda: Message("", "Ada: hi"),  # would read back as Ada saying "hi"
        lambda: Extended(("events chat",)),  # would read back as two capabilities
        lambda: Extended(("",)),
        lambda: Standing(1, float("inf"), 0.0, 0.0, 0, 0, "Ada"),
        lambda: Registered("Ada", "two words"),
        lambda: LoggedIn(""),
        lambda: Identity("", "g"),
        lambda: Identity("Ada", "two words"),
        lambda: LeaderboardReply("two words", ()),
        lambda: View(()),
        lambda: LookReply(("X...X",) * 4),
        lambda: Notice("\ud800"),  # no UTF-8 for it
        lambda: GameInfo("g", "classic", "caf\udce9.map", 0, 0, None, 0, None),  # percent-encoded
    ],
)
def test_a_reply_that_could_not_be_read_back_cannot_be_built(build: Any) -> None:
    with pytest.raises(LocalProtocolError):
        build()


def test_a_standing_keeps_the_two_decimals_it_is_written_with() -> None:
    standing = Standing(1, 12.3456, 25.0, 8.333333, 3, 1, "Ada Lovelace")
    assert standing.line() == "1 12.35 25.00 8.33 3 1 Ada Lovelace"
    assert Standing.parse(standing.line()) == standing
