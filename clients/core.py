"""The client's command logic, with no I/O: commands to bytes, replies to typed results.

Both clients (:mod:`clients.sync` over plain sockets, :mod:`clients.aio` over
trio) are thin transports around one :class:`ClientCore`; every command is
written once, here. The shape is sans-IO, as in :mod:`protocol`:

1. a command method (``core.move("N")``) returns a :class:`Request` that knows
   the command and how to turn its reply into a result;
2. ``core.send(request)`` queues it and returns the bytes to write;
3. the transport feeds what it reads to ``core.receive_data()`` (``b""`` at end of
   input), writes whatever ``core.data_to_send()`` holds (the core may repeat a
   command on its own, see below), and calls ``core.next_answer()``, which gives
   an :class:`Answer` for each request, ``NEED_DATA`` or ``CLOSED``;
4. while an answer is due, ``core.quiet_limit(request)`` says how long a silence
   means "no answer is coming" (``None``: wait for the transport's time-out);
   after such a silence the transport calls ``core.silence(request)``, and after
   its own time-out it raises ``core.timed_out(request)``.

Bytes go both ways through a tolerant :class:`protocol.connection.ClientProtocol`:
it writes the commands, cuts the lines and reads them with
:class:`protocol.reading.TolerantReader`, which knows the replies of every dialect of
``docs/dialects.md`` (our own 2013 protocol first).

What a caller may rely on:

* Replies are matched to requests first in, first out, so requests may be
  pipelined.
* Pushed lines (every :class:`~protocol.replies.Push` subclass: our own, the
  dialects' ``STARTTURN``, ``TREASUREMOD``, ``CHANGE`` views, and any line nobody
  asked for, as :class:`~clients.dialect.Unasked`) never answer a request: they
  go to the ``on_push`` callback if one was given, else to ``events``, a queue
  that keeps the newest ``max_events``. A greeting sent on connect is one of them.
* ``ERROR``, and a refusal in a dialect's words (``FAIL <reason>``, a blank line)
  of a command a server need not know (``EXTEND``, ``MAP``, ``HELP``, ``GAMES``,
  ...), fail only their own request (:class:`~clients.errors.CommandError`);
  ``EXTEND`` met with silence for :data:`QUIET` seconds fails the same way, and so,
  from then on, does every other command of ours (``GAMES``), and ``APGET`` and ``HPGET``:
  a server that says nothing to ``EXTEND`` knows none of them (mbk). A verb met with
  silence once is not waited for again. In every case the game goes on.
* Turns: a command refused because it is not the player's turn (``FAIL not your
  turn``) is sent again, by the core, once the server says ``STARTTURN``.
* ``HELLO`` without a name, refused by a server that needs one, is sent again
  as ``HELLO`` :data:`DEFAULT_NAME`. A server that answers ``HELLO`` only in
  lines no dialect explains fails it with :class:`~clients.errors.UnsupportedServer`.
* A final line (``WIN``, ``LOSE``, ``BYE``, and their dialect forms ``ENDGAME``,
  ``Congratulations...``) is kept in ``final``; requests still waiting, and every
  later ``send``, fail with :class:`~clients.errors.ServerClosed` carrying it.
  ``QUIT`` is answered by its ``BYE`` (or, from a server that keeps the
  connection open, by whatever it answered, as a ``Bye``).
* ``JOIN`` or ``WATCH`` answered ``REDIRECT`` (the client asked for ``redirect``) fails
  its request with :class:`~clients.errors.Redirected`, a :class:`CommandError`; the
  transports follow it (a new connection, :meth:`ClientCore.moved`) unless told not to.
* A line that cannot answer its request fails it with
  :class:`~clients.errors.UnexpectedReply` and ends the connection: the stream
  can no longer be trusted.
* ``goal``, ``gold``, ``moves``, ``name`` and ``capabilities`` follow the
  answers as they arrive (``moves`` counts every ``MOVE``, ``PICKUP`` and ``STAY``
  the server answered, as the server counts them; ``gold`` also follows
  ``TREASUREMOD``); ``dialect`` and ``dialect_evidence`` say which dialect the
  server has shown.
"""

from __future__ import annotations

import inspect
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Concatenate, Final, Generic, ParamSpec, TypeVar, overload

from protocol.commands import (
    DECLARED_VERBS,
    ApGet,
    Attack,
    Command,
    Create,
    EndTurn,
    Extend,
    Games,
    Hello,
    Help,
    HpGet,
    Join,
    Look,
    Map,
    Move,
    Origin,
    Pickup,
    Quit,
    Shout,
    Stay,
    Watch,
    WhoAmI,
)
from protocol.connection import ClientProtocol
from protocol.direction import Direction
from protocol.errors import RemoteProtocolError
from protocol.framing import END_OF_INPUT, NEED_DATA, NeedData
from protocol.replies import (
    ActionPoints,
    Bye,
    Error,
    Extended,
    Fail,
    FinalReply,
    GameInfo,
    GamesReply,
    Gold,
    GoldCoins,
    HelpReply,
    HitPoints,
    Identity,
    LookReply,
    MapReply,
    Push,
    Redirect,
    Reply,
    Success,
    TurnBegins,
)

from .dialect import (
    Blank,
    Failed,
    GoalIs,
    Greeted,
    TreasureChanged,
    TurnStarted,
    Unasked,
    not_your_turn,
)
from .errors import (
    ClientError,
    ClientTimeout,
    CommandError,
    ConnectionMoved,
    Redirected,
    ServerClosed,
    UnexpectedReply,
    UnsupportedServer,
)
from .grid import Grid

__all__ = [
    "CLOSED",
    "DEFAULT_NAME",
    "DEFAULT_PORT",
    "QUIET",
    "Answer",
    "AwaitingClient",
    "BlockingClient",
    "ClientCommand",
    "ClientCommands",
    "ClientCore",
    "Closed",
    "PickupResult",
    "Request",
]

T = TypeVar("T")

DEFAULT_PORT: Final = 40004
DEFAULT_TIMEOUT: Final = 10.0
"""Seconds either client waits for a reply before raising ``ClientTimeout``."""
RECEIVE_SIZE: Final = 65536
"""The port servers listen on unless told otherwise."""
MAX_LINE_LENGTH: Final = 65536
"""Longest line accepted from a server (a ``MAP`` row can be long)."""
QUIET: Final = 1.0
"""Seconds of silence that answer ``EXTEND`` ("not known here"), or end a ``HELLO``
answered only in lines no dialect explains."""
DEFAULT_NAME: Final = "player"
"""The name sent when a server refuses a ``HELLO`` without one."""


class Closed:
    """Sentinel: the connection is over and every answer has been handed out."""

    def __repr__(self) -> str:
        return "CLOSED"


CLOSED: Final = Closed()


class _Pending(Exception):
    """Raised by an interpreter: the reply was taken in, the answer is still to come."""


class _Resend(Exception):
    """Raised by an interpreter: send ``command`` in place of the request's command."""

    def __init__(self, command: Command) -> None:
        self.command = command


@dataclass(slots=True, eq=False)
class Request(Generic[T]):
    """One command on its way, and how to read its reply into a ``T``.

    ``command`` may change once on the way (``HELLO`` sent again with a name).
    """

    command: Command
    interpret: Callable[[Reply], T]

    @property
    def line(self) -> str:
        return self.command.to_line()


@dataclass(frozen=True, slots=True, eq=False)
class Answer(Generic[T]):
    """What became of a request: a value, or the error to raise."""

    request: Request[T]
    value: T | None = None
    error: ClientError | None = None

    def result(self) -> T:
        """The value; raises the error instead when there is one."""
        if self.error is not None:
            raise self.error
        return self.value  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class PickupResult:
    """The answer to ``PICKUP``; true when something was picked up.

    ``gold`` is the new gold total when the thing was gold, else ``None``.
    """

    picked: bool
    gold: int | None = None

    def __bool__(self) -> bool:
        return self.picked


# Commands a server of another dialect may not know (our extensions, as the verbs
# declare): refused in any words, they fail alone and the game goes on.
_OPTIONAL_VERBS: Final = frozenset(
    verb.word for verb in DECLARED_VERBS if verb.origin is Origin.OURS
)
# Commands a server of another era may not know, and refuse in its words (zss has APGET
# and no HPGET): a refusal is the command's error, not a conversation gone wrong.
_REFUSABLE_VERBS: Final = _OPTIONAL_VERBS | {"APGET", "HPGET"}
# Commands a blank line may answer (a 2013 server's refusal); elsewhere it is noise.
_ANSWERED_BLANK: Final = _REFUSABLE_VERBS | {"QUIT"}


MAX_REDIRECTS: Final = 3
"""``REDIRECT`` answers a client follows in a row for one command before it gives up
(:class:`Redirected`): nodes that keep sending it on are misconfigured."""


class ClientCore:
    """One connection's client state; see the module docstring."""

    def __init__(
        self, *, on_push: Callable[[Push], None] | None = None, max_events: int = 1000
    ) -> None:
        self._protocol = ClientProtocol(max_line_length=MAX_LINE_LENGTH, tolerant=True)
        self._input_open = True
        self._waiting: deque[Request[Any]] = deque()
        self._parked: list[Request[Any]] = []
        self._outgoing = bytearray()
        self._answers: deque[Answer[Any]] = deque()
        self._on_push = on_push
        self._failure: ClientError | None = None
        self._echoed: Request[Any] | None = None
        self._puzzling: list[str] = []
        # A line of a known dialect came while HELLO was awaited (ch739's MESSAGE, GOAL):
        # a server still talking in a dialect we read, not one we cannot play.
        self._understood = False
        # EXTEND met with silence: the server knows none of our own commands.
        self._unextended = False
        # Verbs met with silence once: asked again, they are not waited for (mbk).
        self._unknown: set[str] = set()
        self.unasked: list[str] = []
        """The first lines the server sent that no dialect explains (a greeting, say)."""
        self.events: deque[Push] = deque(maxlen=max_events)
        self.final: FinalReply | None = None
        self.goal: int | None = None
        self.gold = 0
        self.moves = 0
        self.name: str | None = None
        self.capabilities: frozenset[str] = frozenset()

    # -- state ------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True once the connection is over (final line, end of input or a broken stream)."""
        return self._failure is not None

    @property
    def dialect(self) -> str | None:
        """``"2013"``, ``"2015"`` or ``"2016"``: the dialect the server has shown, if any."""
        return self._protocol.dialect

    @property
    def dialect_evidence(self) -> tuple[str, ...]:
        """What the server said that showed its dialect (one entry per step up)."""
        return self._protocol.dialect_evidence

    def failure(self) -> ClientError:
        """The error every call raises once the connection is over."""
        if self._failure is None:
            raise RuntimeError("the connection is not closed")
        # Raised again and again: start each time with a clean traceback.
        return self._failure.with_traceback(None)

    # -- bytes in and out -------------------------------------------------------------

    def send(self, request: Request[T]) -> bytes:
        """Queue ``request`` and return its bytes; raises the closing error once closed."""
        if self._failure is not None:
            raise self.failure()
        self._waiting.append(request)
        return self._protocol.send(request.command)

    def data_to_send(self) -> bytes:
        """Bytes the core wants written on its own (commands sent again); usually ``b""``."""
        data, self._outgoing = bytes(self._outgoing), bytearray()
        return data

    def receive_data(self, data: bytes) -> None:
        """Bytes read from the server; ``b""`` when it closed the connection."""
        if self._input_open:
            self._protocol.receive_data(data)
            self._input_open = bool(data)

    def connection_lost(self) -> None:
        """The transport failed (reset, broken pipe): end of input, whatever was buffered."""
        self.receive_data(b"")

    def next_answer(self) -> Answer[Any] | NeedData | Closed:
        """The next answer, ``NEED_DATA`` (read more), or ``CLOSED`` (all is over)."""
        while not self._answers:
            if self._failure is not None:
                return CLOSED
            head = self._waiting[0].command if self._waiting else None
            try:
                event = self._protocol.next_event(head)
            except RemoteProtocolError as error:
                self._break(f"the server broke the protocol: {error}")
                continue
            if event is NEED_DATA:
                return NEED_DATA
            if event is END_OF_INPUT:
                self._close(ServerClosed(self.final))
                continue
            assert isinstance(event, Reply)
            self._take(event)
        return self._answers.popleft()

    # -- silence ------------------------------------------------------------------------

    def quiet_limit(self, request: Request[Any]) -> float | None:
        """Seconds of silence after which ``request`` gets no answer, or ``None``."""
        if request not in self._waiting:
            return None
        if isinstance(request.command, Extend):
            return QUIET
        if request.command.verb in self._unknown:
            return 0.0  # it said nothing to this verb before: it will not now
        if self._unextended and request.command.verb in _REFUSABLE_VERBS:
            return QUIET  # nor APGET, HPGET, that another era may not know (mbk)
        if isinstance(request.command, Hello) and self._puzzling and not self._understood:
            return QUIET
        return None

    def silence(self, request: Request[Any]) -> None:
        """The server said nothing for ``quiet_limit(request)`` seconds: answer it."""
        if request not in self._waiting:
            return
        self._waiting.remove(request)
        if isinstance(request.command, Hello):
            error: ClientError = UnsupportedServer(self._unplayable())
        else:
            self._unextended |= isinstance(request.command, Extend)
            self._unknown.add(request.command.verb)
            error = CommandError(request.line, "no answer (the server does not know it)")
        self._answers.append(Answer(request, error=error))

    def timed_out(self, request: Request[Any]) -> ClientError:
        """The error for a transport that waited its whole time-out for ``request``."""
        if isinstance(request.command, Hello) and self.unasked:
            return UnsupportedServer(self._unplayable())
        if request in self._parked:
            return ClientTimeout(f"no turn came to send {request.line} in time")
        return ClientTimeout(f"no answer to {request.line} in time")

    def _unplayable(self) -> str:
        greeted = " / ".join(repr(line) for line in self.unasked)
        answered = " / ".join(repr(line) for line in self._puzzling[:3]) or "nothing we understand"
        return (
            "this server cannot be played: "
            + (f"it greeted us with {greeted} and " if greeted else "it ")
            + f"answered HELLO with {answered}, which no dialect we know sends"
        )

    # -- lines in ----------------------------------------------------------------------

    def _take(self, reply: Reply) -> None:
        if isinstance(reply, FinalReply):
            self._final(reply)
            return
        if isinstance(reply, Push):
            self._push(reply)
            return
        request = self._waiting[0] if self._waiting else None
        if isinstance(reply, Gold) and (request is None or not isinstance(request.command, Hello)):
            self.goal = reply.amount  # a greeting (2015): the target, told on connect
            self._push(Unasked(reply.lines()[0]))
            return
        if request is None:
            self._push(Unasked(" / ".join(reply.lines())))
            return
        if isinstance(reply, Blank) and request.line.split(" ")[0] not in _ANSWERED_BLANK:
            return  # a blank line between replies (inside ch's answer to HELLO, say)
        # Our own commands (EXTEND, GAMES) are never a turn's actions: a server that says
        # "not your turn" to them (ch739, before HELLO) does not know them, and no turn
        # would ever come for them.
        if not_your_turn(reply) and request.command.verb not in _OPTIONAL_VERBS:
            self._waiting.popleft()
            self._parked.append(request)
            return
        if isinstance(reply, Error):
            self._waiting.popleft()
            error = CommandError(request.line, reply.message)
            self._answers.append(Answer(request, error=error))
            return
        try:
            value = request.interpret(reply)
        except _Pending:
            return
        except _Resend as resend:
            self._waiting.popleft()
            request.command = resend.command
            self._waiting.append(request)
            self._outgoing += self._protocol.send(request.command)
        except CommandError as error:
            self._waiting.popleft()
            self._answers.append(Answer(request, error=error))
        except UnexpectedReply as error:
            self._waiting.popleft()
            self._answers.append(Answer(request, error=error))
            self._close(error)
        else:
            self._waiting.popleft()
            self._answers.append(Answer(request, value))
            if isinstance(value, FinalReply):  # QUIT answered by a server that stays open
                self.final = value
                self._close(ServerClosed(value))

    def _push(self, push: Push) -> None:
        request = self._waiting[0] if self._waiting else None
        if request is not None and isinstance(request.command, Hello):
            self._understood |= not isinstance(push, Unasked)
        if isinstance(push, TreasureChanged):
            self.gold += push.amount
        elif isinstance(push, GoalIs):
            self.goal = push.amount
            if request is not None and request is self._echoed:
                self._take(Gold(push.amount))
        elif isinstance(push, TurnStarted | TurnBegins):
            for parked in self._parked:
                self._waiting.append(parked)
                self._outgoing += self._protocol.send(parked.command)
            self._parked.clear()
        elif isinstance(push, Unasked):
            if request is not None and isinstance(request.command, Quit):
                self._final(Bye(push.line))  # a server that keeps the connection open
                return
            if request is not None and isinstance(request.command, Hello):
                self._puzzling.append(push.line)
            elif len(self.unasked) < 3:
                self.unasked.append(push.line)
        if self._on_push is not None:
            self._on_push(push)
        else:
            self.events.append(push)

    def _final(self, final: FinalReply) -> None:
        self.final = final
        if self._waiting and type(self._waiting[0].command) is Quit and type(final) is Bye:
            self._answers.append(Answer(self._waiting.popleft(), final))
        self._close(ServerClosed(final))

    def _break(self, message: str) -> None:
        self._close(UnexpectedReply(message))

    def _close(self, failure: ClientError) -> None:
        """End the connection: every request still waiting fails with ``failure``."""
        if self._failure is not None:
            return
        self._failure = failure
        for request in (*self._waiting, *self._parked):
            self._answers.append(Answer(request, error=failure))
        self._waiting.clear()
        self._parked.clear()

    # -- commands -----------------------------------------------------------------------

    def hello(self, name: str | None = None) -> Request[int]:
        """``HELLO [name]``: the gold needed to win."""
        request: Request[int]

        def interpret(reply: Reply) -> int:
            sent = request.command
            assert isinstance(sent, Hello)
            if isinstance(reply, Greeted):
                # The name echoed; the target came on connect (2015) or comes next (GOAL).
                if self.goal is None:
                    self._echoed = request
                    raise _Pending
                reply = Gold(self.goal)
            if isinstance(reply, Fail) and sent.name is None:
                raise _Resend(Hello(DEFAULT_NAME))
            if isinstance(reply, Fail):
                reason = reply.reason if isinstance(reply, Failed) else "FAIL"
                raise CommandError(request.line, reason)
            amount = _expect(reply, Gold, "HELLO").amount
            self.goal = amount
            self.name = sent.name
            self._echoed = None
            self._puzzling.clear()
            self._understood = False
            return amount

        request = Request(Hello(name), interpret)
        return request

    def move(self, direction: Direction | str) -> Request[bool]:
        """``MOVE <d>``: whether the player moved."""
        return Request(Move(_direction(direction)), self._moved)

    def stay(self) -> Request[bool]:
        """``STAY``: true when a turn passed."""
        return Request(Stay(), self._moved)

    def _moved(self, reply: Reply) -> bool:
        if not isinstance(reply, Success | Fail):
            raise _unexpected(reply, "MOVE or STAY")
        self.moves += 1
        return isinstance(reply, Success)

    def pickup(self) -> Request[PickupResult]:
        """``PICKUP``: what was picked up."""
        return Request(Pickup(), self._picked)

    def _picked(self, reply: Reply) -> PickupResult:
        if isinstance(reply, GoldCoins):
            self.moves += 1
            self.gold = reply.total
            return PickupResult(True, reply.total)
        if isinstance(reply, Success | Fail):
            self.moves += 1
            return PickupResult(isinstance(reply, Success))
        raise _unexpected(reply, "PICKUP")

    # -- turn-based worlds (battle) ------------------------------------------------------

    def attack(self, direction: Direction | str) -> Request[bool]:
        """``ATTACK <d>``: whether the blow landed (a miss, or nobody there: False)."""

        def interpret(reply: Reply) -> bool:
            if not isinstance(reply, Success | Fail):
                raise _unexpected(reply, "ATTACK")
            self.moves += 1
            return isinstance(reply, Success)

        return Request(Attack(_direction(direction)), interpret)

    def end_turn(self) -> Request[None]:
        """``ENDTURN``: give up the rest of this turn."""

        def interpret(reply: Reply) -> None:
            _expect(reply, Success, "ENDTURN")

        return Request(EndTurn(), interpret)

    def action_points(self) -> Request[int]:
        """``APGET``: action points left this turn (0 when it is someone else's)."""
        return Request(ApGet(), lambda reply: _expect(reply, ActionPoints, "APGET").points)

    def hit_points(self) -> Request[int]:
        """``HPGET``: the player's hit points."""
        return Request(HpGet(), lambda reply: _expect(reply, HitPoints, "HPGET").points)

    def look(self) -> Request[Grid]:
        """``LOOK``: the 5×5 view around the player."""
        return Request(Look(), lambda reply: Grid(_expect(reply, LookReply, "LOOK").rows))

    def map(self) -> Request[Grid]:
        """``MAP``: the whole map as the world lets the player see it."""
        return Request(Map(), lambda reply: Grid(_expect(reply, MapReply, "MAP").rows))

    def help(self) -> Request[tuple[str, ...]]:
        """``HELP``: the lines of the command list."""
        return Request(Help(), lambda reply: _expect(reply, HelpReply, "HELP").text)

    def extend(self, *capabilities: str) -> Request[frozenset[str]]:
        """``EXTEND [capability ...]``: the capabilities the server turned on.

        None named asks for the server's default set. ``bot`` (declare the client
        a bot, shown to others as ``B``) counts only before the first game command.
        """

        def interpret(reply: Reply) -> frozenset[str]:
            self.capabilities = frozenset(_expect(reply, Extended, "EXTEND").capabilities)
            return self.capabilities

        return Request(Extend(capabilities), interpret)

    def shout(self, text: str) -> Request[None]:
        """``SHOUT <text>``: chat to everyone in the game (those who asked for ``chat``)."""

        def interpret(reply: Reply) -> None:
            _expect(reply, Success, "SHOUT")

        return Request(Shout(text), interpret)

    def games(self) -> Request[tuple[GameInfo, ...]]:
        """``GAMES``: the games on the server."""
        return Request(Games(), lambda reply: _expect(reply, GamesReply, "GAMES").games)

    def create(
        self,
        game: str,
        world: str,
        *,
        map: str | None = None,
        seed: int = 0,
        players: int | None = None,
        turn: float | None = None,
    ) -> Request[GameInfo]:
        """``CREATE <game> <world> [...]``: open a new game on the server; ``join`` to play."""
        command = Create(game, world, map=map, seed=seed, players=players, turn=turn)
        return Request(command, lambda reply: _expect(reply, GameInfo, "CREATE"))

    def join(self, game: str) -> Request[GameInfo]:
        """``JOIN <game>``: play in another game (:class:`Redirected` if the server
        answers where it lives instead, ``EXTEND redirect``)."""
        return Request(Join(game), lambda reply: _game(reply, "JOIN"))

    def watch(self, game: str) -> Request[GameInfo]:
        """``WATCH <game>``: follow a game as a spectator (``View`` lines are pushed)."""
        return Request(Watch(game), lambda reply: _game(reply, "WATCH"))

    def moved(self) -> ClientCore:
        """A fresh core for a new connection of the same client (a followed redirect):
        pushed lines go where they went, and those not yet taken are kept. This core is
        over: every request still waiting for its answer here is answered
        :class:`ConnectionMoved` (:meth:`next_answer`)."""
        self._close(
            ConnectionMoved(
                "the client followed a REDIRECT to another node before this command's "
                "answer came; it may or may not have been carried out: send it again"
            )
        )
        core = ClientCore(on_push=self._on_push)
        core.events = self.events
        return core

    def whoami(self) -> Request[Identity]:
        """``WHOAMI``: how the player is shown in its game (``who``: its name, ``#<n>``
        without one, ``#`` when it does not play there) and the game's name (``game``)."""
        return Request(WhoAmI(), lambda reply: _expect(reply, Identity, "WHOAMI"))

    def quit(self) -> Request[FinalReply]:
        """``QUIT``: the server's ``BYE``; the connection is then over.

        A server that answers ``QUIT`` otherwise and keeps the connection open
        (``FAIL invalid command``, a blank line) gets its answer back as a ``Bye``,
        and the client closes the connection itself.
        """

        def interpret(reply: Reply) -> FinalReply:
            return Bye(" / ".join(reply.lines()))

        return Request(Quit(), interpret)


def _direction(direction: Direction | str) -> Direction:
    if isinstance(direction, Direction):
        return direction
    parsed = Direction.parse(direction)
    if parsed is None:
        raise ValueError(f"{direction!r} is not a direction (N, NE, E, SE, S, SW, W, NW)")
    return parsed


def _game(reply: Reply, verb: str) -> GameInfo:
    if isinstance(reply, Redirect):
        raise Redirected(verb, reply.game, reply.address)
    return _expect(reply, GameInfo, verb)


def _expect(reply: Reply, kind: type[T], verb: str) -> T:
    if isinstance(reply, kind):
        return reply
    if isinstance(reply, Fail | Blank) and verb in _REFUSABLE_VERBS:
        # Refused in a dialect's words by a server that does not know the command.
        said = " / ".join(reply.lines()) or "a blank line"
        raise CommandError(verb, f"refused: {said!r}")
    raise _unexpected(reply, verb)


def _unexpected(reply: Reply, verb: str) -> UnexpectedReply:
    shown = " / ".join(reply.lines()[:1])
    return UnexpectedReply(f"unexpected reply to {verb}: {shown!r}")


class ClientState:
    """What a client knows of its game, read from its :class:`ClientCore`.

    Shared by the blocking and the trio client, which differ only in how bytes move.
    """

    _core: ClientCore

    @property
    def goal(self) -> int | None:
        """The gold needed to win, once ``hello()`` has been answered."""
        return self._core.goal

    @property
    def gold(self) -> int:
        """Gold held, as the last ``PICKUP`` of gold reported."""
        return self._core.gold

    @property
    def moves(self) -> int:
        """``MOVE``, ``PICKUP`` and ``STAY`` commands answered (the server's move count)."""
        return self._core.moves

    @property
    def name(self) -> str | None:
        return self._core.name

    @property
    def final(self) -> FinalReply | None:
        """The server's last line (``WIN``, ``LOSE``, ``BYE``), once it has been read."""
        return self._core.final

    @property
    def closed(self) -> bool:
        return self._core.closed

    @property
    def capabilities(self) -> frozenset[str]:
        """What the last ``extend()`` turned on."""
        return self._core.capabilities

    @property
    def events(self) -> deque[Push]:
        """Pushed lines not yet taken (when no ``on_push`` callback was given)."""
        return self._core.events

    @property
    def dialect(self) -> str | None:
        """The dialect the server has shown: ``"2013"``, ``"2015"``, ``"2016"`` or ``None``."""
        return self._core.dialect

    @property
    def dialect_evidence(self) -> tuple[str, ...]:
        """The lines that showed the dialect, quoted."""
        return self._core.dialect_evidence


P = ParamSpec("P")


class ClientCommand(Generic[P, T]):
    """A client method made from a :class:`ClientCore` command: each command is written
    once, in the core, and each transport only says how a request is carried (a
    :class:`BlockingClient` returns the answer, an :class:`AwaitingClient` what to
    ``await`` for it)."""

    def __init__(self, make: Callable[Concatenate[ClientCore, P], Request[T]]) -> None:
        self._make = make
        self.__doc__ = make.__doc__
        signature = inspect.signature(make)
        # What help() and editors show: the command's own parameters, without the core.
        self._signature = signature.replace(
            parameters=list(signature.parameters.values())[1:],
            return_annotation=inspect.Signature.empty,
        )

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, client: None, owner: type) -> ClientCommand[P, T]: ...
    @overload
    def __get__(self, client: BlockingClient, owner: type) -> Callable[P, T]: ...
    @overload
    def __get__(self, client: AwaitingClient, owner: type) -> Callable[P, Awaitable[T]]: ...
    def __get__(self, client: object | None, owner: type) -> Any:
        if client is None:
            return self
        make = self._make

        def call(*args: Any, **kwargs: Any) -> Any:
            return client._call(make(client._core, *args, **kwargs))  # type: ignore[attr-defined]

        call.__name__ = self._name
        call.__doc__ = self.__doc__
        call.__signature__ = self._signature  # type: ignore[attr-defined]
        return call


class ClientCommands(ClientState):
    """Every command of the client library: one method per verb that declares a client
    method (:attr:`protocol.commands.Verb.client`; a test holds the two lists equal)."""

    hello = ClientCommand(ClientCore.hello)
    move = ClientCommand(ClientCore.move)
    stay = ClientCommand(ClientCore.stay)
    pickup = ClientCommand(ClientCore.pickup)
    attack = ClientCommand(ClientCore.attack)
    end_turn = ClientCommand(ClientCore.end_turn)
    action_points = ClientCommand(ClientCore.action_points)
    hit_points = ClientCommand(ClientCore.hit_points)
    look = ClientCommand(ClientCore.look)
    map = ClientCommand(ClientCore.map)
    help = ClientCommand(ClientCore.help)
    extend = ClientCommand(ClientCore.extend)
    shout = ClientCommand(ClientCore.shout)
    games = ClientCommand(ClientCore.games)
    create = ClientCommand(ClientCore.create)
    join = ClientCommand(ClientCore.join)
    watch = ClientCommand(ClientCore.watch)
    whoami = ClientCommand(ClientCore.whoami)
    quit = ClientCommand(ClientCore.quit)


class BlockingClient(ClientCommands):
    """A client whose commands wait for their answer and return it (:mod:`clients.sync`)."""

    def _call(self, request: Request[T]) -> T:
        raise NotImplementedError


class AwaitingClient(ClientCommands):
    """A client whose commands return what to ``await`` (:mod:`clients.aio`)."""

    async def _call(self, request: Request[T]) -> T:
        raise NotImplementedError
