"""The campaign's clients: many raw-socket players racing for the same names and games on
every node, each command and its answer recorded (:class:`bench.faults.history.Op`).

Each client (one trio task, its own ``random.Random`` seeded from the campaign's seed and
its number) runs sessions one after another until told to stop: it connects to a node
it picks (``A``, ``B`` or ``C`` of the cluster, or the workers server ``W``), plays one of
a few scripts and leaves (``QUIT``, or by closing). The scripts:

* ``wanderer``: perhaps ``HELLO`` a name of a small pool (lookalikes in it), then ``LOOK``,
  ``MOVE`` and ``PICKUP`` in its node's ``default`` game;
* ``creator``: ``HELLO`` a name, ``CREATE`` a game of a small pool on the tiny map (one
  player, so that its ``WIN`` ends it; a seed of its own, which tells two games of one
  name apart), then ``JOIN`` it (its own, or the one that won the race) and play it to a
  ``WIN``;
* ``joiner``: ``GAMES``, then ``JOIN`` a listed game (often another node's: carried) and play;
* ``watcher``: ``WATCH`` a game and read what it is shown for a moment;
* ``lister``: ``GAMES`` a few times.

A client never sends ``EXTEND``: it speaks the 2013 protocol, so apart from what it
watches, every line it gets must answer a command of its, or be a final line (``WIN``,
``LOSE``, ``BYE``) that ends its connection. The answer to a command must come within
:data:`ANSWER_BOUND` seconds.
"""

from __future__ import annotations

import contextlib
import random
import re
from collections.abc import Awaitable, Callable
from typing import Final

import trio

from .history import (
    EOF,
    ERROR,
    FINAL,
    MALFORMED,
    OK,
    REFUSED,
    SILENT,
    UNASKED,
    History,
    Op,
    clock,
)
from .rig import NODES, PORT, WORKERS

ANSWER_BOUND: Final = 15.0
"""Seconds within which every command must be answered (or the connection ended with a
final line): a database call's 3 s, the 5 s a command may wait for the directory, twice
over for a command that waits for both, and the machine's own delays."""
CONNECT_TIMEOUT: Final = 5.0
NAMES: Final = ("Zed0", "Zed1", "Ada0", "ada0", "\u0410da0", "Kim", "KIM", "Lou", "L0u", "Max")
"""The names clients go by: few, so that they race, and lookalikes among them."""
GAMES: Final = tuple(f"g{number}" for number in range(6))
FINALS: Final = ("WIN", "LOSE", "BYE")
_GAME = re.compile(r"^GAME (\S+) .*\bseed=(-?\d+)\b")
EXPECTED: Final = {
    "HELLO": ("GOLD ",),
    "CREATE": ("GAME ",),
    "JOIN": ("GAME ",),
    "WATCH": ("GAME ",),
    "LOOK": ("LOOKREPLY",),
    "MOVE": ("SUCCESS", "FAIL"),
    "PICKUP": ("SUCCESS, GOLD COINS: ", "FAIL"),
    "GAMES": ("GAMES ",),
    "WHOAMI": ("WHOAMI ",),
    "QUIT": ("BYE",),
}
"""How the answer of each command the clients send begins (besides ``ERROR`` and a
final line)."""


class _Gone(Exception):
    """The session is over (an answer was missing, wrong, or final)."""


class Session:
    """One connection of one client: sends commands and reads their answers."""

    def __init__(self, client: int, number: int, system: str, node: str, history: History) -> None:
        self.client, self.number, self.system, self.node = client, number, system, node
        self.history = history
        self.name: str | None = None
        self.game: tuple[str, int] | None = None
        self.watching = False
        self._stream: trio.SocketStream | None = None
        self._lines, self._arrivals = trio.open_memory_channel[tuple[float, str | None]](1 << 16)
        self._buffer = b""

    async def _read(self, stream: trio.SocketStream) -> None:
        try:
            while data := await stream.receive_some(65536):
                self._buffer += data
                *whole, self._buffer = self._buffer.split(b"\n")
                for raw in whole:
                    await self._lines.send((clock(), raw.decode(errors="replace").rstrip("\r")))
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        await self._lines.send((clock(), None))

    def _op(self, command: str, sent: float) -> Op:
        op = Op(self.client, self.number, self.system, self.node, command, sent)
        op.name, op.game = self.name, self.game
        self.history.ops.append(op)
        return op

    async def _next(self, op: Op, deadline: float) -> str:
        """The next line for ``op``, or the op ended (silent, or the connection gone)."""
        with trio.move_on_after(max(0.0, deadline - clock())):
            when, line = await self._arrivals.receive()
            if line is None:
                op.outcome, op.done = EOF, when
                raise _Gone
            return line
        op.outcome, op.done = SILENT, clock()
        raise _Gone

    def unasked(self) -> None:
        """Every line that came while the client asked nothing: only a final line may."""
        while True:
            try:
                when, line = self._arrivals.receive_nowait()
            except trio.WouldBlock:
                return
            op = self._op("(nothing asked)", when)
            op.done = when
            if line is None:
                op.outcome = EOF  # the server ended the connection with no final line
                raise _Gone
            op.lines.append(line)
            if line.startswith(FINALS):
                op.outcome = FINAL
                if line.startswith("WIN"):
                    self.history.told_wins.append(op)
                raise _Gone
            if not self.watching:
                op.outcome = UNASKED

    async def connect(self, address: str, port: int) -> bool:
        op = self._op("(connect)", clock())
        try:
            with trio.fail_after(CONNECT_TIMEOUT):
                self._stream = await trio.open_tcp_stream(address, port)
        except (OSError, trio.TooSlowError) as error:
            op.outcome, op.done = REFUSED, clock()
            op.lines.append(repr(error))
            return False
        op.outcome, op.done = OK, clock()
        return True

    async def ask(self, command: str) -> Op:
        """Send ``command`` and read its whole answer; raises :class:`_Gone` when the
        session cannot go on (no answer, a wrong or final one, the connection gone)."""
        self.unasked()
        assert self._stream is not None
        op = self._op(command, clock())
        # A send that fails is not an answer: the connection's end, read next, is.
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await self._stream.send_all(command.encode() + b"\n")
        deadline = op.sent + ANSWER_BOUND
        first = await self._next(op, deadline)
        op.lines.append(first)
        verb = command.split()[0]
        if first.startswith("ERROR"):
            op.outcome = ERROR
        elif first.startswith(FINALS):
            op.outcome = FINAL
            if first.startswith("WIN"):
                self.history.told_wins.append(op)
        elif not first.startswith(EXPECTED[verb]):
            op.outcome = MALFORMED
        else:
            op.outcome = OK
            more = _more(verb, first)
            for _ in range(more):
                op.lines.append(await self._next(op, deadline))
            self._took(verb, first)
        op.done = clock()
        op.name, op.game = self.name, self.game
        if op.outcome in (FINAL, MALFORMED):
            raise _Gone
        return op

    def _took(self, verb: str, first: str) -> None:
        """What an answer changed: the session's name, its game."""
        if verb in ("JOIN", "WATCH"):
            found = _GAME.match(first)
            if found:
                self.game = (found.group(1), int(found.group(2)))
            self.watching = verb == "WATCH"

    async def watch_for(self, seconds: float) -> None:
        """Read what a watcher is shown for ``seconds``: any line but a broken view."""
        end = clock() + seconds
        while clock() < end:
            op = self._op("(watching)", clock())
            with trio.move_on_after(max(0.0, end - clock())):
                when, line = await self._arrivals.receive()
                op.done = when
                if line is None:
                    op.outcome = EOF
                    raise _Gone
                op.lines.append(line)
                op.outcome = FINAL if line.startswith(FINALS) else OK
                if op.outcome == FINAL:
                    raise _Gone
                if line.startswith("VIEW "):
                    rows = int(line.split()[1])
                    for _ in range(rows):
                        op.lines.append(await self._next(op, clock() + ANSWER_BOUND))
                continue
            self.history.ops.remove(op)  # nothing came: no op

    async def close(self) -> None:
        if self._stream is not None:
            await self._stream.aclose()

    async def run(self, address: str, port: int, script: Script) -> None:
        if not await self.connect(address, port):
            return
        assert self._stream is not None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._read, self._stream)
            try:
                await script(self)
                self.unasked()
            except _Gone:
                pass
            finally:
                with trio.CancelScope(shield=True):
                    await self.close()
                nursery.cancel_scope.cancel()


Script = Callable[[Session], Awaitable[None]]


def _more(verb: str, first: str) -> int:
    """How many lines follow ``first``, the first line of ``verb``'s answer."""
    if verb == "LOOK":
        return 5
    if verb == "GAMES":
        return int(first.split()[1])
    return 0


class Client:
    """One simulated player: sessions one after another until :attr:`stop` is set."""

    def __init__(
        self,
        number: int,
        seed: int,
        addresses: dict[str, str],
        history: History,
        *,
        workers_share: float,
    ) -> None:
        self.number = number
        self.rng = random.Random(f"{seed}:{number}")
        self.addresses = addresses
        self.history = history
        self.workers_share = workers_share
        self.sessions = 0
        self.stop = trio.Event()

    async def run(self) -> None:
        rng = self.rng
        while not self.stop.is_set():
            self.sessions += 1
            node = WORKERS if rng.random() < self.workers_share else rng.choice(NODES)
            system = "workers" if node == WORKERS else "cluster"
            script = rng.choices(
                [self._wanderer, self._creator, self._joiner, self._watcher, self._lister],
                weights=[3, 4, 3, 1, 1],
            )[0]
            session = Session(self.number, self.sessions, system, node, self.history)
            await session.run(self.addresses[node], PORT, script)
            await trio.sleep(rng.uniform(0.0, 0.3))

    async def _think(self) -> None:
        await trio.sleep(self.rng.uniform(0.02, 0.25))

    async def _end(self, session: Session) -> None:
        """Leave with ``QUIT`` (its ``BYE``, then the connection's end), or by closing."""
        if self.rng.random() < 0.6:
            await session.ask("QUIT")

    async def _hello(self, session: Session) -> None:
        name = self.rng.choice(NAMES)
        await session.ask(f"HELLO {name}")
        # The name the server plays the client under from now on, even when the HELLO
        # was refused (the session names the client before its game answers): so its
        # commands are checked against the holders of this name.
        session.name = name
        await self._think()

    async def _wanderer(self, session: Session) -> None:
        rng = self.rng
        if rng.random() < 0.7:
            await self._hello(session)
        for _ in range(rng.randint(3, 10)):
            await session.ask(
                rng.choice(["LOOK", "PICKUP", *(f"MOVE {d}" for d in "NSEW"), "GAMES"])
            )
            await self._think()
        await self._end(session)

    async def _play(self, session: Session) -> None:
        """Play the tiny map to its exit: gold on the west square, the exit on the east."""
        for command in ("MOVE W", "MOVE W", "PICKUP", "MOVE E", "MOVE E", "LOOK", "MOVE E"):
            await session.ask(command)
            await self._think()

    async def _creator(self, session: Session) -> None:
        rng = self.rng
        await self._hello(session)
        game = rng.choice(GAMES)
        seed = rng.randrange(1, 1 << 30)
        await session.ask(f"CREATE {game} classic map=tiny seed={seed} players=1")
        await self._think()
        joined = await session.ask(f"JOIN {game}")
        if joined.outcome == OK:
            await self._play(session)
        await self._end(session)

    async def _joiner(self, session: Session) -> None:
        rng = self.rng
        listed = await session.ask("GAMES")
        names = [line.split()[1] for line in listed.lines[1:] if line.startswith("GAME ")]
        created = [name for name in names if name != "default"] or list(GAMES)
        if rng.random() < 0.5:
            await self._hello(session)
        joined = await session.ask(f"JOIN {rng.choice(created)}")
        if joined.outcome == OK:
            await self._play(session)
        await self._end(session)

    async def _watcher(self, session: Session) -> None:
        rng = self.rng
        game = rng.choice([*GAMES, "default"])
        watched = await session.ask(f"WATCH {game}")
        if watched.outcome == OK:
            await session.watch_for(rng.uniform(0.5, 3.0))
        # A watcher leaves by closing: its view may be on its way at any moment.

    async def _lister(self, session: Session) -> None:
        for _ in range(self.rng.randint(2, 4)):
            await session.ask("GAMES")
            await self._think()
        await self._end(session)


RACES: Final = (
    ("Zed0", "Zed0", "Zed0"),
    ("ada0", "Ada0", "\u0410da0"),
    ("Kim", "KIM", "Klm"),
    ("Lou", "L0u", "LOU"),
)
"""What racers say at once on the three nodes: one name, or names that look alike."""


class Racer:
    """Now and then, three sessions at the same instant, one on each node: ``HELLO`` of one
    name (or of lookalikes), or ``CREATE`` of one game, then a few commands each, so that
    two nodes acting for one name would show in the history."""

    def __init__(self, number: int, seed: int, addresses: dict[str, str], history: History) -> None:
        self.number = number
        self.rng = random.Random(f"{seed}:racer:{number}")
        self.addresses = addresses
        self.history = history
        self.races = 0
        self.stop = trio.Event()

    async def run(self) -> None:
        rng = self.rng
        while not self.stop.is_set():
            await trio.sleep(rng.uniform(1.0, 4.0))
            self.races += 1
            go = trio.Event()
            arrived = [0]
            if rng.random() < 0.6:
                names = rng.choice(RACES)
                scripts = [self._named(name, go, arrived) for name in names]
            else:
                game, seed = rng.choice(GAMES), rng.randrange(1, 1 << 30)
                scripts = [self._creating(game, seed + n, go, arrived) for n in range(3)]
            async with trio.open_nursery() as race:
                for index, (node, script) in enumerate(zip(NODES, scripts, strict=True)):
                    client = 1000 + self.number * 10 + index
                    session = Session(client, self.races, "cluster", node, self.history)
                    race.start_soon(session.run, self.addresses[node], PORT, script)
                with trio.move_on_after(CONNECT_TIMEOUT + 1):
                    while arrived[0] < len(scripts):
                        await trio.sleep(0.01)
                go.set()

    def _named(self, name: str, go: trio.Event, arrived: list[int]) -> Script:
        async def script(session: Session) -> None:
            arrived[0] += 1
            await go.wait()
            await session.ask(f"HELLO {name}")
            session.name = name  # (the name it plays under, answered GOLD or not)
            for _ in range(4):
                await trio.sleep(self.rng.uniform(0.05, 0.3))
                await session.ask("LOOK")
            await session.ask("QUIT")

        return script

    def _creating(self, game: str, seed: int, go: trio.Event, arrived: list[int]) -> Script:
        async def script(session: Session) -> None:
            arrived[0] += 1
            await go.wait()
            await session.ask(f"CREATE {game} classic map=tiny seed={seed} players=1")
            joined = await session.ask(f"JOIN {game}")
            if joined.outcome == OK:
                for command in ("LOOK", "MOVE W", "MOVE W", "PICKUP", "MOVE E", "MOVE E"):
                    await trio.sleep(self.rng.uniform(0.05, 0.2))
                    await session.ask(command)
            await session.ask("QUIT")

        return script
