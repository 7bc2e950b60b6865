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

Each dialect is declared once, as a table (``_forms``): for every reply the server may
send, the lines that say it (each a reply class with its own declared
:class:`~protocol.forms.Form`, :mod:`protocol.lines`) and the kinds of those lines.
The server renders from it, and the client reads by it: the client's
:class:`~protocol.reading.TolerantReader` knows the other eras' lines from what these
tables declare they write (:meth:`Dialect.writes`), read with the same forms. A test
holds every dialect to declaring every reply (a reply no entry names, and not marked
:attr:`~protocol.replies.Reply.ours`, fails it rather than going out in 2013 words),
and renders every reply in every dialect and reads it back.

Adding a dialect is one class here, listed in :data:`DIALECTS`: its table (reusing the
line classes of :mod:`protocol.lines`, or adding its own there, each with a form) and
its :meth:`Dialect.parse`. Nothing else changes: the server's ``--dialect`` and
``--listen`` know it by name, and the client reads its new lines by their forms.

Each :class:`Dialect` object serves one connection: the 2015 ``TREASUREMOD`` line
says how much gold a pickup added, which the dialect works out from the totals it
has rendered to that client before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import ClassVar, Final, NamedTuple, TypeVar, cast

from .commands import (
    Attack,
    Command,
    Hello,
    Move,
    Shout,
    parse_command,
)
from .direction import Direction
from .errors import RemoteProtocolError
from .lines import (
    Blank,
    Changed,
    Chat,
    Compact,
    Congratulated,
    Failed,
    FromSender,
    GoldLeft,
    Greeted,
    HintsEnd,
    PlayerView,
    RenderHint,
    Said,
    ServerChanged,
    TreasureChanged,
    TurnStarted,
    Unasked,
    ViewChanged,
)
from .replies import (
    OWN_REPLIES,
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
    Success,
    TurnBegins,
    TurnOf,
    TurnOver,
    Win,
)

__all__ = ["DEFAULT_DIALECT", "DIALECTS", "Dialect", "UnknownDialect", "dialect_named"]

DEFAULT_DIALECT: Final = "2013"

_R = TypeVar("_R", bound=Reply)
_Words = Callable[["_Rendered", _R], tuple[Reply, ...]]
"""One kind of reply in one dialect: the lines that say it, each a reply with its own
declared form (:mod:`protocol.lines` holds the other eras' lines); ``()`` when the
dialect has no word for it. The dialect object is passed for the state a rendering
keeps (the gold a 2015 client was last told of)."""
_AnyWords = Callable[["_Rendered", Reply], tuple[Reply, ...]]


class _Said(NamedTuple):
    """One entry of a dialect's table: how replies of ``kind`` are said (``words``), and
    the kinds of line that says them (``writes``), which the client reads back by."""

    kind: type[Reply]
    words: _AnyWords
    writes: tuple[type[Reply], ...]


def _says(kind: type[_R], words: _Words[_R], *writes: type[Reply]) -> _Said:
    """One entry of a dialect's table: ``words`` for replies of ``kind``, in lines of the
    kinds ``writes``.

    The table is looked up by the reply's own class (or its nearest listed ancestor),
    so ``words`` only ever receives a ``kind``; the cast records that invariant."""
    return _Said(kind, cast(_AnyWords, words), writes)


def _same(dialect: _Rendered, reply: Reply) -> tuple[Reply, ...]:
    """Said in this dialect as in 2013: the reply's own line(s)."""
    return (reply,)


def _as_2013(kind: type[Reply]) -> _Said:
    """An entry saying replies of ``kind`` as 2013 does."""
    return _Said(kind, _same, (kind,))


def _nothing(dialect: _Rendered, reply: Reply) -> tuple[Reply, ...]:
    return ()


def _silent(kind: type[Reply]) -> _Said:
    """An entry for a reply the dialect has no word for: its clients are not sent it."""
    return _Said(kind, _nothing, ())


def _table(*entries: _Said) -> Mapping[type[Reply], _Said]:
    table = {entry.kind: entry for entry in entries}
    if len(table) != len(entries):
        raise ValueError("a reply declared twice in one dialect")
    return table


class UnknownDialect(ValueError):
    """A dialect name that is not one of :data:`DIALECTS`; ``str()`` lists the known ones."""


class Dialect:
    """One era's bytes; see the module docstring. The base class is the 2013 dialect."""

    # One per connection (dialect_named): no __dict__ (issue 31). A subclass that keeps
    # state per connection names it in its own __slots__.
    __slots__ = ()

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
    era: ClassVar[str] = "2013"
    """The era whose servers wrote like this (a client's own dialect, such as ch739's,
    belongs to its era): the tolerant reader takes a line as evidence of its era."""
    pushes_view: ClassVar[bool] = False
    """The server pushes the client its view (:class:`~protocol.lines.ViewChanged`)
    whenever it changes, and its turn (``STARTTURN``) as it enters a world without
    turns: its clients never ``LOOK`` by themselves, or act before they are told."""
    welcome: ClassVar[tuple[Reply, ...]] = ()
    """Lines the server says as a client connects, before anything else (mbk's server:
    ``Welcome to the dungeon! Mwuahaha``). Not a greeting that enters a game
    (:attr:`greets`): only words, which its clients read past."""
    coalesced: ClassVar[tuple[type[Reply], ...]] = ()
    """Pushes that only say "look again" (2015's ``CHANGE``): a client is sent one, and
    no other until it sends its next command, however many moves it would tell of (its
    next ``LOOK`` shows them all; a burst of them crashed the 2015 bot)."""

    # -- rendering ----------------------------------------------------------------

    def words(self, reply: Reply) -> tuple[Reply, ...]:
        """The lines that say ``reply`` in this dialect, each a reply with a declared
        form (``()``: the dialect has no word for it). In 2013, the reply itself."""
        return (reply,)

    @classmethod
    def declares(cls, kind: type[Reply]) -> bool:
        """Whether this dialect says in so many words how it writes replies of ``kind``
        (2013 writes every reply as it is; a test holds every other dialect to declaring
        each reply, so that none leaks out in 2013 words by omission)."""
        return True

    @classmethod
    def writes(cls) -> frozenset[type[Reply]]:
        """Every kind of line this dialect writes (2013: our own replies, as they are)."""
        return OWN_REPLIES

    def render(self, reply: Reply) -> bytes:
        """The bytes of ``reply`` for a client of this dialect (``b""``: nothing)."""
        return reply.to_bytes()

    @property
    def gold_told(self) -> int:
        """The gold total this client was last told of, which later words count from
        (2015's ``TREASUREMOD``); 0 in a dialect that keeps no count. Set, it goes on
        from a total told elsewhere (by another node of a cluster, which carried the
        client here)."""
        return 0

    @gold_told.setter
    def gold_told(self, total: int) -> None:
        pass

    # -- parsing ------------------------------------------------------------------

    def heard(self, command: Command | None) -> None:
        """``command`` is the one the next replies answer (read by :meth:`parse`, or
        known whole from an earlier line; ``None``: a line :meth:`parse` refused, which
        the next reply answers). A dialect whose words for a reply depend on the command
        it answers keeps it; the others are not told."""

    def parse(self, line: str) -> Command | None:
        """The command ``line`` holds; ``None`` for a line to skip (a blank one). It
        changes nothing (a line may be looked at before its turn:
        :meth:`~protocol.connection.ServerProtocol.read_ahead`); what the replies
        answer is told in its turn (:meth:`heard`)."""
        return parse_command(line)


class _Rendered(Dialect):
    """A dialect that says some replies in its own lines and the rest as 2013 does.

    ``_forms`` maps a reply class to its lines (:meth:`words`) and their kinds; a
    subclass of a listed class that is not listed itself (a drawn ``LookReply``) takes
    the nearest listed ancestor's. Every line is a reply with a declared form, so what a
    dialect writes is read back by :class:`~protocol.reading.TolerantReader` with the
    same declarations.
    """

    __slots__ = ("_cache", "_gold")

    _forms: ClassVar[Mapping[type[Reply], _Said]]
    """How each reply is said, by its exact class; a reply that is :attr:`Reply.ours`
    and not listed is said as in 2013."""

    @classmethod
    def declares(cls, kind: type[Reply]) -> bool:
        return kind in cls._forms or kind.ours

    @classmethod
    def writes(cls) -> frozenset[type[Reply]]:
        ours = {kind for kind in OWN_REPLIES if kind.ours}
        return frozenset(kind for said in cls._forms.values() for kind in said.writes) | ours

    def __init__(self) -> None:
        self._cache: dict[type[Reply], _AnyWords | None] = {}
        self._gold = 0  # the total last rendered to this client

    def _words_for(self, kind: type[Reply]) -> _AnyWords | None:
        try:
            return self._cache[kind]
        except KeyError:
            # The nearest declared class (a drawn LookReply is a LookReply); "as in 2013"
            # is cached as None, the fast path of render().
            said = next((self._forms[base] for base in kind.__mro__ if base in self._forms), None)
            words = None if said is None or said.words is _same else said.words
            self._cache[kind] = words
            return words

    def words(self, reply: Reply) -> tuple[Reply, ...]:
        """The lines that say ``reply`` in this dialect (``()``: nothing is said)."""
        words = self._words_for(type(reply))
        return (reply,) if words is None else words(self, reply)

    def render(self, reply: Reply) -> bytes:
        words = self._words_for(type(reply))
        if words is None:
            return reply.to_bytes()
        return b"".join(line.to_bytes() for line in words(self, reply))

    @property
    def gold_told(self) -> int:
        return self._gold

    @gold_told.setter
    def gold_told(self, total: int) -> None:
        self._gold = total

    def found(self, total: int) -> int:
        """Gold a pickup added: the rise of the total since the last one rendered."""
        found = total - self._gold if total >= self._gold else total
        self._gold = total
        return found


# -- 2015: the Bath skeleton (zss-git/DungeonOfDoom) ----------------------------------


def _moved(change: Reply) -> _Words[Seen]:
    """A move someone made within sight: the era's word for "your view changed"."""

    def words(dialect: _Rendered, seen: Seen) -> tuple[Reply, ...]:
        moved = seen.action.startswith("MOVE ") and seen.result == "SUCCESS"
        return (change,) if moved else ()

    return words


def _failed(reason: str) -> Reply:
    """``FAIL <reason>``, or a bare ``FAIL`` when there is no reason to give."""
    return Failed(reason) if reason.strip() else Fail()


def _server_says(text: str) -> tuple[Reply, ...]:
    return FromSender("SERVER"), Said("SERVER", text)


def _2015_gold(dialect: _Rendered, reply: Gold) -> tuple[Reply, ...]:
    # The answer to HELLO <name> echoes the name; unasked (on connect), the goal.
    return (Greeted(reply.name),) if reply.name is not None else (Gold(reply.amount),)


def _2015_picked_gold(dialect: _Rendered, reply: GoldCoins) -> tuple[Reply, ...]:
    return Success(), TreasureChanged(dialect.found(reply.total))


def _2015_look(dialect: _Rendered, reply: LookReply) -> tuple[Reply, ...]:
    # Each row ends in a line break and the whole in one more: a blank line after.
    return reply, Blank()


def _2015_message(dialect: _Rendered, reply: Message) -> tuple[Reply, ...]:
    sender = reply.sender or "SERVER"
    return FromSender(sender), Said(sender, reply.text)


_2015_VERBS: Final = frozenset(
    {"HELLO", "MOVE", "ATTACK", "PICKUP", "LOOK", "ENDTURN", "SHOUT", "APGET"}
)
_2015_BARE: Final = frozenset({"PICKUP", "LOOK", "APGET"})


class Dialect2015(_Rendered):
    __slots__ = ()
    name: ClassVar[str] = "2015"
    era: ClassVar[str] = "2015"
    summary: ClassVar[str] = (
        "the 2015 Bath skeleton: GOLD and STARTTURN on connect, FAIL <reason>, turns, chat"
    )
    greets: ClassVar[bool] = True
    closes_after_final: ClassVar[bool] = False
    capabilities: ClassVar[tuple[str, ...]] = ("events", "chat")
    coalesced: ClassVar[tuple[type[Reply], ...]] = (Seen,)

    _forms: ClassVar[Mapping[type[Reply], _Said]] = _table(
        _says(Gold, _2015_gold, Greeted, Gold),
        _says(GoldCoins, _2015_picked_gold, Success, TreasureChanged),
        _says(Fail, lambda dialect, reply: (_failed(reply.reason),), Failed, Fail),
        _silent(Done),
        _says(LookReply, _2015_look, LookReply, Blank),
        _says(Error, lambda dialect, reply: (_failed(reply.message),), Failed, Fail),
        _says(NotYourTurn, lambda dialect, reply: (Failed("not your turn"),), Failed),
        _says(NotYourTurnToEnd, lambda dialect, reply: (Failed("it is not your turn."),), Failed),
        _says(Message, _2015_message, FromSender, Said),
        # The 2015 server told nothing in words but the end of the game.
        _silent(Notice),
        _says(
            GameWon,
            lambda dialect, reply: _server_says("Someone has won the game!!"),
            FromSender,
            Said,
        ),
        _says(Seen, _moved(Changed()), Changed),
        _says(TurnBegins, lambda dialect, reply: (TurnStarted(),), TurnStarted),
        _says(TurnOver, lambda dialect, reply: (TurnOver(),), TurnOver),
        _says(Win, lambda dialect, reply: (Win(""),), Win),
        _says(Lose, lambda dialect, reply: (Lose(""),), Lose),
        _says(Bye, lambda dialect, reply: _server_says(reply.text), FromSender, Said),
        _silent(PlayerJoined),
        _silent(PlayerLeft),
        _silent(RoundEnded),
        _silent(TurnOf),
        _as_2013(Success),
        _as_2013(HitMod),
        _as_2013(ActionPoints),
        _as_2013(HitPoints),
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


def _2016_gold(dialect: _Rendered, reply: Gold) -> tuple[Reply, ...]:
    # Its HELLO answers the gold still needed, which its bot walks towards the exit at 0.
    return (GoldLeft(max(reply.amount - reply.held, 0)),)


def _2016_look(dialect: _Rendered, reply: LookReply) -> tuple[Reply, ...]:
    # No header; the player shown as P in the centre; a blank line after.
    rows = list(reply.rows)
    middle = len(rows) // 2
    row = rows[middle]
    rows[middle] = row[:middle] + "P" + row[middle + 1 :]
    return PlayerView(tuple(rows)), Blank()


def _game_over(text: str) -> Reply:
    """What makes both lib's clients stop: they read ``Game Over!``."""
    return Unasked(f"Game Over! {text}")


_2016_WIN: Final = (
    Congratulated("!!! "),
    Unasked(" You have escaped the Dungeon of Dooom!!!!!! "),
    Unasked("Thank you for playing!"),
)
"""lib's own words to a winner, three lines."""


class Dialect2016(_Rendered):
    __slots__ = ()
    name: ClassVar[str] = "2016"
    era: ClassVar[str] = "2016"
    summary: ClassVar[str] = "the 2016 clients: GOLD: <n>, a LOOK without header, bare FAIL"
    capabilities: ClassVar[tuple[str, ...]] = ("events", "chat")
    coalesced: ClassVar[tuple[type[Reply], ...]] = (Seen,)

    _forms: ClassVar[Mapping[type[Reply], _Said]] = _table(
        _says(Gold, _2016_gold, GoldLeft),
        _says(Fail, lambda dialect, reply: (Fail(),), Fail),
        _says(Error, lambda dialect, reply: (Fail(),), Fail),
        _says(NotYourTurn, lambda dialect, reply: (Fail(),), Fail),
        _says(NotYourTurnToEnd, lambda dialect, reply: (Fail(),), Fail),
        _says(LookReply, _2016_look, PlayerView, Blank),
        _says(Message, lambda dialect, reply: (Chat(reply.sender, reply.text),), Chat),
        _says(Seen, _moved(ServerChanged()), ServerChanged),
        _says(
            Win,
            lambda dialect, reply: (*_2016_WIN, _game_over(reply.text)),
            Congratulated,
            Unasked,
        ),
        _says(Lose, lambda dialect, reply: (_game_over(reply.text),), Unasked),
        _says(Bye, lambda dialect, reply: (_game_over(reply.text),), Unasked),
        _silent(Notice),
        _silent(GameWon),
        _silent(PlayerJoined),
        _silent(PlayerLeft),
        _silent(RoundEnded),
        _silent(TurnBegins),
        _silent(TurnOver),
        _silent(TurnOf),
        _silent(HitMod),
        _as_2013(Success),
        _as_2013(Done),
        _as_2013(GoldCoins),
        _as_2013(ActionPoints),
        _as_2013(HitPoints),
    )

    def parse(self, line: str) -> Command | None:
        """As the 2016 server read lines: trimmed, the verb in any case; a blank line is
        an invalid command (answered ``FAIL``)."""
        if not line.strip():
            raise RemoteProtocolError("invalid command")
        return parse_command(line)


# -- 2016ch: the client of ch739/dungeon-of-doom (its GUI and its bot) ----------------


def _hints(rows: tuple[str, ...]) -> tuple[Reply, ...]:
    """What lies under each square in sight, then ``RENDERHINT END``.

    Its client drops the last hint before the end (and fails on a view with none), so
    the last one is said twice."""
    hints = [
        RenderHint(col, row, glyph if glyph in "#E" else ".")
        for row, line in enumerate(rows)
        for col, glyph in enumerate(line)
        if glyph != "X"
    ]
    return (*hints, *hints[-1:], HintsEnd())


def _ch_gold(dialect: _Rendered, reply: Gold) -> tuple[Reply, ...]:
    # Its GUI starts the game on a line starting HELLO; the goal it only logs.
    return (Greeted(reply.name),) if reply.name is not None else (Gold(reply.amount),)


_CH_BARE: Final = frozenset({"LOOK", "PICKUP", "ENDTURN", "APGET", "HPGET", "QUIT"})


class Dialect2016ch(_Rendered):
    __slots__ = ()
    name: ClassVar[str] = "2016ch"
    era: ClassVar[str] = "2016"
    summary: ClassVar[str] = (
        "ch739's 2016 client: HELLO <name>, LOOKREPLY with RENDERHINT lines, "
        "the view pushed as CHANGE, STARTTURN"
    )
    closes_after_final: ClassVar[bool] = False
    capabilities: ClassVar[tuple[str, ...]] = ("events", "chat")
    pushes_view: ClassVar[bool] = True

    _forms: ClassVar[Mapping[type[Reply], _Said]] = _table(
        _says(Gold, _ch_gold, Greeted, Gold),
        _says(GoldCoins, _2015_picked_gold, Success, TreasureChanged),
        _says(Fail, lambda dialect, reply: (_failed(reply.reason),), Failed, Fail),
        _says(
            LookReply,
            lambda dialect, reply: (reply, *_hints(reply.rows)),
            LookReply,
            RenderHint,
            HintsEnd,
        ),
        _says(
            ViewChanged,
            lambda dialect, reply: (reply, *_hints(reply.rows)),
            ViewChanged,
            RenderHint,
            HintsEnd,
        ),
        _says(Error, lambda dialect, reply: (_failed(reply.message),), Failed, Fail),
        _says(NotYourTurn, lambda dialect, reply: (Failed("not users turn."),), Failed),
        _says(NotYourTurnToEnd, lambda dialect, reply: (Failed("not users turn."),), Failed),
        # A move within sight: the server pushes the new view instead (pushes_view).
        _silent(Seen),
        _silent(Notice),
        _silent(GameWon),
        _says(TurnBegins, lambda dialect, reply: (TurnStarted(),), TurnStarted),
        _says(TurnOver, lambda dialect, reply: (TurnOver(),), TurnOver),
        _says(Win, lambda dialect, reply: (Win(""),), Win),
        _says(Lose, lambda dialect, reply: (Lose(""),), Lose),
        _silent(PlayerJoined),
        _silent(PlayerLeft),
        _silent(RoundEnded),
        _silent(TurnOf),
        _as_2013(Message),
        _as_2013(Bye),
        _as_2013(Done),
        _as_2013(Success),
        _as_2013(HitMod),
        _as_2013(ActionPoints),
        _as_2013(HitPoints),
    )

    def parse(self, line: str) -> Command | None:
        """As ch739's server read lines: the verb in any case, nothing before it; a named
        ``HELLO``; a bare verb takes no argument."""
        if not line.strip() or line[0].isspace():
            raise RemoteProtocolError("invalid command.")
        verb, _, argument = line.strip().partition(" ")
        verb = verb.upper()
        if verb == "HELLO" and not argument.strip():
            raise RemoteProtocolError("HELLO needs an argument.")
        if verb in _CH_BARE and argument.strip():
            raise RemoteProtocolError(f"{verb} does not take an argument.")
        return parse_command(line.strip())


# -- 2016mbk: the client of mbuckley2000/DungeonsOfDooom (its GUI and its bot) ----------


def _centred(rows: tuple[str, ...]) -> tuple[str, ...]:
    """The view with the player shown as ``P`` in the centre (2016)."""
    rows_ = list(rows)
    middle = len(rows_) // 2
    row = rows_[middle]
    rows_[middle] = row[:middle] + "P" + row[middle + 1 :]
    return tuple(rows_)


def _mbk_view(dialect: _Rendered, reply: LookReply | ViewChanged) -> tuple[Reply, ...]:
    # Each row says the size of the view; never a blank line (its reader dies on one).
    rows = _centred(reply.rows)
    return tuple(Compact(f"L{len(rows)}{row}") for row in rows)


def _mbk_success(dialect: _Rendered, reply: Reply) -> tuple[Reply, ...]:
    verb = cast("Dialect2016mbk", dialect).answering
    if verb == "MOVE":
        return (Compact("MS"),)
    if verb == "PICKUP":
        return (Compact(f"PS{dialect._gold}"),)
    return ()


def _mbk_picked_gold(dialect: _Rendered, reply: GoldCoins) -> tuple[Reply, ...]:
    dialect.found(reply.total)
    return (Compact(f"PS{reply.total}"),)


def _mbk_failed(dialect: _Rendered, reply: Reply) -> tuple[Reply, ...]:
    # Its server answered a move or a pickup that failed, and nothing else that did.
    verb = cast("Dialect2016mbk", dialect).answering
    return (Compact(f"{verb[0]}F"),) if verb in ("MOVE", "PICKUP") else ()


class Dialect2016mbk(_Rendered):
    __slots__ = ("answering",)
    name: ClassVar[str] = "2016mbk"
    era: ClassVar[str] = "2016"
    summary: ClassVar[str] = (
        "mbuckley2000's 2016 client: NAME <name>, H<n>, L5 rows, MS/MF, PS<n>/PF, C<chat>"
    )
    # mbuckley2000's server exits after a win, and its bot ignores WIN: it stops only when
    # the connection does (its GUI shows its box on WIN, then exits as the connection ends).
    capabilities: ClassVar[tuple[str, ...]] = ("events", "chat")
    pushes_view: ClassVar[bool] = True
    # mbuckley2000's server says it to every connection; its client's reader takes a line
    # by its first letter and knows no 'W'.
    welcome: ClassVar[tuple[Reply, ...]] = (Compact("Welcome to the dungeon! Mwuahaha"),)

    _forms: ClassVar[Mapping[type[Reply], _Said]] = _table(
        _says(
            Gold,
            lambda dialect, reply: (Compact(f"H{max(reply.amount - reply.held, 0)}"),),
            Compact,
        ),
        _says(Success, _mbk_success, Compact),
        _says(GoldCoins, _mbk_picked_gold, Compact),
        _says(Fail, _mbk_failed, Compact),
        _says(Error, _mbk_failed, Compact),
        _says(NotYourTurn, _mbk_failed, Compact),
        _says(NotYourTurnToEnd, _mbk_failed, Compact),
        _says(LookReply, _mbk_view, Compact),
        _says(ViewChanged, _mbk_view, Compact),
        _says(
            Message, lambda dialect, reply: (Compact(f"C{reply.sender}: {reply.text}"),), Compact
        ),
        _says(Win, lambda dialect, reply: (Win(""),), Win),
        _says(Lose, lambda dialect, reply: (Lose(""),), Lose),
        _silent(Done),
        _silent(Seen),  # the server pushes the new view instead (pushes_view)
        _silent(Notice),
        _silent(GameWon),
        _silent(PlayerJoined),
        _silent(PlayerLeft),
        _silent(RoundEnded),
        _silent(TurnBegins),
        _silent(TurnOver),
        _silent(TurnOf),
        _silent(HitMod),
        _as_2013(Bye),
        _as_2013(ActionPoints),
        _as_2013(HitPoints),
    )

    def __init__(self) -> None:
        super().__init__()
        self.answering = ""
        """The verb of the command last read: its answers say what they answer (``MS``,
        ``PF``); a connection's commands are answered one at a time, in order."""

    def heard(self, command: Command | None) -> None:
        self.answering = "" if command is None else command.verb  # a refusal answers none

    def parse(self, line: str) -> Command | None:
        """As mbuckley2000's server read lines: trimmed, the verb in any case, a direction
        by its first letter; ``NAME <name>`` names the player (answered with the gold still
        needed), ``SAY <text>`` is chat; a blank line is skipped."""
        words = line.strip().split(" ")
        verb = words[0].upper()
        if not verb:
            return None
        if verb == "NAME":
            if len(words) < 2 or not words[1]:
                raise RemoteProtocolError("NAME needs a name")
            return Hello(words[1])
        if verb == "SAY":
            text = line.strip()[4:]
            if not text.strip():
                raise RemoteProtocolError("need something to say")
            return Shout(text)
        if verb == "MOVE":
            if len(words) != 2 or not words[1]:
                raise RemoteProtocolError("MOVE needs a direction")
            direction = Direction.__members__.get(words[1][0].upper())
            if direction is None:
                raise RemoteProtocolError("invalid direction")
            return Move(direction)
        return parse_command(line.strip())


DIALECTS: Final[dict[str, type[Dialect]]] = {
    cls.name: cls for cls in (Dialect, Dialect2015, Dialect2016, Dialect2016ch, Dialect2016mbk)
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
