"""Every reply in every dialect, both ways: each dialect declares how it says each reply
(none leaks out in 2013 words by omission), and what it writes reads back as the lines
it declared."""

from __future__ import annotations

import inspect
from collections.abc import Iterable

import pytest

import protocol.replies as replies
from protocol.commands import ApGet, Command, Hello, HpGet, Look, WhoAmI
from protocol.connection import ClientProtocol
from protocol.declared import COMPACT_DIALECTS, declared_reader
from protocol.dialects import DIALECTS, dialect_named
from protocol.framing import NEED_DATA
from protocol.lines import Compact, HintsEnd, RenderHint
from protocol.reading import Blank
from protocol.replies import (
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

_GAME = GameInfo("g", "classic", "default", 0, 1, None, 0, None)
_VIEW = ("X..#X", ".###.", "..G..", "#####", "X###X")

SAMPLES: dict[type[Reply], tuple[Reply, Command | None]] = {
    Gold: (Gold(3, name="Ada", held=1), Hello("Ada")),
    Success: (Success(), None),
    Done: (Done(), None),
    Fail: (Fail("can't move into a wall"), None),
    GoldCoins: (GoldCoins(2), None),
    LookReply: (LookReply(_VIEW), Look()),
    Error: (Error("invalid direction"), None),
    NotYourTurn: (NotYourTurn("it is not your turn: #2 is playing"), None),
    NotYourTurnToEnd: (NotYourTurnToEnd("it is not your turn: #2 is playing"), None),
    HelpReply: (HelpReply(("a", "b")), None),
    MapReply: (MapReply(("###", "#.#")), None),
    Extended: (Extended(("events", "chat")), None),
    GameInfo: (_GAME, None),
    GamesReply: (GamesReply((_GAME,)), None),
    LeaderboardReply: (
        LeaderboardReply("classic", (Standing(1, 1.5, 25.0, 7.8, 3, 2, "Ada L"),)),
        None,
    ),
    Registered: (Registered("Ada", "t0k3n"), None),
    Redirect: (Redirect("g", "10.0.0.1:40004"), None),
    LoggedIn: (LoggedIn("Ada"), None),
    Identity: (Identity("Ada Lovelace", "g"), WhoAmI()),
    Notice: (Notice("a door opens"), None),
    GameWon: (GameWon("Ada has won the game"), None),
    Message: (Message("Ada", "hi: there"), None),
    PlayerJoined: (PlayerJoined("Ada"), None),
    PlayerLeft: (PlayerLeft("Ada", "quit"), None),
    Seen: (Seen("Ada", "MOVE N", "SUCCESS"), None),
    RoundEnded: (RoundEnded(3, 1, 0), None),
    View: (View(("###", "#.#")), None),
    GameOver: (GameOver("g is over after 3 rounds"), None),
    ActionPoints: (ActionPoints(4), ApGet()),
    HitPoints: (HitPoints(3), HpGet()),
    TurnBegins: (TurnBegins(6), None),
    TurnOver: (TurnOver(timed_out=True), None),
    TurnOf: (TurnOf("Ada"), None),
    HitMod: (HitMod(-2), None),
    Win: (Win("You escaped."), None),
    Lose: (Lose("You died."), None),
    Bye: (Bye("Thanks for playing."), None),
    BestsReply: (BestsReply("knight", (Best(1, 4, 0, 7, "example", "Ada L"),)), None),
    LevelView: (LevelView(2, ("###", "#.#")), None),
    Board: (Board(1, ("Ada: level=1 row=1 col=1 gold=0 moves=3",)), None),
}
"""One reply of every kind the server builds, and the command it answers, if any."""


def by_name(kinds: Iterable[type[Reply]]) -> list[type[Reply]]:
    return sorted(kinds, key=lambda kind: kind.__name__)


def _replies() -> set[type[Reply]]:
    """Every concrete reply class of protocol.replies (not the abstract bases)."""
    return {
        cls
        for name, cls in inspect.getmembers(replies, inspect.isclass)
        if issubclass(cls, Reply)
        and not name.startswith("_")
        and cls not in (Reply, replies.Push, replies.FinalReply)
    }


def test_there_is_a_sample_of_every_reply() -> None:
    assert set(SAMPLES) == _replies()


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
@pytest.mark.parametrize("kind", by_name(_replies()))
def test_every_dialect_declares_every_reply(dialect: str, kind: type[Reply]) -> None:
    assert DIALECTS[dialect].declares(kind), (
        f"the {dialect} dialect does not say how it writes {kind.__name__}: declare it "
        "in its table (as in 2013, or otherwise), or mark the reply ours"
    )


def _read_back(data: bytes, asking: Command | None, *, strict: bool) -> list[Reply]:
    client = ClientProtocol(tolerant=not strict)
    if not data:  # the dialect has no word for it: nothing to read (b"" would be the end)
        return []
    client.receive_data(data)
    read: list[Reply] = []
    while (event := client.next_event(asking)) is not NEED_DATA:
        assert isinstance(event, Reply)
        read.append(event)
    return read


def _read_declared(data: bytes, asking: Command | None, dialect: str) -> list[Reply]:
    reader = declared_reader(dialect)
    assert reader is not None
    lines = data.decode().splitlines()
    return [reply for line in lines if (reply := reader.feed(line, asking)) is not None]


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
@pytest.mark.parametrize("kind", by_name(SAMPLES))
def test_every_reply_renders_and_reads_back_in_every_dialect(
    dialect: str, kind: type[Reply]
) -> None:
    reply, asking = SAMPLES[kind]
    said = dialect_named(dialect)
    words = said.words(reply)
    data = dialect_named(dialect).render(reply)
    assert data == b"".join(line.to_bytes() for line in words)
    # The table declares the kinds of line it writes (the client reads by them); a
    # reply that is another's line on the wire (Done is SUCCESS) counts as that one.
    writes = DIALECTS[dialect].writes()
    for line in words:
        assert any(type(line).form is kind.form for kind in writes), type(line)
    # The blank line some dialects put after a view belongs to the view, and drawing hints
    # are for graphical clients: readers skip them.
    expected = [line for line in words if not isinstance(line, Blank | RenderHint | HintsEnd)]
    read = _read_back(data, asking, strict=dialect == "2013")
    if dialect in COMPACT_DIALECTS and words and all(isinstance(w, Compact) for w in words):
        # Lines all the dialect's own (mbk's H2, L5 rows) are read by what they mean to
        # the command asked, as its declaration writes them (issue 39).
        assert read == _read_declared(data, asking, dialect)
        return
    assert [line.to_bytes() for line in read] == [line.to_bytes() for line in expected]
    for got, meant in zip(read, expected, strict=True):
        # Read as the class written, or as what it says on the wire (Done as Success).
        assert isinstance(meant, type(got)), (got, meant)
        assert got == meant or type(got) is not type(meant)
