"""The server's side of the records: the writer's life, ``LEADERBOARD``, claimed names.

A :class:`Ladder` belongs to a :class:`~server.app.Server`. With no database
(``db`` unset, as for servers built in code) it records nothing and answers the
ladder's commands with an error; otherwise:

* every game that ends hands its record to the lobby, which queues it for the
  :class:`~records.writer.RecordWriter` (:func:`server.lobby.recording.record_writer`;
  never blocking a game);
* ``LEADERBOARD [world]`` reads the ratings in a worker thread; the connection reads
  no further command until the answer is queued, so replies stay in order;
* ``REGISTER <name>`` claims a name: the answer ``REGISTERED <name> <token>`` shows the
  token once, the store keeps its argon2 hash; the connection is then logged in.
  ``LOGIN <name> <token>`` logs in. Hashing and checking run in worker threads.
* **Limits.** Each argon2 hash takes 64 MiB and a core for tens of milliseconds, so
  hashes have threads of their own (:mod:`server.lobby.login_limits`): at most
  ``hash_threads`` at once (the memory hashing may take is ``hash_threads`` × 64 MiB),
  and at most ``max_hash_queue`` commands waiting for one; past that a ``REGISTER`` or
  ``LOGIN`` is refused at once with an ``ERROR`` that says to retry. One address may
  send ``login_burst`` ``REGISTER``/``LOGIN`` at once and ``login_rate`` a second, and
  claim ``register_burst`` names at once and ``register_per_hour`` an hour; each
  refusal is an ``ERROR`` naming the setting. Nothing is hashed for a refused command.
* ``HELLO <name>`` of a claimed name is refused unless the connection logged in as it,
  and so are ``HELLO`` and ``REGISTER`` of a name that only looks like a claimed one
  (:func:`records.names.lookalike_keys`: case, confusable letters, compatibility
  forms), whoever sends it; the error names the claimed name it looks like.
  Claimed names are known from a copy refreshed every :data:`CLAIMS_REFRESH` seconds
  (and at once on this server's own ``REGISTER``), so a name claimed on another
  server of a shared ladder is protected here within that time.
* ``REGISTER`` of a name that already has games recorded is accepted only from a
  client playing under that exact name now (as NickServ registers only your current
  nick): a stranger cannot claim a history's name and lock its player out.

Tokens never reach a log: commands and replies that hold one hide it in ``repr``,
and nothing here logs a command line.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import ClassVar, Final, Protocol, TypeVar, cast

import structlog
import trio

from protocol.commands import Command, Hello, Leaderboard, Login, Register
from protocol.replies import (
    Best,
    BestsReply,
    Error,
    GameInfo,
    LeaderboardReply,
    LoggedIn,
    Registered,
    Standing,
)
from records import names as tokens
from records.writer import RecordWriter, StoreUnavailable
from worlds.api import PlayerId
from worlds.registry import world_names

from ..game.outbox import Outbox
from ..setup.config import ServerConfig
from . import store_calls
from .claimant import Claimant
from .login_limits import Allowances, HashBusy, HashGate

__all__ = [
    "CLAIMS_REFRESH",
    "LADDER_COMMANDS",
    "Ladder",
    "Place",
    "Seats",
]

LADDER_COMMANDS: Final = frozenset({Leaderboard, Register, Login})
CLAIMS_REFRESH: Final = 15.0
"""Seconds between two readings of the claimed names from the store."""
LEADERBOARD_LINES: Final = 50
"""Players a ``LEADERBOARD`` reply lists at most."""
BESTS_PER_MAP: Final = 10
"""Results per map a ``BESTS`` reply lists at most."""
BESTS_LINES: Final = 500
"""Lines a ``BESTS`` reply holds at most (maps past it are left out)."""
FAILED_LOGIN_DELAY: Final = 0.5
"""Seconds a wrong token waits before its answer, to slow down guessing."""
log = structlog.get_logger("server.ladder")


class Place(Protocol):
    """A game, as the ladder tells its players of one of theirs
    (:class:`~server.game.game.Game`)."""

    @property
    def name(self) -> str: ...

    @property
    def world_name(self) -> str: ...

    def name_of(self, player: PlayerId) -> str | None:
        """The name ``player`` goes by in the game, if any."""
        ...

    def info(self) -> GameInfo: ...

    def announce(self, text: str) -> None:
        """A ``NOTICE`` to everyone in the game who asked for events."""
        ...

    def claimed(self, player: PlayerId, name: str) -> None:
        """``player`` proved it owns ``name``, the name it plays under: so says its record."""
        ...


class Seats(Protocol):
    """The lobby, as the ladder keeps and gives back a logged-in player's place
    (:class:`~server.lobby.lobby.Lobby`)."""

    def seat(self, client: Outbox) -> tuple[Place, PlayerId] | None:
        """The game ``client`` plays in and its player there, if it plays."""
        ...

    def game_for(self, client: Outbox) -> Place:
        """The game ``client`` plays in or watches."""
        ...

    def leave(self, client: Outbox, why: str) -> None: ...

    def resume(self, old: Outbox, new: Outbox) -> Place | None:
        """``new`` plays ``old``'s player from now on; the game, or ``None`` if gone."""
        ...

    def worlds_played(self) -> set[str]:
        """The worlds of the games here."""
        ...


_C = TypeVar("_C", bound=Command)
_Job = Callable[["Ladder", "Claimant", Command], Awaitable[None]]


def _jobs(
    kind: type[_C], handler: Callable[[Ladder, Claimant, _C], Awaitable[None]]
) -> tuple[type[Command], _Job]:
    """One entry of :attr:`Ladder._COMMANDS`. It is looked up by the command's exact class,
    so ``handler`` only ever gets a ``kind``; the cast records that invariant."""
    return kind, cast(_Job, handler)


class Ladder:
    """Records, ratings and claimed names for one server; see the module docstring."""

    def __init__(self, config: ServerConfig, lobby: Seats, writer: RecordWriter | None) -> None:
        """``lobby``: where players are; ``writer``: the server's records
        (:func:`record_writer`; ``None``: none kept)."""
        self.lobby = lobby
        self.writer = writer
        self.claimed: tokens.LookalikeNames[bool] = tokens.LookalikeNames()
        """Every claimed name, as the store had them at the last reading (a value of
        ``True`` each); a lookup finds a name that only looks like one."""
        self.hashes = HashGate(config.hash_threads, config.max_hash_queue)
        self._attempts = Allowances(config.login_rate, config.login_burst)
        self._claims = Allowances(config.register_per_hour / 3600, config.register_burst)
        self.config = config
        self._nursery: trio.Nursery | None = None
        self._refresher = trio.CancelScope()
        self._timers: set[trio.CancelScope] = set()
        self.grace = config.reconnect_grace
        self.away: dict[str, Claimant] = {}
        """Logged-in players whose connection dropped, by name, kept in their game for
        ``grace`` seconds in case they ``LOGIN`` again."""

    def listening(self, host: str, port: int) -> None:
        """The server is bound: its records say ``host:port`` with the real port (a server
        asked for port 0 gets one from the system)."""
        if self.writer is not None:
            self.writer.server = f"{host}:{port}"

    def serving(self) -> None:
        """The server accepts clients: the store may be opened (and its libraries
        loaded, in the writer's thread) without delaying that."""
        if self.writer is not None:
            self.writer.may_open()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run the writer (and the claims' refresher) for the body; flush at its end."""
        writer = self.writer
        if writer is None:
            yield
            return
        async with trio.open_nursery() as nursery:
            await nursery.start(writer.run)
            nursery.start_soon(self._refresh_claims)
            self._nursery = nursery
            try:
                yield
            finally:
                # Leaving the nursery waits for the writer, which flushes and returns.
                self._nursery = None
                self._refresher.cancel()
                for timer in list(self._timers):
                    timer.cancel()
                writer.close()

    async def _refresh_claims(self) -> None:
        writer = self.writer
        assert writer is not None
        with self._refresher:
            await writer.ready()  # nothing is claimed in a store not reached yet
            while True:
                with contextlib.suppress(StoreUnavailable):
                    claimed = await writer.call(store_calls.claimed_names)
                    # Keys for thousands of names: worth a thread, not the loop's time.
                    self.claimed = await trio.to_thread.run_sync(_index, claimed)
                await trio.sleep(CLAIMS_REFRESH if writer.store is not None else 0.5)

    # -- names -----------------------------------------------------------------------

    def refusal(self, connection: Claimant, command: Hello) -> Error | None:
        """The error for a ``HELLO`` that would take a name claimed by someone else."""
        name = command.name
        if name is None or connection.login == name:
            return None
        holder = self.claimed.holder(name)
        if holder is None:
            return None
        if holder == name:
            return Error(
                f"the name {name!r} is claimed; LOGIN {name} <token> first, or choose another"
            )
        return Error(_looks_like(name, holder, "choose another"))

    # -- reconnecting ------------------------------------------------------------------

    def hold(self, connection: Claimant) -> bool:
        """Keep a logged-in player whose connection dropped in its game for ``grace``
        seconds; False (the player leaves as usual) for anyone else."""
        name = connection.login
        if self.grace is None or self._nursery is None or name is None:
            return False
        seat = self.lobby.seat(connection)
        if seat is None or seat[0].name_of(seat[1]) != name:
            return False
        if self.away.get(name) is not connection:
            self.away[name] = connection
            connection.who.log.info("player away", name=name, grace=self.grace)
            seat[0].announce(
                f"{name} lost the connection and may come back within {self.grace:g} seconds"
            )
            self._nursery.start_soon(self._expire, name, connection)
        return True

    async def _expire(self, name: str, connection: Claimant) -> None:
        with trio.CancelScope() as timer:
            self._timers.add(timer)  # cancelled when the server stops
            try:
                await trio.sleep(self.grace or 0)
            finally:
                self._timers.discard(timer)
        if not timer.cancelled_caught and self.away.get(name) is connection:
            del self.away[name]
            connection.who.log.info("player gone", name=name)
            self.lobby.leave(connection, "disconnected")

    def _resume(self, connection: Claimant, name: str) -> bool:
        """Give a fresh login the player its name left behind, if it is still there."""
        old = self.away.pop(name, None)
        if old is None:
            return False
        game = self.lobby.resume(old, connection)
        if game is None:
            return False
        connection.took_over(old)
        connection.who.log.info("player back", name=name, game=game.name)
        game.announce(f"{name} is back")
        connection.send(LoggedIn(name))
        connection.send(game.info())
        return True

    # -- commands ----------------------------------------------------------------------

    def handle(self, connection: Claimant, command: Command) -> None:
        """Answer a ladder command; the connection reads nothing more until it is answered."""
        if self.writer is None or self._nursery is None:
            connection.send(Error(f"{command.verb} needs a server that keeps records (--db)"))
            return
        refusal = self._attempt_refusal(connection, command)
        if refusal is not None:
            connection.send(refusal)
            return
        job = self._COMMANDS[type(command)](self, connection, command)
        done = trio.Event()
        connection.wait_for(done)
        self._nursery.start_soon(_answer, connection, job, done)

    def _attempt_refusal(self, connection: Claimant, command: Command) -> Error | None:
        """The error for a ``REGISTER`` or ``LOGIN`` past its address's rate."""
        if isinstance(command, Leaderboard) or self._attempts.take(connection.who.address):
            return None
        config = self.config
        return Error(
            f"too many REGISTER and LOGIN commands from your address: at most "
            f"{config.login_burst} at once and {config.login_rate:g} a second (login_rate); "
            "retry in a moment"
        )

    async def _leaderboard(self, connection: Claimant, command: Leaderboard) -> None:
        assert self.writer is not None
        world = command.world or self.lobby.game_for(connection).world_name
        known = await self._known_worlds()
        if world not in known:
            # Not an empty table: a name nothing here plays or has records of.
            connection.send(Error(f"unknown world {world!r}; worlds: {', '.join(sorted(known))}"))
            return
        if command.best:
            await self._bests(connection, world)
            return
        table = await self.writer.call(store_calls.leaderboard, world, LEADERBOARD_LINES)
        connection.send(
            LeaderboardReply(
                world,
                tuple(
                    Standing(
                        s.rank,
                        s.rating.ordinal,
                        s.rating.mu,
                        s.rating.sigma,
                        s.rating.games,
                        s.rating.wins,
                        s.name,
                    )
                    for s in table
                ),
            )
        )

    async def _known_worlds(self) -> set[str]:
        """Every world ``LEADERBOARD`` may name: installed, played here, or with records."""
        assert self.writer is not None
        here = {plugin.name for plugin in self.config.worlds}
        here |= self.lobby.worlds_played()
        installed = await trio.to_thread.run_sync(world_names)  # reads the entry points
        return here | set(installed) | set(await self.writer.call(store_calls.recorded_worlds))

    async def _bests(self, connection: Claimant, world: str) -> None:
        """``LEADERBOARD <world> best``: the world's best results per map (records.bests)."""
        assert self.writer is not None
        groups = await self.writer.call(store_calls.best_results, world, BESTS_PER_MAP)
        lines: list[Best] = []
        for group in groups:
            shown = group.map.replace(" ", "%20")
            for best in group.results:
                if len(lines) < BESTS_LINES:
                    lines.append(
                        Best(best.rank, best.moves, best.gold, best.health or 0, shown, best.name)
                    )
        connection.send(BestsReply(world, tuple(lines)))

    async def _register(self, connection: Claimant, command: Register) -> None:
        assert self.writer is not None
        name = command.name
        holder = self.claimed.holder(name)
        if holder is not None:
            connection.send(Error(_claimed_already(name, holder)))
            return
        self.hashes.check()  # a refusal spends none of the address's names
        # Spent before the store is asked whether the name has games, so that a flood of
        # REGISTERs of someone's name reaches the store only at register_per_hour's pace.
        if not self._claims.take(connection.who.address):
            config = self.config
            connection.send(
                Error(
                    f"your address has claimed names too fast: at most {config.register_burst} "
                    f"at once and {config.register_per_hour:g} an hour (register_per_hour); "
                    "retry later"
                )
            )
            return
        if connection.name != name and await self._has_games(name):
            # Its games are someone's: only who plays under the name may claim it.
            connection.send(
                Error(
                    f"the name {name!r} has games on the ladder: only a player playing as "
                    f"{name!r} now may REGISTER it (HELLO {name}, then REGISTER {name})"
                )
            )
            return
        token = tokens.new_token()
        try:
            token_hash = await self.hashes.run(tokens.hash_token, token)
        except HashBusy:
            self._claims.give_back(connection.who.address)  # busy: no name was claimed
            raise
        if not await self.writer.call(store_calls.claim, name, token_hash, write=True):
            # Claimed meanwhile, here or on another server of the ladder.
            holder = await self.writer.call(store_calls.lookalike, name) or name
            self.claimed[holder] = True
            connection.send(Error(_claimed_already(name, holder)))
            return
        self.claimed[name] = True
        connection.login = name
        self._owner_proven(connection, name)
        connection.who.log.info("name claimed", name=name)
        connection.send(Registered(name, token))

    async def _has_games(self, name: str) -> bool:
        """Whether the store holds a game played under exactly ``name``."""
        assert self.writer is not None
        history = await self.writer.call(store_calls.history, name, None, 1)
        return bool(history)

    async def _login(self, connection: Claimant, command: Login) -> None:
        assert self.writer is not None
        name = command.name
        token_hash = await self.writer.call(store_calls.token_hash, name)
        if token_hash is None:
            holder = self.claimed.holder(name)
            if holder is not None and holder != name:
                connection.send(Error(_looks_like(name, holder, f"LOGIN {holder} <token>")))
            else:
                connection.send(
                    Error(f"the name {name!r} is not claimed; REGISTER {name} claims it")
                )
            return
        if not await self.hashes.run(tokens.verify, token_hash, command.token):
            connection.who.log.info("login refused", name=name)
            await trio.sleep(FAILED_LOGIN_DELAY)
            connection.send(Error(f"wrong token for {name!r}"))
            return
        renewed = None
        if tokens.needs_rehash(token_hash):
            with contextlib.suppress(HashBusy):  # renewed at a later login instead
                renewed = await self.hashes.run(tokens.hash_token, command.token)
        await self.writer.call(store_calls.logged_in, name, renewed, write=True)
        self.claimed[name] = True
        if connection.closed:
            return  # gone while the token was checked: nobody to log in, or to resume
        connection.login = name
        self._owner_proven(connection, name)
        connection.who.log.info("logged in", name=name)
        if not self._resume(connection, name):
            connection.send(LoggedIn(name))

    def _owner_proven(self, connection: Claimant, name: str) -> None:
        """A player who proves it owns the name it is playing under, in the middle of a
        game, played that whole game as the owner: its record says the name was claimed."""
        seat = self.lobby.seat(connection)
        if seat is not None and seat[0].name_of(seat[1]) == name:
            seat[0].claimed(seat[1], name)

    _COMMANDS: ClassVar[dict[type[Command], _Job]] = dict(
        (
            _jobs(Leaderboard, _leaderboard),
            _jobs(Register, _register),
            _jobs(Login, _login),
        )
    )
    """The ladder's commands, by kind (:data:`LADDER_COMMANDS`)."""


def _index(names: set[str]) -> tokens.LookalikeNames[bool]:
    index: tokens.LookalikeNames[bool] = tokens.LookalikeNames()
    for name in names:
        index[name] = True
    return index


def _looks_like(name: str, holder: str, then: str) -> str:
    return f"the name {name!r} looks too much like {holder!r}, which is claimed; {then}"


def _claimed_already(name: str, holder: str) -> str:
    if holder == name:
        return f"the name {name!r} is claimed already"
    return _looks_like(name, holder, "choose another")


async def _answer(connection: Claimant, job: Awaitable[None], done: trio.Event) -> None:
    try:
        await job
    except StoreUnavailable as error:
        connection.send(Error(str(error)))
    except HashBusy:
        connection.send(
            Error(
                "the server is busy checking other logins (hash_threads, max_hash_queue); "
                "retry in a moment"
            )
        )
    except Exception:
        log.exception("ladder command failed", conn=connection.who.id)
        connection.send(Error("the records could not be read; try again later"))
    finally:
        done.set()
