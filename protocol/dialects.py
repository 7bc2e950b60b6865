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

from collections.abc import Callable
from typing import ClassVar, Final

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

_Render = Callable[[Reply], "str | None"]
"""One reply in one dialect: its lines joined by ``\\n`` (no final one), or ``None``
when the dialect has no word for it."""


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

    _forms: ClassVar[dict[type[Reply], _Render]]

    def __init__(self) -> None:
        self._cache: dict[type[Reply], _Render | None] = {}
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
        text = form(self, reply)  # type: ignore[call-arg]
        return b"" if text is None else (text + "\n").encode()

    def _found(self, total: int) -> int:
        """Gold a pickup added: the rise of the total since the last one rendered."""
        found = total - self._gold if total >= self._gold else total
        self._gold = total
        return found


# -- 2015: the Bath skeleton (zss-git/DungeonOfDoom) ----------------------------------


def _nothing(self: Dialect, reply: Reply) -> None:
    return None


def _moved(change: str) -> _Render:
    """A move someone made within sight: the era's word for "your view changed"."""

    def render(self: Dialect, reply: Reply) -> str | None:
        seen: Seen = reply  # type: ignore[assignment]
        moved = seen.action.startswith("MOVE ") and seen.result == "SUCCESS"
        return change if moved else None

    return render


def _server_says(text: str) -> str:
    return f"FROM SERVER\nMESSAGE {text}"


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

    def _gold_reply(self, reply: Gold) -> str:
        # The answer to HELLO <name> echoes the name; unasked (on connect), the goal.
        return f"HELLO {reply.name}" if reply.name is not None else f"GOLD {reply.amount}"

    def _picked_gold(self, reply: GoldCoins) -> str:
        return f"SUCCESS\nTREASUREMOD {self._found(reply.total)}"

    def _fail(self, reply: Fail) -> str:
        return f"FAIL {reply.reason}" if reply.reason else "FAIL"

    def _look(self, reply: LookReply) -> str:
        # Each row ends in a line break and the whole in one more: a blank line after.
        return "LOOKREPLY\n" + "\n".join(reply.rows) + "\n"

    def _message(self, reply: Message) -> str:
        return f"FROM {reply.sender or 'SERVER'}\nMESSAGE {reply.text}"

    _forms: ClassVar[dict[type[Reply], _Render]] = {
        Gold: _gold_reply,  # type: ignore[dict-item]
        GoldCoins: _picked_gold,  # type: ignore[dict-item]
        Fail: _fail,  # type: ignore[dict-item]
        Done: _nothing,
        LookReply: _look,  # type: ignore[dict-item]
        Error: lambda self, reply: f"FAIL {reply.message}",  # type: ignore[attr-defined]
        NotYourTurn: lambda self, reply: "FAIL not your turn",
        NotYourTurnToEnd: lambda self, reply: "FAIL it is not your turn.",
        Message: _message,  # type: ignore[dict-item]
        # The 2015 server told nothing in words but the end of the game.
        Notice: _nothing,
        GameWon: lambda self, reply: _server_says("Someone has won the game!!"),
        Seen: _moved("CHANGE"),
        TurnBegins: lambda self, reply: "STARTTURN",
        TurnOver: lambda self, reply: "ENDTURN",
        HitMod: lambda self, reply: f"HITMOD {reply.change}",  # type: ignore[attr-defined]
        ActionPoints: lambda self, reply: f"AP {reply.points}",  # type: ignore[attr-defined]
        HitPoints: lambda self, reply: f"HP {reply.points}",  # type: ignore[attr-defined]
        Win: lambda self, reply: "WIN",
        Lose: lambda self, reply: "LOSE",
        Bye: lambda self, reply: _server_says(reply.text),  # type: ignore[attr-defined]
        PlayerJoined: _nothing,
        PlayerLeft: _nothing,
        RoundEnded: _nothing,
        TurnOf: _nothing,
    }

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


class Dialect2016(_Rendered):
    name: ClassVar[str] = "2016"
    summary: ClassVar[str] = "the 2016 clients: GOLD: <n>, a LOOK without header, bare FAIL"
    capabilities: ClassVar[tuple[str, ...]] = ("events", "chat")

    def _gold_reply(self, reply: Gold) -> str:
        # Its HELLO answers the gold still needed, which its bot walks towards the exit at 0.
        return f"GOLD: {max(reply.amount - reply.held, 0)}"

    def _look(self, reply: LookReply) -> str:
        # No header; the player shown as P in the centre; a blank line after.
        rows = list(reply.rows)
        middle = len(rows) // 2
        row = rows[middle]
        rows[middle] = row[:middle] + "P" + row[middle + 1 :]
        return "\n".join(rows) + "\n"

    _forms: ClassVar[dict[type[Reply], _Render]] = {
        Gold: _gold_reply,  # type: ignore[dict-item]
        Fail: lambda self, reply: "FAIL",
        Error: lambda self, reply: "FAIL",
        LookReply: _look,  # type: ignore[dict-item]
        Message: lambda self, reply: f"CHAT {reply.sender}: {reply.text}",  # type: ignore[attr-defined]
        Seen: _moved("SERVERCHANGE"),
        # lib's own words, then what makes both its clients stop (they read "Game Over!").
        Win: lambda self, reply: f"{_2016_WIN}\nGame Over! {reply.text}",  # type: ignore[attr-defined]
        Lose: lambda self, reply: f"Game Over! {reply.text}",  # type: ignore[attr-defined]
        Bye: lambda self, reply: f"Game Over! {reply.text}",  # type: ignore[attr-defined]
        Notice: _nothing,
        PlayerJoined: _nothing,
        PlayerLeft: _nothing,
        RoundEnded: _nothing,
        TurnBegins: _nothing,
        TurnOver: _nothing,
        TurnOf: _nothing,
        HitMod: _nothing,
    }

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
