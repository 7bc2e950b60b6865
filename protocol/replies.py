"""Replies a server sends, as typed objects: formatting for servers, parsing for clients.

Every reply knows its exact bytes (``reply.to_bytes()``); the 2013 replies are
byte for byte those of RULES §1, each line ending in a single ``LF``. A one-line
reply declares its grammar once, as a :class:`~protocol.forms.Form` (``form``): its
line is written, read back and its values checked from that one declaration, and a
reply whose values could not be read back is refused when it is built
(:class:`LocalProtocolError`), so the server never writes what the parser refuses. The
:class:`ReplyParser` is the inverse, for clients: it is fed lines and gives back
whole replies, gathering the lines of a multi-line reply (``LOOKREPLY`` and five
rows, ``HELP <n>`` and n lines, ``MAP <rows> <cols>`` and the rows).

Final lines (``WIN``, ``LOSE``, ``BYE``) are the only lines a classic client may
receive without asking: each says why the server is about to close the
connection. ``ERROR`` answers a line that was not a valid command.

Lines the server sends on its own (``NOTICE``, ``MESSAGE``, ``JOINED``, ``LEFT``,
``SAW``, ``ROUND``, ``VIEW``, ``GAMEOVER``) reach only clients that asked for
them; every one is a :class:`Push`, so a client tells them from the replies to
its commands by type alone. In pushed lines that name a player, the name ends
at the first ``": "`` (names cannot hold ``:``); a player without a name is
shown as ``#<number>``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Self

from .errors import LocalProtocolError, RemoteProtocolError
from .forms import (
    CENTS,
    COUNT,
    FINAL_TEXT,
    INT,
    INT_OR_NONE,
    LINE,
    NAME,
    SECONDS_OR_NONE,
    SPEC,
    TEXT,
    WORD,
    WORDS,
    Field,
    Form,
    Rows,
)

__all__ = [
    "LOOK_SIZE",
    "LOOK_SIZES",
    "OWN_REPLIES",
    "ActionPoints",
    "Best",
    "BestsReply",
    "Board",
    "Bye",
    "Done",
    "Error",
    "Extended",
    "Fail",
    "FinalReply",
    "GameInfo",
    "GameOver",
    "GameWon",
    "GamesReply",
    "Gold",
    "GoldCoins",
    "HelpReply",
    "HitMod",
    "HitPoints",
    "Identity",
    "LeaderboardReply",
    "LevelView",
    "LoggedIn",
    "LookReply",
    "Lose",
    "MapReply",
    "Message",
    "NotYourTurn",
    "NotYourTurnToEnd",
    "Notice",
    "PlayerJoined",
    "PlayerLeft",
    "Push",
    "Redirect",
    "Registered",
    "Reply",
    "ReplyParser",
    "RoundEnded",
    "Seen",
    "Standing",
    "Success",
    "TurnBegins",
    "TurnOf",
    "TurnOver",
    "View",
    "Win",
]

LOOK_SIZE: Final = 5
LOOK_SIZES: Final = frozenset({LOOK_SIZE, 7})
"""A ``LOOK`` is 5×5, or 7×7 for a player holding a lantern (the battle world)."""


class Reply:
    """Base class of every reply.

    ``form`` declares the grammar of its (first) line, and ``body`` that of the lines
    after it in a multi-line reply; from them its lines are written (:meth:`lines`),
    read back (:meth:`from_line`, :meth:`from_lines`) and its values checked when it
    is built."""

    __slots__ = ()
    form: ClassVar[Form]
    """The grammar of the reply's line (of its header, in a multi-line reply)."""
    body: ClassVar[Rows | None] = None
    """The grammar of each line after the header (``None``: a one-line reply)."""
    ours: ClassVar[bool] = False
    """Our extension, the answer to a command of ours (``MAP``, ``GAMES``...): every
    dialect writes it in our words, since a client that asked for it knows them. Every
    other reply is declared by each dialect (:mod:`protocol.dialects`)."""

    def __post_init__(self) -> None:
        self.form.check(self)
        body = self.body
        if body is not None:
            body.check(self)

    def lines(self) -> list[str]:
        body = self.body
        if body is None:
            return [self.form.write(self)]
        return [self.form.write(self), *body.write(self)]

    @classmethod
    def count_of(cls, header: dict[str, Any]) -> int | None:
        """How many lines follow a header read as ``header`` (``None``: as many as the
        first says, the rule of ``LOOKREPLY``)."""
        count: int = header["count"]
        return count

    @classmethod
    def assemble(cls, header: dict[str, Any], items: tuple[Any, ...]) -> Self:
        """The reply of a header read as ``header`` and the values of the lines after it."""
        assert cls.body is not None
        return cls(**{cls.body.items: items})

    @classmethod
    def from_lines(cls, header: str, lines: tuple[str, ...]) -> Self:
        """The multi-line reply of ``header`` and the ``lines`` after it, read with this
        class's declarations; :class:`RemoteProtocolError` if they do not make one."""
        body = cls.body
        values = cls.form.read(header)
        if values is None or body is None:
            raise RemoteProtocolError(f"malformed header: {header[:80]!r}")
        try:
            reply = cls.assemble(values, tuple(body.read(line) for line in lines))
        except (LocalProtocolError, RemoteProtocolError) as error:
            raise RemoteProtocolError(f"malformed {cls.form.keyword} reply: {error}") from None
        if reply.lines()[0] != header:  # MAP 3 5 over rows of 4, say
            raise RemoteProtocolError(
                f"the header {header[:80]!r} does not describe the lines after it"
            )
        return reply

    @classmethod
    def from_line(cls, line: str) -> Self:
        """The one-line reply ``line`` holds, read with this class's form."""
        values = cls.form.read(line)
        if values is None:
            keyword = line.split(" ", 1)[0]
            raise RemoteProtocolError(f"malformed {keyword} line: {line[:80]!r}")
        try:
            return cls(**values)
        except LocalProtocolError as error:
            raise RemoteProtocolError(f"malformed line {line[:80]!r}: {error}") from None

    def to_bytes(self) -> bytes:
        """The reply on the wire: each line followed by ``LF``."""
        return "".join(line + "\n" for line in self.lines()).encode()


def _single_lines(lines: tuple[str, ...]) -> None:
    for text in lines:
        if "\n" in text or "\r" in text:
            raise LocalProtocolError(f"a reply line cannot hold a line break: {text!r}")


class _WholeMap(Reply):
    """What the replies that carry a whole map (``MAP``, ``VIEW``, ``LEVEL``) share: a
    header that counts rows and columns, and rows of one length, at least one."""

    __slots__ = ()
    rows: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.rows or len({len(row) for row in self.rows}) != 1:
            raise LocalProtocolError(f"a {self.form.keyword} reply needs rows of one length")
        super().__post_init__()

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return len(self.rows[0])

    @classmethod
    def count_of(cls, header: dict[str, Any]) -> int | None:
        count: int = header["height"]
        return count


@dataclass(frozen=True, slots=True)
class Gold(Reply):
    """``GOLD <n>``: the answer to ``HELLO``: the gold needed to win.

    ``name`` (the player's name, if any) and ``held`` (the gold the player holds)
    are not written in the 2013 dialect; others say them (``docs/dialects.md``).
    """

    form: ClassVar[Form] = Form("GOLD {amount}", amount=INT)
    amount: int
    name: str | None = field(default=None, compare=False)
    held: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Success(Reply):
    """``SUCCESS``: the action happened."""

    form: ClassVar[Form] = Form("SUCCESS")

    def lines(self) -> list[str]:
        return ["SUCCESS"]

    # The reply to every action that happened (each MOVE): its bytes' own ``__bytes__``,
    # a C method (not a descriptor: the class attribute is not bound), renders it with
    # no Python frame. Equal to ``def to_bytes(self): return b"SUCCESS\n"``.
    to_bytes = b"SUCCESS\n".__bytes__


@dataclass(frozen=True, slots=True)
class Done(Success):
    """``SUCCESS`` to a command whose effect is answer enough in some dialects: ``SHOUT``
    (the chat line) and ``ENDTURN`` (the ``ENDTURN`` push) say nothing more in 2015."""


@dataclass(frozen=True, slots=True)
class Fail(Reply):
    """``FAIL``: the action did not happen. ``reason`` says why, in the dialects that
    write it (``FAIL can't move into a wall``); 2013 does not."""

    form: ClassVar[Form] = Form("FAIL")
    reason: str = field(default="", compare=False)

    def lines(self) -> list[str]:
        return ["FAIL"]

    to_bytes = b"FAIL\n".__bytes__  # as Success's: no Python frame (the reason is not sent)


@dataclass(frozen=True, slots=True)
class GoldCoins(Reply):
    """``SUCCESS, GOLD COINS: <total>``: a ``PICKUP`` that found gold."""

    form: ClassVar[Form] = Form("SUCCESS, GOLD COINS: {total}", total=INT)
    total: int


@dataclass(frozen=True, slots=True)
class LookReply(Reply):
    """``LOOKREPLY`` and five rows of five characters (seven of seven with a lantern)."""

    form: ClassVar[Form] = Form("LOOKREPLY")
    body: ClassVar[Rows] = Rows(LINE, "rows")
    rows: tuple[str, ...]

    def __post_init__(self) -> None:
        # The reply bots ask for most: the body's check, done in a few string operations.
        rows = self.rows
        size = len(rows)
        if size not in LOOK_SIZES or set(map(len, rows)) != {size}:
            raise LocalProtocolError(
                f"a look reply is {LOOK_SIZE} rows of {LOOK_SIZE} (7 of 7 with a lantern)"
            )
        _single_lines(rows)

    @classmethod
    def count_of(cls, header: dict[str, Any]) -> int | None:
        return None  # the first row says: 5, or 7 with a lantern

    def to_bytes(self) -> bytes:
        # The reply bots ask for most: one join, where the general path builds a list.
        return ("LOOKREPLY\n" + "\n".join(self.rows) + "\n").encode()

    @classmethod
    def drawn(cls, body: bytes) -> LookReply:
        """The reply for a view a world drew as bytes: ``body`` is its rows, ASCII, each
        ended by ``LF``, five of five (seven of seven with a lantern).

        A trusted constructor for the hot path: ``body`` is *not* checked (a world that
        draws bytes checks its views in its tests against this class's own check), and
        :meth:`to_bytes` sends it as it is. ``rows`` is decoded only when read (by a
        dialect that writes the view its own way). It equals ``LookReply(rows)``.
        """
        reply = object.__new__(_DrawnLook)
        _set_body(reply, body)  # the slot itself: no object.__setattr__ to look up
        return reply


class _DrawnLook(LookReply):
    """A :class:`LookReply` kept as the bytes a world drew (see :meth:`LookReply.drawn`)."""

    __slots__ = ("_body",)
    _body: bytes

    @property
    def rows(self) -> tuple[str, ...]:
        return tuple(self._body.decode("ascii").split("\n")[:-1])

    def to_bytes(self) -> bytes:
        return b"LOOKREPLY\n" + self._body

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LookReply):
            return self.rows == other.rows
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.rows,))

    def __repr__(self) -> str:
        return f"LookReply(rows={self.rows!r})"


_set_body = _DrawnLook._body.__set__  # type: ignore[attr-defined]
"""Sets a :class:`_DrawnLook`'s bytes (its slot's own setter; the class is frozen)."""


@dataclass(frozen=True, slots=True)
class Error(Reply):
    """``ERROR <message>``: the line received was not a valid command here."""

    form: ClassVar[Form] = Form("ERROR {message}", message=TEXT)
    message: str


@dataclass(frozen=True, slots=True)
class NotYourTurn(Error):
    """``ERROR <message>`` refusing an action out of the player's turn."""


@dataclass(frozen=True, slots=True)
class NotYourTurnToEnd(NotYourTurn):
    """``ERROR <message>`` refusing ``ENDTURN`` out of the player's turn (the 2015 server
    words it apart: ``FAIL it is not your turn.``)."""


@dataclass(frozen=True, slots=True)
class HelpReply(Reply):
    """Extension: ``HELP <n>`` followed by n lines of text."""

    ours: ClassVar[bool] = True
    form: ClassVar[Form] = Form("HELP {count}", count=COUNT)
    body: ClassVar[Rows] = Rows(TEXT, "text")
    text: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.text)


@dataclass(frozen=True, slots=True)
class MapReply(_WholeMap, Reply):
    """Extension: ``MAP <rows> <cols>`` followed by the rows of the whole map."""

    ours: ClassVar[bool] = True
    form: ClassVar[Form] = Form("MAP {height} {width}", height=COUNT, width=COUNT)
    body: ClassVar[Rows] = Rows(LINE, "rows")
    rows: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Extended(Reply):
    """Extension: ``EXTENDED <capability> ...``, what ``EXTEND`` turned on (all of it so far)."""

    ours: ClassVar[bool] = True
    form: ClassVar[Form] = Form("EXTENDED{capabilities}", capabilities=WORDS)
    capabilities: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GameInfo(Reply):
    """Extension: ``GAME <name> world=... map=... seed=... players=... limit=... watchers=...
    turn=...``, one game; the answer to ``CREATE``, ``JOIN`` and ``WATCH``.

    ``limit`` ``None`` is written ``none`` (no limit); ``turn`` is the round time
    limit in seconds, ``none`` in a world that resolves every action at once;
    ``map`` ``default`` is the world's own default map.
    """

    ours: ClassVar[bool] = True
    form: ClassVar[Form] = Form(
        "GAME {name} world={world} map={map} seed={seed} players={players} limit={limit} "
        "watchers={watchers} turn={turn}",
        name=Field(r"[A-Za-z0-9_-]+"),
        world=WORD,
        map=SPEC,
        seed=INT,
        players=INT,
        limit=INT_OR_NONE,
        watchers=INT,
        turn=SECONDS_OR_NONE,
    )
    name: str
    world: str
    map: str
    """The map spec; spaces, ``%`` and bytes outside printable ASCII are percent-encoded
    on the line (``map=my%20maps/x.map``), so any spec reads back exactly."""
    seed: int
    players: int
    limit: int | None
    watchers: int
    turn: float | None

    def line(self) -> str:
        return self.form.write(self)

    @classmethod
    def parse(cls, line: str) -> GameInfo:
        """The game a ``GAME`` line describes; :class:`RemoteProtocolError` if malformed."""
        return cls.from_line(line)


def _read_game(line: str) -> GameInfo:
    try:
        return GameInfo.from_line(line)
    except RemoteProtocolError as error:
        raise LocalProtocolError(str(error)) from None


@dataclass(frozen=True, slots=True)
class GamesReply(Reply):
    """Extension: ``GAMES <n>`` followed by n ``GAME`` lines."""

    ours: ClassVar[bool] = True
    form: ClassVar[Form] = Form("GAMES {count}", count=COUNT)
    body: ClassVar[Rows] = Rows(GameInfo.form.field(_read_game), "games")
    games: tuple[GameInfo, ...]

    @property
    def count(self) -> int:
        return len(self.games)


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of a ``LEADERBOARD`` reply: ``<rank> <rating> <mu> <sigma> <games> <wins> <name>``.

    ``rating`` is the conservative estimate ``mu - 3 sigma`` the table is sorted by; the
    name comes last because it may hold spaces. The three numbers are written with two
    decimals, so they are rounded to two when a standing is built (and read back equal).
    """

    form: ClassVar[Form] = Form(
        "{rank} {rating} {mu} {sigma} {games} {wins} {name}",
        rank=INT,
        rating=CENTS,
        mu=CENTS,
        sigma=CENTS,
        games=INT,
        wins=INT,
        name=LINE,
    )
    rank: int
    rating: float
    mu: float
    sigma: float
    games: int
    wins: int
    name: str

    def __post_init__(self) -> None:
        for name in ("rating", "mu", "sigma"):
            object.__setattr__(self, name, round(getattr(self, name), 2))
        self.form.check(self)

    def line(self) -> str:
        return self.form.write(self)

    @classmethod
    def parse(cls, line: str) -> Standing:
        """The standing ``line`` holds; :class:`LocalProtocolError` if it holds none."""
        values = cls.form.read(line)
        if values is None:
            raise LocalProtocolError(f"not a leaderboard line: {line[:80]!r}")
        return cls(**values)


@dataclass(frozen=True, slots=True)
class LeaderboardReply(Reply):
    """Extension: ``LEADERBOARD <world> <n>`` followed by n :class:`Standing` lines, best first."""

    ours: ClassVar[bool] = True
    form: ClassVar[Form] = Form("LEADERBOARD {world} {count}", world=WORD, count=COUNT)
    body: ClassVar[Rows] = Rows(Standing.form.field(Standing.parse), "standings")
    world: str
    standings: tuple[Standing, ...]

    @property
    def count(self) -> int:
        return len(self.standings)

    @classmethod
    def assemble(cls, header: dict[str, Any], items: tuple[Any, ...]) -> LeaderboardReply:
        return cls(header["world"], items)


@dataclass(frozen=True, slots=True)
class Best:
    """One line of a ``BESTS`` reply: ``<rank> <moves> <gold> <health> <map> <name>``.

    ``rank`` is within the map (from 1); ``health`` the starting health the map spec set
    (the knight world's ``health=``), 0 where it set none (the least that can win); ``map``
    is one word (a space in it is written ``%20``); the name comes last, as it may hold spaces.
    """

    form: ClassVar[Form] = Form(
        "{rank} {moves} {gold} {health} {map} {name}",
        rank=INT,
        moves=INT,
        gold=INT,
        health=INT,
        map=WORD,
        name=LINE,
    )
    rank: int
    moves: int
    gold: int
    health: int
    map: str
    name: str

    def __post_init__(self) -> None:
        self.form.check(self)

    @classmethod
    def parse(cls, line: str) -> Best:
        """The result ``line`` holds; :class:`LocalProtocolError` if it holds none."""
        values = cls.form.read(line)
        if values is None:
            raise LocalProtocolError(f"not a best-results line: {line[:80]!r}")
        return cls(**values)


@dataclass(frozen=True, slots=True)
class BestsReply(Reply):
    """Extension: ``BESTS <world> <n>`` followed by n :class:`Best` lines, map by map, best
    first within each: the answer to ``LEADERBOARD <world> best``."""

    ours: ClassVar[bool] = True
    form: ClassVar[Form] = Form("BESTS {world} {count}", world=WORD, count=COUNT)
    body: ClassVar[Rows] = Rows(Best.form.field(Best.parse), "results")
    world: str
    results: tuple[Best, ...]

    @property
    def count(self) -> int:
        return len(self.results)

    @classmethod
    def assemble(cls, header: dict[str, Any], items: tuple[Any, ...]) -> BestsReply:
        return cls(header["world"], items)


@dataclass(frozen=True, slots=True)
class Redirect(Reply):
    """Extension: ``REDIRECT <game> <host>:<port>``, the answer to ``JOIN`` or ``WATCH`` of
    a game another node of a cluster holds, for a client that asked for ``redirect``
    (``EXTEND redirect``) instead of being carried there: the game lives at that
    address; connect there and send the command again. The client has left its game
    here (as a ``JOIN`` elsewhere would) and its name is free for it on that node."""

    ours: ClassVar[bool] = True
    form: ClassVar[Form] = Form(
        "REDIRECT {game} {address}", game=Field(r"[A-Za-z0-9_-]+"), address=Field(r"[^\s]+:\d+")
    )
    game: str
    address: str
    """``HOST:PORT`` the game's node advertises to clients (the last word)."""


@dataclass(frozen=True, slots=True)
class Registered(Reply):
    """Extension: ``REGISTERED <name> <token>``, the answer to ``REGISTER``. The token is
    shown this once; the server keeps only its hash."""

    ours: ClassVar[bool] = True
    form: ClassVar[Form] = Form("REGISTERED {name} {token}", name=LINE, token=WORD)
    name: str
    token: str

    def __repr__(self) -> str:
        return f"Registered(name={self.name!r}, token='***')"


@dataclass(frozen=True, slots=True)
class LoggedIn(Reply):
    """Extension: ``LOGGEDIN <name>``, the answer to a ``LOGIN`` whose token was right."""

    ours: ClassVar[bool] = True
    form: ClassVar[Form] = Form("LOGGEDIN {name}", name=LINE)
    name: str


@dataclass(frozen=True, slots=True)
class Identity(Reply):
    """Extension: ``WHOAMI <who> <game>``, the answer to ``WHOAMI``: how the player is
    shown in its game (its name; ``#<n>`` without one; ``#`` when it does not play
    there, not yet or as a spectator) and the game's name (the last word: names may
    hold spaces, games may not)."""

    ours: ClassVar[bool] = True
    form: ClassVar[Form] = Form("WHOAMI {who} {game}", who=LINE, game=Field(r"[A-Za-z0-9_-]+"))
    who: str
    game: str


class Push(Reply):
    """Base class of lines the server sends on its own, not in answer to a command.

    Only clients that asked for the extended protocol receive them; a client can
    tell them from replies by type alone.
    """

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Notice(Push):
    """Extension: ``NOTICE <text>``, something that happened, for clients that opted in."""

    form: ClassVar[Form] = Form("NOTICE {text}", text=TEXT)
    text: str


@dataclass(frozen=True, slots=True)
class GameWon(Notice):
    """Extension: ``NOTICE <winner> has won the game``: the game is over for you (the
    2015 server's ``FROM SERVER`` ⏎ ``MESSAGE Someone has won the game!!``)."""


@dataclass(frozen=True, slots=True)
class Message(Push):
    """Extension: ``MESSAGE <sender>: <text>``, chat (the 2015 multiplayer ``MESSAGE``).

    A message with no sender (as the 2015 servers sent them) is ``MESSAGE <text>``.
    """

    form: ClassVar[Form] = Form("MESSAGE {sender}: {text}", sender=NAME, text=TEXT)
    anonymous: ClassVar[Form] = Form("MESSAGE {text}", text=TEXT)
    sender: str
    text: str

    def __post_init__(self) -> None:
        if self.sender:
            self.form.check(self)
            return
        self.anonymous.check(self)
        if self.form.read(self.anonymous.write(self)) is not None:
            # "MESSAGE Ada: hi" would be read as Ada's: no sender cannot say that.
            raise LocalProtocolError(
                f"a message without a sender cannot read like one with: {self.text[:40]!r}"
            )

    def lines(self) -> list[str]:
        return [(self.form if self.sender else self.anonymous).write(self)]

    @classmethod
    def from_line(cls, line: str) -> Self:
        values = cls.form.read(line)
        if values is not None:
            return cls(**values)
        values = cls.anonymous.read(line)
        if values is None:
            raise RemoteProtocolError(f"malformed MESSAGE line: {line[:80]!r}")
        return cls("", **values)


@dataclass(frozen=True, slots=True)
class PlayerJoined(Push):
    """Extension: ``JOINED <player>``, someone entered your game."""

    form: ClassVar[Form] = Form("JOINED {player}", player=TEXT)
    player: str


@dataclass(frozen=True, slots=True)
class PlayerLeft(Push):
    """Extension: ``LEFT <player>: <why>``; why is ``escaped``, ``died``, ``quit``,
    ``disconnected``, ``moved`` (to another game) or ``removed`` (missed turns)."""

    form: ClassVar[Form] = Form("LEFT {player}: {why}", player=NAME, why=TEXT)
    player: str
    why: str


@dataclass(frozen=True, slots=True)
class Seen(Push):
    """Extension: ``SAW <player>: <action> <result>``, an action you could see.

    ``action`` is the command (``MOVE N``, ``PICKUP``, ``STAY``) and ``result`` the
    reply its player got (``SUCCESS``, ``FAIL`` or ``SUCCESS, GOLD COINS: <n>``).
    """

    form: ClassVar[Form] = Form(
        "SAW {player}: {action} {result}",
        player=NAME,
        action=Field(r"[^\r\n]+?"),
        result=Field(r"SUCCESS(?:, GOLD COINS: -?\d+)?|FAIL"),
    )
    player: str
    action: str
    result: str


@dataclass(frozen=True, slots=True)
class RoundEnded(Push):
    """Extension: ``ROUND <n> acted=<a> missed=<m>``: round n resolved, with a actions
    sent in time and m players who sent none (each stayed)."""

    form: ClassVar[Form] = Form(
        "ROUND {number} acted={acted} missed={missed}", number=INT, acted=INT, missed=INT
    )
    number: int
    acted: int
    missed: int


@dataclass(frozen=True, slots=True)
class View(_WholeMap, Push):
    """Extension: ``VIEW <rows> <cols>`` and the rows of the whole map, as a spectator sees it."""

    ours: ClassVar[bool] = True
    form: ClassVar[Form] = Form("VIEW {height} {width}", height=COUNT, width=COUNT)
    body: ClassVar[Rows] = Rows(LINE, "rows")
    rows: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LevelView(_WholeMap, Push):
    """Extension (``board``): ``LEVEL <n> <rows> <cols>`` and the rows of level n (from 2)
    of a world of several levels, as a spectator sees it; ``VIEW`` is level 1."""

    ours: ClassVar[bool] = True
    form: ClassVar[Form] = Form(
        "LEVEL {level} {height} {width}", level=COUNT, height=COUNT, width=COUNT
    )
    body: ClassVar[Rows] = Rows(LINE, "rows")
    level: int
    rows: tuple[str, ...]

    @classmethod
    def assemble(cls, header: dict[str, Any], items: tuple[Any, ...]) -> LevelView:
        return cls(header["level"], items)


@dataclass(frozen=True, slots=True)
class Board(Push):
    """Extension (``board``): ``BOARD <n> cell=<w>`` and one line per player in the game,
    ``<name>: level=<l> row=<r> col=<c> gold=<g> moves=<m>`` and whatever else the world
    tells (``hp=3 ap=6``), sent to a spectator after the views. A square of the views is
    ``w`` characters wide (1 but in worlds that draw squares as numbers)."""

    ours: ClassVar[bool] = True
    form: ClassVar[Form] = Form("BOARD {count} cell={cell}", count=COUNT, cell=COUNT)
    body: ClassVar[Rows] = Rows(LINE, "players")
    cell: int
    players: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.players)

    @classmethod
    def assemble(cls, header: dict[str, Any], items: tuple[Any, ...]) -> Board:
        return cls(header["cell"], items)


@dataclass(frozen=True, slots=True)
class GameOver(Push):
    """Extension: ``GAMEOVER <text>``: the game you watch ended; a fresh one begins."""

    ours: ClassVar[bool] = True
    form: ClassVar[Form] = Form("GAMEOVER {text}", text=TEXT)
    text: str


# -- the turns of the battle world ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ActionPoints(Reply):
    """Extension: ``AP <n>``, the answer to ``APGET``: action points left in this turn
    (0 when it is not the player's turn)."""

    form: ClassVar[Form] = Form("AP {points}", points=INT)
    points: int


@dataclass(frozen=True, slots=True)
class HitPoints(Reply):
    """Extension: ``HP <n>``, the answer to ``HPGET``."""

    form: ClassVar[Form] = Form("HP {points}", points=INT)
    points: int


@dataclass(frozen=True, slots=True)
class TurnBegins(Push):
    """Extension: ``STARTTURN <ap>``: your turn begins, with ``ap`` action points."""

    form: ClassVar[Form] = Form("STARTTURN {points}", points=INT)
    points: int


@dataclass(frozen=True, slots=True)
class TurnOver(Push):
    """Extension: ``ENDTURN``: your turn is over; ``ENDTURN timeout`` when its time ran out."""

    form: ClassVar[Form] = Form(
        "ENDTURN{timed_out}",
        timed_out=Field(r"(?: timeout)?", lambda flag: " timeout" if flag else "", bool),
    )
    timed_out: bool = False


@dataclass(frozen=True, slots=True)
class TurnOf(Push):
    """Extension: ``TURN <player>``: another player's turn begins."""

    form: ClassVar[Form] = Form("TURN {player}", player=TEXT)
    player: str


@dataclass(frozen=True, slots=True)
class HitMod(Push):
    """Extension: ``HITMOD <change>``: your hit points changed (``-2`` a hit, ``1`` a potion)."""

    form: ClassVar[Form] = Form("HITMOD {change}", change=INT)
    change: int


@dataclass(frozen=True, slots=True)
class FinalReply(Reply):
    """A last line before the server closes the connection; ``keyword`` says why."""

    keyword: ClassVar[str]
    text: str


@dataclass(frozen=True, slots=True)
class Win(FinalReply):
    """``WIN <text>``: the player escaped the dungeon."""

    keyword: ClassVar[str] = "WIN"
    form: ClassVar[Form] = Form("WIN{text}", text=FINAL_TEXT)


@dataclass(frozen=True, slots=True)
class Lose(FinalReply):
    """``LOSE <text>``: the player died, or the game ended without them."""

    keyword: ClassVar[str] = "LOSE"
    form: ClassVar[Form] = Form("LOSE{text}", text=FINAL_TEXT)


@dataclass(frozen=True, slots=True)
class Bye(FinalReply):
    """``BYE <text>``: any other reason for closing (quit, shutdown, time-out, error)."""

    keyword: ClassVar[str] = "BYE"
    form: ClassVar[Form] = Form("BYE{text}", text=FINAL_TEXT)


_ONE_LINE: Final[dict[str, type[Reply]]] = {
    cls.form.keyword: cls
    for cls in (
        Success,
        Fail,
        Gold,
        GoldCoins,
        Error,
        Extended,
        GameInfo,
        Redirect,
        Registered,
        LoggedIn,
        Identity,
        Notice,
        Message,
        PlayerJoined,
        PlayerLeft,
        Seen,
        RoundEnded,
        GameOver,
        TurnOf,
        TurnBegins,
        TurnOver,
        HitMod,
        ActionPoints,
        HitPoints,
        Win,
        Lose,
        Bye,
    )
}
"""Every one-line reply, by the keyword its form starts with."""

_MULTI_LINE: Final[dict[str, type[Reply]]] = {
    cls.form.keyword: cls
    for cls in (
        LookReply,
        HelpReply,
        MapReply,
        View,
        LevelView,
        Board,
        GamesReply,
        LeaderboardReply,
        BestsReply,
    )
}
"""Every multi-line reply, by the keyword of its header."""

OWN_REPLIES: Final = frozenset((*_ONE_LINE.values(), *_MULTI_LINE.values()))
"""Every reply :class:`ReplyParser` reads: the lines of our own 2013 protocol."""


class ReplyParser:
    """Client side: feed lines with :meth:`feed`, collect whole replies.

    ``feed`` returns the reply that the line completes, or ``None`` while a
    multi-line reply is still being gathered. It raises
    :class:`RemoteProtocolError` for a line that is no reply of this protocol.
    Every line is read with the declarations of the reply it belongs to.
    """

    def __init__(self) -> None:
        self._pending: list[str] | None = None
        self._expected: int | None = 0
        self._kind: type[Reply] = Reply
        self._header = ""

    @property
    def in_reply(self) -> bool:
        """True while the lines of a multi-line reply are being gathered."""
        return self._pending is not None

    def feed(self, line: str) -> Reply | None:
        pending = self._pending
        if pending is not None:
            if self._expected is None:  # the first row says how many: 5, or 7
                self._expected = len(line) if len(line) in LOOK_SIZES else LOOK_SIZE
            pending.append(line)
            if len(pending) < self._expected:
                return None
            self._pending = None
            return self._kind.from_lines(self._header, tuple(pending))
        keyword = line.partition(" ")[0]
        one_line = _ONE_LINE.get(keyword)
        if one_line is not None:
            return one_line.from_line(line)
        kind = _MULTI_LINE.get(keyword)
        if kind is None:
            raise RemoteProtocolError(f"unexpected line from server: {line[:80]!r}")
        header = kind.form.read(line)
        if header is None:
            raise RemoteProtocolError(f"malformed {keyword} header: {line[:80]!r}")
        count = kind.count_of(header)
        if count == 0:
            return kind.from_lines(line, ())
        self._kind, self._header, self._expected, self._pending = kind, line, count, []
        return None
