"""Replies a server sends, as typed objects: formatting for servers, parsing for clients.

Every reply knows its exact bytes (``reply.to_bytes()``); the 2013 replies are
byte for byte those of RULES §1, each line ending in a single ``LF``. The
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
from typing import ClassVar, Final

from .errors import LocalProtocolError, RemoteProtocolError

__all__ = [
    "LOOK_SIZE",
    "LOOK_SIZES",
    "ActionPoints",
    "Bye",
    "Done",
    "Error",
    "Extended",
    "Fail",
    "FinalReply",
    "GameInfo",
    "GameOver",
    "GamesReply",
    "Gold",
    "GoldCoins",
    "HelpReply",
    "HitMod",
    "HitPoints",
    "LookReply",
    "Lose",
    "MapReply",
    "Message",
    "NotYourTurn",
    "Notice",
    "PlayerJoined",
    "PlayerLeft",
    "Push",
    "Reply",
    "ReplyParser",
    "RoundEnded",
    "Seen",
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
    """Base class of every reply."""

    __slots__ = ()

    def lines(self) -> list[str]:
        raise NotImplementedError

    def to_bytes(self) -> bytes:
        """The reply on the wire: each line followed by ``LF``."""
        return "".join(line + "\n" for line in self.lines()).encode()


def _single_line(text: str) -> str:
    if "\n" in text or "\r" in text:
        raise LocalProtocolError(f"a reply line cannot hold a line break: {text!r}")
    return text


@dataclass(frozen=True, slots=True)
class Gold(Reply):
    """``GOLD <n>``: the answer to ``HELLO``: the gold needed to win.

    ``name`` (the player's name, if any) and ``held`` (the gold the player holds)
    are not written in the 2013 dialect; others say them (``docs/dialects.md``).
    """

    amount: int
    name: str | None = field(default=None, compare=False)
    held: int = field(default=0, compare=False)

    def lines(self) -> list[str]:
        return [f"GOLD {self.amount}"]


@dataclass(frozen=True, slots=True)
class Success(Reply):
    def lines(self) -> list[str]:
        return ["SUCCESS"]

    def to_bytes(self) -> bytes:
        return b"SUCCESS\n"


@dataclass(frozen=True, slots=True)
class Done(Success):
    """``SUCCESS`` to a command whose effect is answer enough in some dialects: ``SHOUT``
    (the chat line) and ``ENDTURN`` (the ``ENDTURN`` push) say nothing more in 2015."""


@dataclass(frozen=True, slots=True)
class Fail(Reply):
    """``FAIL``: the action did not happen. ``reason`` says why, in the dialects that
    write it (``FAIL can't move into a wall``); 2013 does not."""

    reason: str = field(default="", compare=False)

    def lines(self) -> list[str]:
        return ["FAIL"]

    def to_bytes(self) -> bytes:
        return b"FAIL\n"


@dataclass(frozen=True, slots=True)
class GoldCoins(Reply):
    """``SUCCESS, GOLD COINS: <total>``: a ``PICKUP`` that found gold."""

    total: int

    def lines(self) -> list[str]:
        return [f"SUCCESS, GOLD COINS: {self.total}"]


@dataclass(frozen=True, slots=True)
class LookReply(Reply):
    """``LOOKREPLY`` and five rows of five characters (seven of seven with a lantern)."""

    rows: tuple[str, ...]

    def __post_init__(self) -> None:
        size = len(self.rows)
        if size not in LOOK_SIZES or set(map(len, self.rows)) != {size}:
            raise LocalProtocolError(
                f"a look reply is {LOOK_SIZE} rows of {LOOK_SIZE} (7 of 7 with a lantern)"
            )

    def lines(self) -> list[str]:
        return ["LOOKREPLY", *self.rows]

    def to_bytes(self) -> bytes:
        # The reply bots ask for most: one join, where the general path builds a list.
        return ("LOOKREPLY\n" + "\n".join(self.rows) + "\n").encode()


@dataclass(frozen=True, slots=True)
class Error(Reply):
    """``ERROR <message>``: the line received was not a valid command here."""

    message: str

    def lines(self) -> list[str]:
        return [_single_line(f"ERROR {self.message}")]


@dataclass(frozen=True, slots=True)
class NotYourTurn(Error):
    """``ERROR <message>`` refusing an action out of the player's turn."""


@dataclass(frozen=True, slots=True)
class HelpReply(Reply):
    """Extension: ``HELP <n>`` followed by n lines of text."""

    text: tuple[str, ...]

    def lines(self) -> list[str]:
        return [f"HELP {len(self.text)}", *map(_single_line, self.text)]


@dataclass(frozen=True, slots=True)
class MapReply(Reply):
    """Extension: ``MAP <rows> <cols>`` followed by the rows of the whole map."""

    rows: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.rows or len({len(row) for row in self.rows}) != 1:
            raise LocalProtocolError("a map reply needs rows of one length")

    def lines(self) -> list[str]:
        return [f"MAP {len(self.rows)} {len(self.rows[0])}", *map(_single_line, self.rows)]


@dataclass(frozen=True, slots=True)
class Extended(Reply):
    """Extension: ``EXTENDED <capability> ...``, what ``EXTEND`` turned on (all of it so far)."""

    capabilities: tuple[str, ...]

    def lines(self) -> list[str]:
        return [" ".join(("EXTENDED", *self.capabilities))]


@dataclass(frozen=True, slots=True)
class GameInfo(Reply):
    """Extension: ``GAME <name> world=... map=... seed=... players=... limit=... watchers=...
    turn=...``, one game; the answer to ``CREATE``, ``JOIN`` and ``WATCH``.

    ``limit`` ``None`` is written ``none`` (no limit); ``turn`` is the round time
    limit in seconds, ``none`` in a world that resolves every action at once;
    ``map`` ``default`` is the world's own default map.
    """

    name: str
    world: str
    map: str
    seed: int
    players: int
    limit: int | None
    watchers: int
    turn: float | None

    def line(self) -> str:
        limit = "none" if self.limit is None else self.limit
        turn = "none" if self.turn is None else f"{self.turn:g}"
        return _single_line(
            f"GAME {self.name} world={self.world} map={self.map} seed={self.seed} "
            f"players={self.players} limit={limit} watchers={self.watchers} turn={turn}"
        )

    def lines(self) -> list[str]:
        return [self.line()]

    @classmethod
    def parse(cls, line: str) -> GameInfo:
        words = line.split(" ")
        if len(words) != 9 or words[0] != "GAME":
            raise RemoteProtocolError(f"malformed GAME line: {line[:80]!r}")
        fields = dict(word.partition("=")[::2] for word in words[2:])
        try:
            return cls(
                words[1],
                fields["world"],
                fields["map"],
                _parse_int(fields["seed"], "seed"),
                _parse_int(fields["players"], "players"),
                None if fields["limit"] == "none" else _parse_int(fields["limit"], "limit"),
                _parse_int(fields["watchers"], "watchers"),
                None if fields["turn"] == "none" else float(fields["turn"]),
            )
        except (KeyError, ValueError):
            raise RemoteProtocolError(f"malformed GAME line: {line[:80]!r}") from None


@dataclass(frozen=True, slots=True)
class GamesReply(Reply):
    """Extension: ``GAMES <n>`` followed by n ``GAME`` lines."""

    games: tuple[GameInfo, ...]

    def lines(self) -> list[str]:
        return [f"GAMES {len(self.games)}", *(game.line() for game in self.games)]


class Push(Reply):
    """Base class of lines the server sends on its own, not in answer to a command.

    Only clients that asked for the extended protocol receive them; a client can
    tell them from replies by type alone.
    """

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Notice(Push):
    """Extension: ``NOTICE <text>``, something that happened, for clients that opted in."""

    text: str

    def lines(self) -> list[str]:
        return [_single_line(f"NOTICE {self.text}")]


@dataclass(frozen=True, slots=True)
class Message(Push):
    """Extension: ``MESSAGE <sender>: <text>``, chat (the 2015 multiplayer ``MESSAGE``).

    A message with no sender (as the 2015 servers sent them) is ``MESSAGE <text>``.
    """

    sender: str
    text: str

    def lines(self) -> list[str]:
        if not self.sender:
            return [_single_line(f"MESSAGE {self.text}")]
        return [_single_line(f"MESSAGE {self.sender}: {self.text}")]


@dataclass(frozen=True, slots=True)
class PlayerJoined(Push):
    """Extension: ``JOINED <player>``, someone entered your game."""

    player: str

    def lines(self) -> list[str]:
        return [_single_line(f"JOINED {self.player}")]


@dataclass(frozen=True, slots=True)
class PlayerLeft(Push):
    """Extension: ``LEFT <player>: <why>``; why is ``escaped``, ``died``, ``quit``,
    ``disconnected``, ``moved`` (to another game) or ``removed`` (missed turns)."""

    player: str
    why: str

    def lines(self) -> list[str]:
        return [_single_line(f"LEFT {self.player}: {self.why}")]


@dataclass(frozen=True, slots=True)
class Seen(Push):
    """Extension: ``SAW <player>: <action> <result>``, an action you could see.

    ``action`` is the command (``MOVE N``, ``PICKUP``, ``STAY``) and ``result`` the
    reply its player got (``SUCCESS``, ``FAIL`` or ``SUCCESS, GOLD COINS: <n>``).
    """

    player: str
    action: str
    result: str

    def lines(self) -> list[str]:
        return [_single_line(f"SAW {self.player}: {self.action} {self.result}")]


@dataclass(frozen=True, slots=True)
class RoundEnded(Push):
    """Extension: ``ROUND <n> acted=<a> missed=<m>``: round n resolved, with a actions
    sent in time and m players who sent none (each stayed)."""

    number: int
    acted: int
    missed: int

    def lines(self) -> list[str]:
        return [f"ROUND {self.number} acted={self.acted} missed={self.missed}"]


@dataclass(frozen=True, slots=True)
class View(Push):
    """Extension: ``VIEW <rows> <cols>`` and the rows of the whole map, as a spectator sees it."""

    rows: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.rows or len({len(row) for row in self.rows}) != 1:
            raise LocalProtocolError("a view needs rows of one length")

    def lines(self) -> list[str]:
        return [f"VIEW {len(self.rows)} {len(self.rows[0])}", *map(_single_line, self.rows)]


@dataclass(frozen=True, slots=True)
class GameOver(Push):
    """Extension: ``GAMEOVER <text>``: the game you watch ended; a fresh one begins."""

    text: str

    def lines(self) -> list[str]:
        return [_single_line(f"GAMEOVER {self.text}")]


# -- the turns of the battle world ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ActionPoints(Reply):
    """Extension: ``AP <n>``, the answer to ``APGET``: action points left in this turn
    (0 when it is not the player's turn)."""

    points: int

    def lines(self) -> list[str]:
        return [f"AP {self.points}"]


@dataclass(frozen=True, slots=True)
class HitPoints(Reply):
    """Extension: ``HP <n>``, the answer to ``HPGET``."""

    points: int

    def lines(self) -> list[str]:
        return [f"HP {self.points}"]


@dataclass(frozen=True, slots=True)
class TurnBegins(Push):
    """Extension: ``STARTTURN <ap>``: your turn begins, with ``ap`` action points."""

    points: int

    def lines(self) -> list[str]:
        return [f"STARTTURN {self.points}"]


@dataclass(frozen=True, slots=True)
class TurnOver(Push):
    """Extension: ``ENDTURN``: your turn is over; ``ENDTURN timeout`` when its time ran out."""

    timed_out: bool = False

    def lines(self) -> list[str]:
        return ["ENDTURN timeout" if self.timed_out else "ENDTURN"]


@dataclass(frozen=True, slots=True)
class TurnOf(Push):
    """Extension: ``TURN <player>``: another player's turn begins."""

    player: str

    def lines(self) -> list[str]:
        return [_single_line(f"TURN {self.player}")]


@dataclass(frozen=True, slots=True)
class HitMod(Push):
    """Extension: ``HITMOD <change>``: your hit points changed (``-2`` a hit, ``1`` a potion)."""

    change: int

    def lines(self) -> list[str]:
        return [f"HITMOD {self.change}"]


@dataclass(frozen=True, slots=True)
class FinalReply(Reply):
    """A last line before the server closes the connection; ``keyword`` says why."""

    keyword: ClassVar[str]
    text: str

    def lines(self) -> list[str]:
        return [_single_line(f"{self.keyword} {self.text}")]


@dataclass(frozen=True, slots=True)
class Win(FinalReply):
    """``WIN <text>``: the player escaped the dungeon."""

    keyword: ClassVar[str] = "WIN"


@dataclass(frozen=True, slots=True)
class Lose(FinalReply):
    """``LOSE <text>``: the player died, or the game ended without them."""

    keyword: ClassVar[str] = "LOSE"


@dataclass(frozen=True, slots=True)
class Bye(FinalReply):
    """``BYE <text>``: any other reason for closing (quit, shutdown, time-out, error)."""

    keyword: ClassVar[str] = "BYE"


_FINALS: Final = {cls.keyword: cls for cls in (Win, Lose, Bye)}


def _parse_int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise RemoteProtocolError(f"{what} is not an integer: {text!r}") from None


def _named(text: str) -> tuple[str, str]:
    """Split ``<player>: <rest>`` at the first ``": "``."""
    player, separator, rest = text.partition(": ")
    if not separator:
        raise RemoteProtocolError(f"expected '<player>: ...', got {text[:80]!r}")
    return player, rest


def _parse_message(text: str) -> Message:
    sender, separator, body = text.partition(": ")
    return Message(sender, body) if separator else Message("", text)


def _parse_left(text: str) -> PlayerLeft:
    return PlayerLeft(*_named(text))


def _parse_seen(text: str) -> Seen:
    player, rest = _named(text)
    words = rest.split(" ")
    # The result is SUCCESS, FAIL or "SUCCESS, GOLD COINS: n"; the action is before it.
    cut = next((i for i, word in enumerate(words) if word in ("SUCCESS", "FAIL", "SUCCESS,")), None)
    if not cut:
        raise RemoteProtocolError(f"malformed SAW line: {text[:80]!r}")
    return Seen(player, " ".join(words[:cut]), " ".join(words[cut:]))


def _parse_round(line: str) -> RoundEnded:
    words = line.split(" ")
    if len(words) != 4 or not words[2].startswith("acted=") or not words[3].startswith("missed="):
        raise RemoteProtocolError(f"malformed ROUND line: {line[:80]!r}")
    return RoundEnded(
        _parse_int(words[1], "round"),
        _parse_int(words[2].removeprefix("acted="), "acted"),
        _parse_int(words[3].removeprefix("missed="), "missed"),
    )


_PUSHES: Final = {
    "NOTICE": Notice,
    "MESSAGE": _parse_message,
    "JOINED": PlayerJoined,
    "LEFT": _parse_left,
    "SAW": _parse_seen,
    "GAMEOVER": GameOver,
    "TURN": TurnOf,
}


class ReplyParser:
    """Client side: feed lines with :meth:`feed`, collect whole replies.

    ``feed`` returns the reply that the line completes, or ``None`` while a
    multi-line reply is still being gathered. It raises
    :class:`RemoteProtocolError` for a line that is no reply of this protocol.
    """

    def __init__(self) -> None:
        self._pending: list[str] | None = None
        self._expected = 0
        self._kind = ""

    @property
    def in_reply(self) -> bool:
        """True while the lines of a multi-line reply are being gathered."""
        return self._pending is not None

    def feed(self, line: str) -> Reply | None:
        if self._pending is not None:
            if self._kind == "LOOKREPLY" and not self._pending:
                self._expected = len(line) if len(line) in LOOK_SIZES else LOOK_SIZE
            self._pending.append(line)
            if len(self._pending) < self._expected:
                return None
            rows, self._pending = tuple(self._pending), None
            return self._finish(rows)
        keyword, _, rest = line.partition(" ")
        if line == "SUCCESS":
            return Success()
        if line == "FAIL":
            return Fail()
        if line == "LOOKREPLY":
            # The first row says how many follow: 5, or 7 with a lantern.
            return self._begin("LOOKREPLY", 1)
        if line.startswith("SUCCESS, GOLD COINS: "):
            return GoldCoins(_parse_int(line.removeprefix("SUCCESS, GOLD COINS: "), "gold"))
        if keyword == "GOLD":
            return Gold(_parse_int(rest, "gold"))
        if keyword == "ERROR":
            return Error(rest)
        if keyword in _PUSHES:
            return _PUSHES[keyword](rest)
        if keyword == "EXTENDED":
            return Extended(tuple(rest.split()))
        if keyword == "GAME":
            return GameInfo.parse(line)
        if keyword == "GAMES":
            count = _parse_int(rest, "game count")
            return self._begin("GAMES", count) if count else GamesReply(())
        if keyword == "ROUND":
            return _parse_round(line)
        if keyword == "STARTTURN":
            return TurnBegins(_parse_int(rest, "action points"))
        if line == "ENDTURN" or line == "ENDTURN timeout":
            return TurnOver(timed_out=bool(rest))
        if keyword == "HITMOD":
            return HitMod(_parse_int(rest, "hit point change"))
        if keyword == "AP":
            return ActionPoints(_parse_int(rest, "action points"))
        if keyword == "HP":
            return HitPoints(_parse_int(rest, "hit points"))
        if keyword in _FINALS:
            return _FINALS[keyword](rest)
        if keyword == "HELP":
            count = _parse_int(rest, "help line count")
            return self._begin("HELP", count) if count else HelpReply(())
        if keyword == "MAP" or keyword == "VIEW":
            size = rest.split()
            if len(size) != 2:
                raise RemoteProtocolError(f"malformed {keyword} header: {line!r}")
            rows = _parse_int(size[0], "map rows")
            _parse_int(size[1], "map columns")
            if rows < 1:
                raise RemoteProtocolError(f"malformed {keyword} header: {line!r}")
            return self._begin(keyword, rows)
        raise RemoteProtocolError(f"unexpected line from server: {line[:80]!r}")

    def _begin(self, kind: str, count: int) -> None:
        self._kind, self._expected, self._pending = kind, count, []
        return None

    def _finish(self, rows: tuple[str, ...]) -> Reply:
        try:
            if self._kind == "LOOKREPLY":
                return LookReply(rows)
            if self._kind == "MAP":
                return MapReply(rows)
            if self._kind == "VIEW":
                return View(rows)
            if self._kind == "GAMES":
                return GamesReply(tuple(GameInfo.parse(row) for row in rows))
            return HelpReply(rows)
        except LocalProtocolError as error:
            raise RemoteProtocolError(f"malformed {self._kind} reply: {error}") from None
