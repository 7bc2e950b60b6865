"""Dialects: the same conversation in the words of each era's clients. No I/O.

Dungeon of Doom programs written from 2013 to 2016 agree on the game and disagree on
the bytes (``GOLD 2``, ``GOLD: 2``; ``LOOKREPLY`` or no header; ``FAIL`` or ``FAIL
<reason>``; pushed ``STARTTURN``). A :class:`Dialect` is one era's bytes, both ways:

* :meth:`Dialect.render` turns any typed reply of :mod:`protocol.replies` into the
  bytes a client of that era reads. The server always builds the same replies (with
  every field some dialect needs); only the rendering differs. A push the era has
  no word for renders as ``b""``: its clients are never sent it.
* :meth:`Dialect.parse` turns one line a client sent into a command, the way that
  era's servers read lines (letter case, spaces, blank lines), raising
  :class:`~protocol.errors.RemoteProtocolError` with the message that era's
  clients expect (rendered by :meth:`Dialect.render` as that era's error line).

Dialects are rendering and parsing, not rules: what happens in the game is the
world's business, the same for every client. A few facts of each era shape the
conversation around the game, and a dialect states them for the server to honour:
:attr:`Dialect.greets` (a player enters the game on connect, told the goal and
given the turn unasked), :attr:`Dialect.closes_after_final` (whether the final line
ends the connection) and :attr:`Dialect.capabilities` (pushes its clients get
without ``EXTEND``).

The dialects (``docs/dialects.md`` has the table, reply by reply):

* ``2013``: the specification of the course, and our extensions. The default;
  its bytes are exactly those of :meth:`protocol.replies.Reply.to_bytes`.
* ``2015``: the Bath skeleton server of the multiplayer coursework, turns and chat.
* ``2016``: the forms the 2016 clients parse (``GOLD: n``, a headerless ``LOOK``).

Each :class:`Dialect` object serves one connection: the 2015 ``TREASUREMOD`` line
says how much gold a pickup added, which the dialect works out from the totals it
has rendered to that client before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import ClassVar, Final, TypeVar, cast

from .commands import (
    Attack,
    Command,
    Move,
    parse_command,
)
from .direction import Direction
from .errors import RemoteProtocolError
from .replies import (
    ActionPoints,
    Bye,
    Done,
    Error,
    Fail,
    GameWon,
    Gold,
    GoldCoins,
    HitMod,
    HitPoints,
    LookReply,
    Lose,
    Message,
    Notice,
    NotYourTurn,
    NotYourTurnToEnd,
    PlayerJoined,
    PlayerLeft,
    Reply,
    RoundEnded,
    Seen,
    TurnBegins,
    TurnOf,
    TurnOver,
    Win,
)

__all__ = ["DEFAULT_DIALECT", "DIALECTS", "Dialect", "UnknownDialect", "dialect_named"]

DEFAULT_DIALECT: Final = "2013"

_R = TypeVar("_R", bound=Reply)
_Render = Callable[["_Rendered", _R], "str | None"]
"""One kind of reply in one dialect: its lines joined by ``\\n`` (no final one), or
``None`` when the dialect has no word for it. The dialect object is passed for the
state a rendering keeps (the gold a 2015 client was last told of)."""
_AnyRender = Callable[["_Rendered", Reply], "str | None"]


def _says(kind: type[_R], render: _Render[_R]) -> tuple[type[Reply], _AnyRender]:
    """One entry of a dialect's table: ``render`` for replies of ``kind``.

    The table is looked up by the reply's own class (or its nearest listed ancestor),
    so ``render`` only ever receives a ``kind``; the cast records that invariant."""
    return kind, cast(_AnyRender, render)


def _table(*entries: tuple[type[Reply], _AnyRender]) -> Mapping[type[Reply], _AnyRender]:
    return dict(entries)


class UnknownDialect(ValueError):
    """A dialect name that is not one of :data:`DIALECTS`; ``str()`` lists the known ones."""


class Dialect:
    """One era's bytes; see the module docstring. The base class is the 2013 dialect."""

    name: ClassVar[str] = "2013"
    summary: ClassVar[str] = "the 2013 specification and our extensions (the default)"
    greets: ClassVar[bool] = False
    """A client enters the default game as it connects, and is pushed the goal (and,
    in a world without turns, its turn) before it sends anything."""
    closes_after_final: ClassVar[bool] = True
    """Whether ``WIN`` and ``LOSE`` end the connection; if not, the client stays, and
    every later game command is refused with ``the game is over``."""
    capabilities: ClassVar[tuple[str, ...]] = ()
    """What its clients get without asking (``EXTEND``): ``events``, ``chat``."""

    # -- rendering ----------------------------------------------------------------

    def render(self, reply: Reply) -> bytes:
        """The bytes of ``reply`` for a client of this dialect (``b""``: nothing)."""
        return reply.to_bytes()

    # -- parsing ------------------------------------------------------------------

    def parse(self, line: str) -> Command | None:
        """The command ``line`` holds; ``None`` for a line to skip (a blank one)."""
        return parse_command(line)


class _Rendered(Dialect):
    """A dialect that renders some replies its own way and the rest as 2013 does.

    ``_forms`` maps a reply class to its rendering; a subclass of a listed class
    (``Win`` of ``FinalReply``, the clients' ``Failed`` of ``Fail``) takes the
    nearest listed ancestor's.
    """

    _forms: ClassVar[Mapping[type[Reply], _AnyRender]]

    def __init__(self) -> None:
        self._cache: dict[type[Reply], _AnyRender | None] = {}
        self._gold = 0  # the total last rendered to this client

    def render(self, reply: Reply) -> bytes:
        kind = type(reply)
        try:
            form = self._cache[kind]
        except KeyError:
            form = self._cache[kind] = next(
                (self._forms[base] for base in kind.__mro__ if base in self._forms), None
            )
        if form is None:
            return reply.to_bytes()
        text = form(self, reply)
        return b"" if text is None else (text + "\n").encode()

    def found(self, total: int) -> int:
        """Gold a pickup added: the rise of the total since the last one rendered."""
        found = total - self._gold if total >= self._gold else total
        self._gold = total
        return found


# -- 2015: the Bath skeleton (zss-git/DungeonOfDoom) ----------------------------------


def _nothing(dialect: _Rendered, reply: Reply) -> None:
    return None


def _moved(change: str) -> _Render[Seen]:
    """A move someone made within sight: the era's word for "your view changed"."""

    def render(dialect: _Rendered, seen: Seen) -> str | None:
        moved = seen.action.startswith("MOVE ") and seen.result == "SUCCESS"
        return change if moved else None

    return render


def _server_says(text: str) -> str:
    return f"FROM SERVER\nMESSAGE {text}"


def _2015_gold(dialect: _Rendered, reply: Gold) -> str:
    # The answer to HELLO <name> echoes the name; unasked (on connect), the goal.
    return f"HELLO {reply.name}" if reply.name is not None else f"GOLD {reply.amount}"


def _2015_picked_gold(dialect: _Rendered, reply: GoldCoins) -> str:
    return f"SUCCESS\nTREASUREMOD {dialect.found(reply.total)}"


def _2015_fail(dialect: _Rendered, reply: Fail) -> str:
    return f"FAIL {reply.reason}" if reply.reason else "FAIL"


def _2015_look(dialect: _Rendered, reply: LookReply) -> str:
    # Each row ends in a line break and the whole in one more: a blank line after.
    return "LOOKREPLY\n" + "\n".join(reply.rows) + "\n"


def _2015_message(dialect: _Rendered, reply: Message) -> str:
    return f"FROM {reply.sender or 'SERVER'}\nMESSAGE {reply.text}"


_2015_VERBS: Final = frozenset(
    {"HELLO", "MOVE", "ATTACK", "PICKUP", "LOOK", "ENDTURN", "SHOUT", "APGET"}
)
_2015_BARE: Final = frozenset({"PICKUP", "LOOK", "APGET"})


class Dialect2015(_Rendered):
    name: ClassVar[str] = "2015"
    summary: ClassVar[str] = (
        "the 2015 Bath skeleton: GOLD and STARTTURN on connect, FAIL <reason>, turns, chat"
    )
    greets: ClassVar[bool] = True
    closes_after_final: ClassVar[bool] = False
    capabilities: ClassVar[tuple[str, ...]] = ("events", "chat")

    _forms: ClassVar[Mapping[type[Reply], _AnyRender]] = _table(
        _says(Gold, _2015_gold),
        _says(GoldCoins, _2015_picked_gold),
        _says(Fail, _2015_fail),
        _says(Done, _nothing),
        _says(LookReply, _2015_look),
        _says(Error, lambda dialect, reply: f"FAIL {reply.message}"),
        _says(NotYourTurn, lambda dialect, reply: "FAIL not your turn"),
        _says(NotYourTurnToEnd, lambda dialect, reply: "FAIL it is not your turn."),
        _says(Message, _2015_message),
        # The 2015 server told nothing in words but the end of the game.
        _says(Notice, _nothing),
        _says(GameWon, lambda dialect, reply: _server_says("Someone has won the game!!")),
        _says(Seen, _moved("CHANGE")),
        _says(TurnBegins, lambda dialect, reply: "STARTTURN"),
        _says(TurnOver, lambda dialect, reply: "ENDTURN"),
        _says(HitMod, lambda dialect, reply: f"HITMOD {reply.change}"),
        _says(ActionPoints, lambda dialect, reply: f"AP {reply.points}"),
        _says(HitPoints, lambda dialect, reply: f"HP {reply.points}"),
        _says(Win, lambda dialect, reply: "WIN"),
        _says(Lose, lambda dialect, reply: "LOSE"),
        _says(Bye, lambda dialect, reply: _server_says(reply.text)),
        _says(PlayerJoined, _nothing),
        _says(PlayerLeft, _nothing),
        _says(RoundEnded, _nothing),
        _says(TurnOf, _nothing),
    )

    def parse(self, line: str) -> Command | None:
        """As the 2015 server read lines: the verb in capitals, split at the first space,
        nothing trimmed; a blank line is an invalid command too."""
        verb, _, argument = line.partition(" ")
        if verb not in _2015_VERBS:
            if verb and verb == verb.upper() and verb == verb.strip():
                # Our own verbs (QUIT, HELP, GAMES...), in capitals as in this era.
                try:
                    command = parse_command(line)
                except RemoteProtocolError:
                    command = None
                if command is not None:
                    return command
            raise RemoteProtocolError("invalid command")
        if verb in _2015_BARE:
            if argument:
                raise RemoteProtocolError(f"{verb} does not take an argument")
            return parse_command(verb)
        if verb == "ENDTURN":
            return parse_command(verb)  # an argument is ignored
        if verb == "HELLO":
            if not argument:
                raise RemoteProtocolError("HELLO needs an argument")
            return parse_command(line)
        if verb == "SHOUT":
            if not argument.strip():
                raise RemoteProtocolError("need something to shout")
            return parse_command(line)
        # MOVE and ATTACK: exactly one direction, in capitals.
        if not argument:
            raise RemoteProtocolError(f"{verb} needs a direction")
        direction = Direction.__members__.get(argument)
        if direction is None:
            raise RemoteProtocolError("invalid direction")
        return Move(direction) if verb == "MOVE" else Attack(direction)


# -- 2016: the forms Liberrisford/Dungeon-Of-Doom-Game's clients parse ------------------

_2016_WIN: Final = (
    "Congratulations!!! \n You have escaped the Dungeon of Dooom!!!!!! \nThank you for playing!"
)


def _2016_gold(dialect: _Rendered, reply: Gold) -> str:
    # Its HELLO answers the gold still needed, which its bot walks towards the exit at 0.
    return f"GOLD: {max(reply.amount - reply.held, 0)}"


def _2016_look(dialect: _Rendered, reply: LookReply) -> str:
    # No header; the player shown as P in the centre; a blank line after.
    rows = list(reply.rows)
    middle = len(rows) // 2
    row = rows[middle]
    rows[middle] = row[:middle] + "P" + row[middle + 1 :]
    return "\n".join(rows) + "\n"


class Dialect2016(_Rendered):
    name: ClassVar[str] = "2016"
    summary: ClassVar[str] = "the 2016 clients: GOLD: <n>, a LOOK without header, bare FAIL"
    capabilities: ClassVar[tuple[str, ...]] = ("events", "chat")

    _forms: ClassVar[Mapping[type[Reply], _AnyRender]] = _table(
        _says(Gold, _2016_gold),
        _says(Fail, lambda dialect, reply: "FAIL"),
        _says(Error, lambda dialect, reply: "FAIL"),
        _says(LookReply, _2016_look),
        _says(Message, lambda dialect, reply: f"CHAT {reply.sender}: {reply.text}"),
        _says(Seen, _moved("SERVERCHANGE")),
        # lib's own words, then what makes both its clients stop (they read "Game Over!").
        _says(Win, lambda dialect, reply: f"{_2016_WIN}\nGame Over! {reply.text}"),
        _says(Lose, lambda dialect, reply: f"Game Over! {reply.text}"),
        _says(Bye, lambda dialect, reply: f"Game Over! {reply.text}"),
        _says(Notice, _nothing),
        _says(PlayerJoined, _nothing),
        _says(PlayerLeft, _nothing),
        _says(RoundEnded, _nothing),
        _says(TurnBegins, _nothing),
        _says(TurnOver, _nothing),
        _says(TurnOf, _nothing),
        _says(HitMod, _nothing),
    )

    def parse(self, line: str) -> Command | None:
        """As the 2016 server read lines: trimmed, the verb in any case; a blank line is
        an invalid command (answered ``FAIL``)."""
        if not line.strip():
            raise RemoteProtocolError("invalid command")
        return parse_command(line)


DIALECTS: Final[dict[str, type[Dialect]]] = {
    cls.name: cls for cls in (Dialect, Dialect2015, Dialect2016)
}
"""Every dialect, by name."""


def dialect_named(name: str) -> Dialect:
    """A fresh :class:`Dialect` for one connection; raises :class:`UnknownDialect`."""
    try:
        cls = DIALECTS[name]
    except KeyError:
        known = ", ".join(DIALECTS)
        raise UnknownDialect(f"unknown dialect {name!r}; known dialects: {known}") from None
    return cls()
