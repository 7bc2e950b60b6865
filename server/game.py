"""A game: one world, the clients playing and watching it, and the commands they send.

Commands are handled synchronously, straight into the world: trio runs one task
at a time, so the client task that read a command can update the world and
queue every reply without handing the work to another task.

What a caller may rely on:

* **Immediate worlds** (``has_rounds`` false, such as classic) resolve every action
  at once, and each action is its own round.
* **Worlds with rounds** gather one action per player. The round is resolved, in
  join order (:mod:`server.rounds`), as soon as every player in the game has
  acted, or when ``turn_timeout`` seconds have passed since a second player began
  to wait; then every missing action is a stay. A player alone never waits. The
  reply to an action is sent when its round resolves, and the client reads
  no further command until then; ``LOOK`` and the other commands that change
  nothing are answered at once and never cost a turn. A player who misses
  ``max_missed_turns`` rounds in a row is removed (``BYE``), as if disconnected.
* **Leaving** removes the player from the world at once, like death (RULES §1),
  except a player whose action is waiting for its round: that action is played
  with the round, and the player leaves right after it. Every action and leave
  is in the replay.
* **Pushes** go only to clients that asked for them (``EXTEND``): joins and
  leaves, actions they could see (within their 5×5 view, or anything for a
  spectator), world notices, round results, chat. Spectators get the whole map
  (``VIEW``) after every change.
* **Turn-based worlds** (:class:`worlds.turns.TurnBasedWorld`, such as battle) resolve
  each action at once, but only the player whose turn it is may act. Another
  player's action is refused with ``ERROR`` when that client asked for events (it
  is told whose turn it is), and otherwise waits, unanswered, for that player's
  turn, so a 2013 client that knows nothing of turns still plays; such a client's
  ``LOOK`` waits for its turn too, so that it decides from the board as its turn
  begins (the same game plays the same way however fast the clients are). While two or more
  players are in the game, a turn not finished within ``turn_timeout`` seconds is
  ended by the world's ``time_out`` and counts as a missed turn whatever the player
  did in it; only a turn that ends in time (``ENDTURN``, points spent) clears the count
  (``max_missed_turns`` in a row remove the player). ``STARTTURN``, ``ENDTURN``,
  ``TURN`` and ``HITMOD`` are pushed to clients that asked for events.
* **The end.** When the last player of a game has left, the game is over: its
  replay is closed, spectators get ``GAMEOVER``, and (if the owner wants it)
  a fresh world with the same settings takes its place. A world that raises is
  logged, its players told, and it restarts the same way.
* **Restarts never stall the server.** A world that took more than
  :data:`~server.builds.QUICK` to build is rebuilt by the game's own task in a worker
  thread; meanwhile the game's commands and ``JOIN`` s wait (:meth:`Game.hold`) and are
  handled in order once it is ready. If the map no longer opens, the map that was
  loaded is kept (the default game) or the game is removed (a created one).
* **Spectators** get the latest whole map; one whose replies are backlogged is sent
  no stale ones, only the latest once it has caught up.
* **The replay** holds every action before its reply is written (:meth:`Game.flush`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from functools import partial
from pathlib import Path
from typing import ClassVar, Final, TypeGuard, TypeVar, cast

import structlog
import trio

from protocol.commands import (
    ApGet,
    Attack,
    Command,
    EndTurn,
    Hello,
    HpGet,
    Look,
    Map,
    Move,
    Pickup,
    Shout,
    Stay,
)
from protocol.replies import (
    ActionPoints,
    Bye,
    Done,
    Error,
    GameInfo,
    GameOver,
    Gold,
    HelpReply,
    HitPoints,
    LookReply,
    Lose,
    MapReply,
    Message,
    Notice,
    NotYourTurn,
    NotYourTurnToEnd,
    PlayerJoined,
    PlayerLeft,
    Push,
    RoundEnded,
    Seen,
    TurnOf,
    View,
    Win,
)
from records.model import GameRecord, Tally
from records.names import LookalikeNames, name_taken
from worlds.api import (
    Action,
    Event,
    Joined,
    Left,
    PlayerId,
    PlayerKind,
    ResultEvent,
    World,
    WorldError,
    WorldFull,
    WorldPlugin,
)
from worlds.turns import TurnBasedWorld, TurnEnded

from .board import Scene, scene_of
from .builds import QUICK, Opened, WorldBuilder, copy_world, measure, open_world
from .metrics import ROUND_SECONDS
from .outbox import Outbox
from .render import TELLINGS, help_reply, telling
from .replay import ReplayShelf, ReplayWriter, header_for
from .rounds import Round

log = structlog.get_logger("server.game")

FLUSH_INTERVAL = 1.0
"""Seconds between flushes of a replay that has unwritten lines (a backstop: every
batch of commands and every round flushes it; see :meth:`Game.flush`)."""
BEHIND_TICK = 0.05
"""Seconds between looks at spectators too far behind to be sent the latest map."""
_DONE = Done()


def label(name: str | None, player: PlayerId) -> str:
    """How a player is shown to others: their name, or ``#<number>``."""
    return name if name is not None else f"#{player}"


_C = TypeVar("_C", bound=Command)
_Play = Callable[["Game", Outbox, PlayerId, Command], None]
"""What a player's command does in its game."""


def _plays(
    kind: type[_C], handler: Callable[[Game, Outbox, PlayerId, _C], None]
) -> tuple[type[Command], _Play]:
    """One entry of :attr:`Game._COMMANDS`. It is looked up by the command's exact class,
    so ``handler`` only ever gets a ``kind``; the cast records that invariant."""
    return kind, cast(_Play, handler)


class Game:
    """One world and its players; see the module docstring."""

    def __init__(
        self,
        name: str,
        plugin: WorldPlugin,
        map_spec: str | None,
        seed: int,
        *,
        limit: int | None = None,
        turn_timeout: float = 30.0,
        max_missed_turns: int = 3,
        replay_dir: Path | None = None,
        replays: ReplayShelf | None = None,
        on_over: Callable[[Game], bool] = lambda game: True,
        on_finished: Callable[[GameRecord], None] | None = None,
        start_full: bool = False,
        opened: Opened | None = None,
        builder: WorldBuilder | None = None,
        owner: int | None = None,
        unjoined_timeout: float | None = None,
        on_gone: Callable[[Game, str], None] = lambda game, why: None,
        may_chat: Callable[[Outbox], bool] = lambda client: True,
        max_map_bytes: int = 1 << 20,
        may_begin: Callable[[], str | None] = lambda: None,
    ) -> None:
        self.name = name
        self.plugin = plugin
        self.map_spec = map_spec
        self.seed = seed
        self.limit = limit
        self.turn_timeout = turn_timeout
        self.max_missed_turns = max_missed_turns
        if replays is None and replay_dir is not None:
            replays = ReplayShelf(replay_dir)
        self.replays = replays
        self.owner = owner
        """The id of the client that created the game (``None``: the server's own)."""
        self.permanent = owner is None
        """Whether the game never goes away (the default game): a restart that fails
        falls back on the world's own map rather than removing it."""
        self.max_map_bytes = max_map_bytes
        self._on_over = on_over
        self._on_gone = on_gone
        self._may_chat = may_chat
        self._may_begin = may_begin
        """Why a fresh world may not take its first player now (the records' backlog)."""
        self._builder = builder
        self._unjoined_timeout = unjoined_timeout
        if opened is None:
            opened = open_world(plugin, map_spec, seed, max_map_bytes)
        self._opened = opened
        self.world: World = opened.world
        self.restarting = False
        """Whether a fresh world is being built: commands wait for it (see :meth:`hold`)."""
        self._ready = trio.Event()
        self._ready.set()
        self._held_steps: list[tuple[Outbox, Callable[[], None]]] = []
        self._unjoined_deadline = math.inf
        self._behind: set[Outbox] = set()  # spectators that missed a view
        self._on_finished = on_finished
        self.start_full = start_full and limit is not None
        """Hold every action (and ``LOOK``, ``MAP``) until ``limit`` players are in
        (``CREATE ... start=full``)."""
        self._early: dict[PlayerId, tuple[Outbox, Action | Look | Map, trio.Event]] = {}
        self._filled = False
        self._fill_deadline = math.inf  # when a start=full game begins without the absent
        self.tally = Tally(name, plugin.name, map_spec, seed)
        """What the game's record will say (``on_finished`` gets it when the game ends)."""
        self.players: dict[PlayerId, Outbox] = {}
        self._seats: dict[Outbox, PlayerId] = {}  # the inverse of players
        self.names: LookalikeNames[PlayerId] = LookalikeNames()  # lookalikes are one name
        self._names_of: dict[PlayerId, str] = {}  # the inverse of names
        self.watchers: set[Outbox] = set()
        self.audience: set[Outbox] = set()
        """Players and spectators who asked for events."""
        self.round = 0
        """Rounds resolved in this world (each action, in a world without rounds)."""
        self.closed = False
        self._next_player = 1
        self._joined_any = False
        self._round: Round | None = None
        self._departing: dict[PlayerId, str] = {}  # left with an action pending: label
        self._missed: dict[PlayerId, int] = {}
        self._replay: ReplayWriter | None = None
        self._last_view: tuple[str, ...] | None = None
        self._last_scene: Scene | None = None
        # Turn-based worlds: whose turn the clock is timing, when it runs out, and the
        # actions (and looks) of clients without events that wait for their player's turn.
        self._turn_holder: PlayerId | None = None
        self._turn_deadline = math.inf
        self._held: dict[PlayerId, tuple[Outbox, Action | Look, trio.Event]] = {}
        self._finished_names: dict[PlayerId, str] = {}  # of players who won or died here
        self._wakeup = trio.lowlevel.ParkingLot()
        self._scope = trio.CancelScope()
        self._log = log.bind(game=name, world=plugin.name)
        self._start_unjoined_clock()

    @property
    def world_name(self) -> str:
        return self.plugin.name

    def info(self) -> GameInfo:
        """This game as ``GAMES`` lists it."""
        return GameInfo(
            self.name,
            self.world_name,
            self.map_spec or "default",
            self.seed,
            len(self.players),
            self.limit,
            len(self.watchers),
            self.turn_timeout if self._timed() else None,
        )

    def _timed(self) -> bool:
        """Whether ``turn_timeout`` applies here: to rounds, or to a turn-based world's turns."""
        return self.world.has_rounds or plays_in_turns(self.world)

    def full(self) -> bool:
        return self.limit is not None and len(self.players) >= self.limit

    @property
    def joined_any(self) -> bool:
        """Whether anyone has joined this world since it was (re)built."""
        return self._joined_any

    def log_removed(self, reason: str) -> None:
        self._log.info("game removed", reason=reason)

    def failed(self, during: str) -> None:
        """The world raised where the lobby called it (a join): end this game, as
        :meth:`handle` does for a command."""
        self._crash(during)

    # -- the game's own task ----------------------------------------------------------

    async def run(self) -> None:
        """Time out rounds, restart the world, remove an unjoined game and flush the
        replay, until :meth:`close`. Owned by the lobby."""
        with self._scope:
            while True:
                if self.restarting:
                    await self._rebuild()
                    continue
                current = self._round
                deadline = current.deadline if current is not None else math.inf
                deadline = min(
                    deadline, self._turn_deadline, self._unjoined_deadline, self._fill_deadline
                )
                soon = FLUSH_INTERVAL if not self._behind else BEHIND_TICK
                with trio.move_on_at(min(deadline, trio.current_time() + soon)):
                    await self._wakeup.park()
                if self.restarting:
                    continue
                now = trio.current_time()
                current = self._round
                if current is not None and now >= current.deadline:
                    self._guarded(self._time_out, "round time-out")
                if now >= self._turn_deadline:
                    self._guarded(self._turn_time_out, "turn time-out")
                if now >= self._fill_deadline:
                    self._guarded(self._begin, "start")
                self.flush()
                if self._behind:
                    self._catch_up()
                if now >= self._unjoined_deadline and not self._joined_any and not self.closed:
                    self._unjoined_deadline = math.inf
                    why = f"nobody joined within {self._unjoined_timeout:g} seconds"
                    self.log_removed(why)
                    self._on_gone(self, why)

    def flush(self) -> None:
        """Hand the replay's unwritten lines to the operating system. Outboxs call
        it after each batch of commands, before their replies are written, so that an
        action a client has been told about is never lost with the process."""
        replay = self._replay
        if replay is not None:
            replay.flush()

    def close(self, reason: str) -> None:
        """Stop the game's task and close its replay (the server is stopping)."""
        self.closed = True
        self._scope.cancel()
        self._close_replay(reason)
        self._ready.set()  # nothing waits for a world that will not come

    def _start_unjoined_clock(self) -> None:
        timeout = self._unjoined_timeout
        if timeout is not None:
            self._unjoined_deadline = trio.current_time() + timeout
            self._wakeup.unpark_all()

    # -- waiting for a fresh world ------------------------------------------------------

    def hold(self, client: Outbox, step: Callable[[], None]) -> bool:
        """While the world restarts, keep ``step`` (a command of ``client``'s) for
        when it is ready, and make the client read nothing more until then.
        Returns whether it was held (``False``: the world is ready, do it now)."""
        if not self.restarting:
            return False
        self._held_steps.append((client, step))
        client.wait_for(self._ready)
        return True

    # -- membership -------------------------------------------------------------------

    def player_of(self, client: Outbox) -> PlayerId | None:
        """``client``'s player in this game's world, if it plays here."""
        return self._seats.get(client)

    def name_of(self, player: PlayerId) -> str | None:
        """The name ``player`` goes by in this game, if any."""
        return self._names_of.get(player)

    def join(self, client: Outbox, kind: PlayerKind = PlayerKind.HUMAN) -> PlayerId:
        """Put ``client`` in the world, under its name unless a player here has it;
        raises :class:`WorldFull`, :class:`WorldError` when ``may_begin`` refuses a
        fresh world its first player, or what the world raises (the world is then as it
        was: nobody joined). Never called while the world restarts (:meth:`hold`)."""
        if self.restarting:
            raise RuntimeError("a player may not join a world that is being replaced")
        if self.full():
            raise WorldFull(f"the game {self.name} is full ({self.limit} players)")
        if not self._joined_any and (refusal := self._may_begin()) is not None:
            raise WorldError(refusal)
        name = client.name
        if name is not None and name in self.names:
            name = None  # taken here; the player may choose another with HELLO
        player = self._next_player
        events = self.world.join(player, kind)
        if self._replay is None and self.replays is not None and not self._joined_any:
            opened = self._opened
            self._replay = ReplayWriter(
                self.replays,
                header_for(
                    self.name,
                    self.plugin,
                    self.map_spec,
                    self.seed,
                    opened.view,
                    self.turn_timeout if self._timed() else None,
                    view_digest=opened.view_digest,
                    max_bytes=self.max_map_bytes,
                ),
            )
        self._next_player += 1
        self._joined_any = True
        self._unjoined_deadline = math.inf
        self.players[player] = client
        self._seats[client] = player
        if name is not None:
            self.names[name] = player
            self._names_of[player] = name
        self.tally.joined(
            player,
            name,
            "bot" if kind is PlayerKind.BOT else "person",
            claimed=name is not None and client.login == name,
            dialect=client.dialect,
        )
        # Through the client's own logger: rate-limited with its other events (issue 20).
        client.log.info("player joined", game=self.name, player=player, world=self.world_name)
        replay = self._replay
        if replay is not None:
            replay.join(self.round, player, kind)
            if name is not None:
                replay.name(self.round, player, name)
            replay.flush()
        if self.audience:
            self._push(PlayerJoined(label(name, player)), but=client)
        if client.events:
            self.audience.add(client)
        # Whatever the world says on a join besides Joined itself (a greeting, a death
        # on arrival) reaches the players like the events of any action.
        self._dispatch([e for e in events if not isinstance(e, Joined)], ())
        holder = self.world.turn if plays_in_turns(self.world) else None
        if holder is not None and holder != player and client.events:
            client.push(TurnOf(self._label(holder)))  # whose turn it is, on arrival
        self._turn_moved()
        self._show()
        if self.start_full and not self._filled and self.full():
            self._begin()
        return player

    def announce(self, text: str) -> None:
        """A ``NOTICE`` to everyone in the game who asked for events."""
        self._notify(None, text)

    def resume(self, old: Outbox, new: Outbox) -> bool:
        """``new`` plays ``old``'s player from now on: a logged-in player whose client
        dropped came back (:mod:`server.ladder`). False if that player is no longer here."""
        player = self._seats.get(old)
        if self.closed or player is None or self.players.get(player) is not old:
            return False
        del self._seats[old]
        self.players[player] = new
        self._seats[new] = player
        self.audience.discard(old)
        if new.events:
            self.audience.add(new)
        held = self._held.pop(player, None)
        if held is not None and not isinstance(held[1], Look):  # the old client's action counts
            self._held[player] = (new, held[1], held[2])
        elif held is not None:  # a look nobody waits for any more
            held[2].set()
        early = self._early.pop(player, None)
        if early is not None and not isinstance(early[1], Look | Map):
            self._early[player] = (new, early[1], early[2])
        elif early is not None:
            early[2].set()
        self._log.info("player resumed", conn=new.id, player=player)
        return True

    def _begin(self) -> None:
        """A ``start=full`` game is full: play the actions that waited, in join order."""
        self._filled = True
        self._fill_deadline = math.inf
        early, self._early = self._early, {}
        for player in sorted(early):
            client, command, done = early[player]
            done.set()
            if self.players.get(player) is not client:
                continue
            if isinstance(command, Look | Map):
                self.handle(client, command)
            else:
                self._act(client, player, command)

    def leave(self, client: Outbox, why: str = "disconnected") -> None:
        """Take ``client``'s player out of the game (like death, RULES §1)."""
        self.audience.discard(client)
        player = self._seats.pop(client, None)
        if player is None or self.players.get(player) is not client:
            return
        del self.players[player]
        name = self._names_of.pop(player, None)
        if name is not None:
            self.names.pop(name, None)
        who = label(name, player)
        held = self._held.pop(player, None) or self._early.pop(player, None)
        if held is not None:
            held[2].set()
        current = self._round
        if current is not None and player in current.actions:
            # The action was made: it is played with its round, then the player leaves.
            self._departing[player] = who
            self._guarded(self._resolve_if_complete, "leave")
            return
        self._remove(player, who, why)
        self._guarded(self._resolve_if_complete, "leave")
        self._end_if_over()

    def _remove(self, player: PlayerId, who: str, why: str) -> None:
        self._missed.pop(player, None)
        self._tally_leave(player, why)
        if self._replay is not None:
            self._replay.leave(self.round, player, why)
            self._replay.flush()
        try:
            events = self.world.leave(player)
        except Exception:
            self._crash("leave")
            return
        if self.audience:
            self._push(PlayerLeft(who, why))
        # What the world says besides Left (in a turn-based world, the next turn).
        self._dispatch([e for e in events if not isinstance(e, Left)], ())
        self._turn_moved()
        self._show()

    def too_big(self) -> str | None:
        """Why the whole map may not be sent (``MAP``, ``VIEW``), or ``None`` if it may."""
        size = self._opened.map_bytes
        if size <= self.max_map_bytes:
            return None
        return (
            f"the map of {self.name} is {size} bytes; this server sends whole maps of at "
            f"most {self.max_map_bytes} bytes (max_map_bytes); use LOOK"
        )

    def watch(self, client: Outbox) -> None:
        """Add a spectator: it is answered with this game's line, then the whole map,
        which is sent again after every change (the latest only, to one that lags)."""
        self.watchers.add(client)
        if client.events:
            self.audience.add(client)
        client.send(self.info())
        client.send(View(self.world.render(None)))
        if client.board:
            for line in self._scene().pushes(max_bytes=self.max_map_bytes):
                client.push(line)

    def unwatch(self, client: Outbox) -> None:
        self.watchers.discard(client)
        self.audience.discard(client)
        self._behind.discard(client)

    def listen(self, client: Outbox) -> None:
        """``client`` (a player or spectator here) now wants events."""
        if client in self._seats or client in self.watchers:
            self.audience.add(client)

    # -- commands ---------------------------------------------------------------------

    def help(self) -> HelpReply:
        return help_reply(self.world, self.world_name, in_turns=plays_in_turns(self.world))

    def handle(self, client: Outbox, command: Command) -> None:
        """Apply one game command from ``client`` and queue every reply it causes
        (once the world is ready, if it is being rebuilt). A client that does not
        play here yet joins first (``HELLO <name>``: under that name, if it is free)."""
        if self.restarting and self.hold(client, partial(self.handle, client, command)):
            return
        try:
            player = self._seats.get(client)
            if player is None:
                player = self._arrive(client, command)
                if player is None:
                    return
            self._COMMANDS.get(type(command), Game._not_a_game_command)(
                self, client, player, command
            )
        except WorldError as error:
            client.send(Error(str(error)))
        except Exception:
            self._crash(command.verb)
            if not client.closed:  # not a player (yet): still owed a reply
                client.send(
                    Error(f"the {self.world_name} game stopped because of an internal error")
                )

    def _arrive(self, client: Outbox, command: Command) -> PlayerId | None:
        """Join ``client``, which sent ``command`` before it played here."""
        if isinstance(command, Hello) and command.name is not None and command.name in self.names:
            # Named before joining, so that others see the name from the start.
            client.send(Error(name_taken(command.name, self.names, "this game")))
            return None
        return self.join(client, PlayerKind.BOT if client.bot else PlayerKind.HUMAN)

    def _look(self, client: Outbox, player: PlayerId, command: Look) -> None:
        if self._waits_for_start(client, player, command):
            return
        if not self._look_waits_for_turn(client, player, command):
            client.send(self._look_reply(player))

    def _move(self, client: Outbox, player: PlayerId, command: Move) -> None:
        world = self.world
        direction = command.direction
        if direction not in world.directions:
            allowed = ", ".join(sorted(d.name for d in world.directions))
            client.send(Error(f"MOVE {direction.name} is not allowed here; directions: {allowed}"))
            return
        self._act(client, player, command)

    def _stay(self, client: Outbox, player: PlayerId, command: Stay) -> None:
        if not self.world.allows_stay:
            client.send(Error(f"STAY is not available in the {self.world_name} world"))
            return
        self._act(client, player, command)

    def _hello(self, client: Outbox, player: PlayerId, command: Hello) -> None:
        name = command.name
        if (
            name is not None
            and name != self._names_of.get(player)
            and not self._rename(client, player, name)
        ):
            return
        world = self.world
        status = world.status(player)
        held = status.gold if status is not None else 0
        client.send(Gold(world.goal, name=self._names_of.get(player), held=held))

    def _map(self, client: Outbox, player: PlayerId, command: Map) -> None:
        if self._waits_for_start(client, player, command):
            return
        refusal = self.too_big()
        client.send(Error(refusal) if refusal is not None else MapReply(self.world.render(player)))

    def _shout(self, client: Outbox, player: PlayerId, command: Shout) -> None:
        if not self._may_chat(client):
            return
        self.shout(label(self._names_of.get(player), player), command.text)
        client.send(_DONE)

    def _turn_command(
        self, client: Outbox, player: PlayerId, command: Attack | EndTurn | ApGet | HpGet
    ) -> None:
        """``ATTACK``, ``ENDTURN``, ``APGET`` and ``HPGET``: commands of turn-based worlds."""
        world = self.world
        if not plays_in_turns(world):
            client.send(Error(f"{command.verb} is not available in the {self.world_name} world"))
        elif isinstance(command, ApGet):
            client.send(ActionPoints(world.action_points(player)))
        elif isinstance(command, HpGet):
            client.send(HitPoints(world.hit_points(player)))
        elif isinstance(command, Attack) and command.direction not in world.directions:
            allowed = ", ".join(sorted(d.name for d in world.directions))
            client.send(Error(f"ATTACK goes {allowed} here"))
        else:
            self._act(client, player, command)

    def _not_a_game_command(self, client: Outbox, player: PlayerId, command: Command) -> None:
        client.send(Error(f"{command.verb} is not a game command"))

    _COMMANDS: ClassVar[dict[type[Command], _Play]] = dict(
        (
            _plays(Look, _look),
            _plays(Move, _move),
            _plays(
                Pickup, lambda game, client, player, command: game._act(client, player, command)
            ),
            _plays(Stay, _stay),
            _plays(Hello, _hello),
            _plays(Map, _map),
            _plays(Shout, _shout),
            _plays(Attack, _turn_command),
            _plays(EndTurn, _turn_command),
            _plays(ApGet, _turn_command),
            _plays(HpGet, _turn_command),
        )
    )
    """What a player's command does, by its kind."""

    def handle_watcher(self, client: Outbox, command: Command) -> None:
        """A spectator's command: it may read, never act."""
        if self.restarting and self.hold(client, partial(self.handle_watcher, client, command)):
            return
        if isinstance(command, Map):
            refusal = self.too_big()
            client.send(
                Error(refusal) if refusal is not None else MapReply(self.world.render(None))
            )
        elif isinstance(command, Hello) and command.name is None:
            client.send(Gold(self.world.goal))
        else:
            client.send(
                Error(
                    f"you are watching {self.name}; spectators cannot {command.verb} "
                    f"(send JOIN {self.name} to play)"
                )
            )

    def _rename(self, client: Outbox, player: PlayerId, name: str) -> bool:
        holder = self.names.get(name)
        if holder is not None and holder != player:
            client.send(Error(name_taken(name, self.names, "this game")))
            return False
        old = self._names_of.get(player)
        if old is not None:
            self.names.pop(old, None)
        self.names[name] = player
        self._names_of[player] = name
        self.tally.named(player, name, claimed=client.login == name)
        if self._replay is not None:
            self._replay.name(self.round, player, name)
        if self.audience:
            self._push(Notice(f"{label(old, player)} is now called {name}"), but=client)
        if self.watchers:
            self._show()  # the board names the player anew
        return True

    def shout(self, sender: str, text: str) -> None:
        """Chat: to every player and spectator in the game who asked for it."""
        message = Message(sender, text)
        for client in (*self.players.values(), *self.watchers):
            if client.chat:
                client.push(message)

    # -- actions ----------------------------------------------------------------------

    def _waits_for_start(
        self, client: Outbox, player: PlayerId, command: Action | Look | Map
    ) -> bool:
        """Whether ``command`` must wait because a ``start=full`` game has not begun. It
        waits, like a round's action, until the game is full or for a turn's time at most
        (a player who never comes holds nobody up). ``LOOK`` and ``MAP`` wait too, so that
        what a player decides from never depends on how many others had joined by then."""
        if not self.start_full or self._filled:
            return False
        if not self._early:
            self._fill_deadline = trio.current_time() + self.turn_timeout
            self._wakeup.unpark_all()
        done = trio.Event()
        self._early[player] = (client, command, done)
        client.wait_for(done)
        return True

    def _act(self, client: Outbox, player: PlayerId, action: Action) -> None:
        if self._waits_for_start(client, player, action):
            return
        world = self.world
        if plays_in_turns(world):
            self._act_in_turn(client, player, action, world)
            return
        self.tally.acted(player)
        if not world.has_rounds:
            self.round += 1
            replay = self._replay
            if replay is not None:
                replay.action(self.round, player, action)
            actions = ((player, action),)
            self._dispatch(world.resolve(actions), actions)
            if self.watchers:
                self._show()
            if not self.players:
                self._end_if_over()
            return
        current = self._round
        if current is None:
            current = self._round = Round(self.round + 1)
        current.actions[player] = action
        if current.complete(self.players):
            self._resolve_round(current, ())
            return
        client.wait_for(current.done)
        if current.deadline == math.inf:
            current.deadline = trio.current_time() + self.turn_timeout
            self._wakeup.unpark_all()

    # -- turns ------------------------------------------------------------------------

    def _act_in_turn(
        self, client: Outbox, player: PlayerId, action: Action, world: TurnBasedWorld
    ) -> None:
        holder = world.turn
        if holder != player:
            if holder is None:
                client.send(Error("nobody can play now: the game is over"))
            elif client.events:
                client.send(
                    (NotYourTurnToEnd if isinstance(action, EndTurn) else NotYourTurn)(
                        f"it is not your turn: {self._label(holder)} is playing; wait for STARTTURN"
                    )
                )
            else:
                # A client that knows nothing of turns: its action waits for its turn.
                done = trio.Event()
                self._held[player] = (client, action, done)
                client.wait_for(done)
            return
        self._play_turn(player, action)
        self._turn_moved()
        self._end_if_over()

    def _look_reply(self, player: PlayerId) -> LookReply:
        drawn = self.world.look_bytes(player)  # issue 19: no strings for the commonest reply
        return LookReply(self.world.look(player)) if drawn is None else LookReply.drawn(drawn)

    def _look_waits_for_turn(self, client: Outbox, player: PlayerId, look: Look) -> bool:
        """In a turn-based world, a client that knows nothing of turns sees the board as its
        turn begins: its ``LOOK`` during another's turn waits, like its actions, so that
        what it decides from never depends on how far the other's turn had got."""
        world = self.world
        if client.events or not plays_in_turns(world):
            return False
        holder = world.turn
        if holder is None or holder == player or len(self.players) < 2:
            return False
        done = trio.Event()
        self._held[player] = (client, look, done)
        client.wait_for(done)
        return True

    def _play_turn(self, player: PlayerId, action: Action) -> None:
        # Counted when played, not when sent: an action still waiting for its turn when
        # the game ends was never made (records: the same game, the same moves).
        self.tally.acted(player)
        self.round += 1
        if self._replay is not None:
            self._replay.action(self.round, player, action)
        actions = ((player, action),)
        self._dispatch(self.world.resolve(actions), actions)
        self._show()

    def _turn_moved(self) -> None:
        """After anything that may pass the turn: play the new holder's waiting action,
        and time the turn (only while someone else is waiting for it)."""
        world = self.world
        if not plays_in_turns(world):
            return
        holder = world.turn
        while holder is not None and holder in self._held:
            client, action, done = self._held.pop(holder)
            done.set()
            if isinstance(action, Look):
                client.send(self._look_reply(holder))
            else:
                self._play_turn(holder, action)
            holder = world.turn
        deadline = self._turn_deadline
        if holder is None or len(self.players) < 2:
            deadline = math.inf
        elif holder != self._turn_holder or deadline == math.inf:
            deadline = trio.current_time() + self.turn_timeout
        self._turn_holder = holder
        if deadline != self._turn_deadline:
            self._turn_deadline = deadline
            self._wakeup.unpark_all()

    def _turn_time_out(self) -> None:
        world = self.world
        self._turn_deadline = math.inf
        if not plays_in_turns(world) or world.turn is None:
            return
        player = world.turn
        if self._replay is not None:
            self._replay.timeout(self.round, player)
        self._turn_holder = None  # the next turn gets a full clock, even if it is theirs again
        self._dispatch(world.time_out(player), ())
        self._miss(player)
        self._turn_moved()
        self._end_if_over()

    def _label(self, player: PlayerId) -> str:
        name = self._names_of.get(player)
        if name is None:
            name = self._finished_names.get(player)
        return label(name, player)

    def _resolve_if_complete(self) -> None:
        current = self._round
        if current is not None and current.complete(self.players):
            self._resolve_round(current, ())

    def _time_out(self) -> None:
        current = self._round
        if current is not None:
            self._resolve_round(current, current.missing(self.players))

    def _resolve_round(self, current: Round, missed: Sequence[PlayerId]) -> None:
        """Play one round: the actions in join order, then the world by itself."""
        self._round = None
        ROUND_SECONDS.observe(trio.current_time() - current.opened)
        try:
            self.round = current.number
            stays = missed if self.world.allows_stay else ()
            actions = current.in_order(stays)
            if self._replay is not None:
                self._replay.actions(current.number, actions, missed)
            try:
                events = self.world.resolve(actions)
            except WorldError:
                # Actions are checked before they join a round, so this is the world's bug.
                self._crash("round")
                return
            for player in current.actions:
                self._missed.pop(player, None)
            self._dispatch(events, actions, missed)
            if self.audience:
                self._push(RoundEnded(current.number, len(actions) - len(stays), len(missed)))
            departing, self._departing = self._departing, {}
            for player, who in departing.items():
                self._remove(player, who, "disconnected")
            for player in missed:
                self._miss(player)
            if self._replay is not None:
                self._replay.flush()
            self._show()
        finally:
            current.done.set()
        self._end_if_over()

    def _miss(self, player: PlayerId) -> None:
        count = self._missed[player] = self._missed.get(player, 0) + 1
        client = self.players.get(player)
        if client is not None and count >= self.max_missed_turns:
            client.finish(
                Bye(f"removed from the game after missing {count} turns in a row"),
                reason="missed turns",
            )
            self.leave(client, "removed")

    def _dispatch(
        self,
        events: list[Event],
        actions: Sequence[tuple[PlayerId, Action]],
        unasked: Collection[PlayerId] = (),
    ) -> None:
        """Send each event to whom it concerns, in order; ``unasked`` players (whose
        action was a stay for lack of one) get no reply, for they sent no command."""
        players = self.players
        audience = self.audience
        tellings = TELLINGS
        index = 0
        for event in events:
            # What it becomes, and who hears it (server.render); a world's own subclass
            # of a declared event is found by telling().
            told = tellings.get(type(event)) or telling(event)
            if isinstance(event, ResultEvent):  # the result of an action
                reply = told.answer(event)
                target = players.get(event.player)
                if target is not None and event.player not in unasked:
                    target.send(reply)
                if audience:
                    self._witness(event, actions[index][1], reply.lines()[0])
                index += 1
                continue
            player = event.player
            if isinstance(event, TurnEnded) and not event.missed and player is not None:
                # Only a turn that ends before its time counts as played: an action that
                # leaves the turn open (a PICKUP of nothing) must not reset the count, or
                # a player could hold every turn to its limit for ever (issue 28).
                self._missed.pop(player, None)
            if told.to_player is not None:
                line = told.to_player(event, self._label)
                if player is None:
                    self._push(line)
                else:
                    client = players.get(player)
                    if client is not None and client in audience:
                        client.push(line)
            if told.to_others is not None and audience:
                actor = players.get(player) if player is not None else None
                self._push(told.to_others(event, self._label), but=actor)
            if told.ends is not None and player is not None:
                ending = told.ends(event, self._label)
                self._finish(player, ending.final, ending.outcome, **ending.details())

    def _witness(self, event: ResultEvent, action: Action, result: str) -> None:
        """``SAW`` for everyone in the audience who could see the actor (the world decides)."""
        actor = event.player
        actor_client = self.players.get(actor)
        if actor_client is not None:
            who = label(self._names_of.get(actor), actor)
        else:
            who = self._departing.get(actor, f"#{actor}")
        seen = Seen(who, action.to_line(), result)
        world = self.world
        seats = self._seats
        for client in list(self.audience):
            if client is actor_client:
                continue
            player = seats.get(client)
            if player is None or world.witnesses(player, event):  # a spectator sees all
                client.push(seen)

    def _notify(self, player: PlayerId | None, text: str) -> None:
        reply = Notice(text)
        if player is None:
            self._push(reply)
            return
        client = self.players.get(player)
        if client is not None and client in self.audience:
            client.push(reply)

    def _push(self, line: Push, *, but: Outbox | None = None) -> None:
        for client in list(self.audience):
            if client is not but:
                client.push(line)

    def _finish(self, player: PlayerId, final: Win | Lose, outcome: str, **context: int) -> None:
        client = self.players.pop(player, None)
        self._missed.pop(player, None)
        if client is None:
            return
        self._seats.pop(client, None)
        name = self._names_of.pop(player, None)
        if name is not None:
            self.names.pop(name, None)
            self._finished_names[player] = name
        self.audience.discard(client)
        self.tally.left(
            player,
            "win" if outcome in ("escaped", "won") else "lose",
            context.get("gold", 0),
            context.get("moves"),
        )
        client.log.info(
            f"player {outcome}", game=self.name, player=player, world=self.world_name, **context
        )
        client.finish(final, reason=f"player {outcome}")
        if self.audience:
            self._push(PlayerLeft(label(name, player), outcome))

    def _show(self) -> None:
        """Send spectators the whole map, if it changed since they last saw it.

        A spectator whose replies are backlogged (it reads slower than the game
        changes) is skipped: it gets the latest map once it has caught up, and never
        a queue of stale ones, so a burst of moves does not cut it off."""
        if not self.watchers:
            return
        rows = self.world.render(None)
        # Who is where costs a line per player: told only if a spectator asked for it.
        scene = self._scene() if any(client.board for client in self.watchers) else None
        if rows == self._last_view and scene == self._last_scene:
            return
        lines: list[Push] = [] if rows == self._last_view else [View(rows)]
        if scene is not None:
            lines += scene.pushes(since=self._last_scene, max_bytes=self.max_map_bytes)
        self._last_view, self._last_scene = rows, scene
        for client in list(self.watchers):
            if client.backlogged:
                if not self._behind:
                    self._wakeup.unpark_all()  # the game's task looks again soon
                self._behind.add(client)
            else:
                self._behind.discard(client)
                for line in lines:
                    client.push(line)

    def _scene(self) -> Scene:
        """The board a spectator with the ``board`` capability is shown (server.board)."""
        names = {player: label(self._names_of.get(player), player) for player in self.players}
        return scene_of(self.world, names)

    def _catch_up(self) -> None:
        """Send the latest map to each spectator that missed one and has caught up."""
        rows = self._last_view
        if rows is None:
            self._behind.clear()
            return
        for client in list(self._behind):
            if client not in self.watchers:
                self._behind.discard(client)
            elif not client.backlogged:
                self._behind.discard(client)
                client.push(View(rows))
                scene = self._last_scene
                for line in scene.pushes(max_bytes=self.max_map_bytes) if scene else ():
                    client.push(line)

    # -- ending and restarting -----------------------------------------------------------

    def _end_if_over(self) -> None:
        if self.players or self._departing or self._round is not None or not self._joined_any:
            return
        if self.closed:
            return
        self._close_replay("all players left")
        self._log.info("game over", rounds=self.round)
        for client in list(self.watchers):
            client.push(GameOver(f"{self.name} is over after {self.round} rounds"))
        if self._on_over(self):
            self._restart()
        else:
            self.close("all players left")

    def _restart(self) -> None:
        """A fresh world: built at once if it builds quickly, else by the game's task
        off the loop, while commands wait for it (:meth:`hold`)."""
        if self._builder is None or self._opened.seconds < QUICK:
            for kept, attempt in self._rebuilds():
                try:
                    opened = attempt()
                except Exception as error:
                    self._restart_failed(error)
                    continue
                self._install(opened, kept)
                return
            self._give_up()
            return
        if not self.restarting:
            self.restarting = True
            self._ready = trio.Event()
            self._wakeup.unpark_all()

    async def _rebuild(self) -> None:
        """The game's task builds the fresh world off the loop (see :meth:`_rebuilds`)."""
        builder = self._builder
        assert builder is not None
        for kept, attempt in self._rebuilds():
            try:
                opened = await builder.run(attempt, f"the {self.world_name} world")
            except Exception as error:
                self._restart_failed(error)
                continue
            self._install(opened, kept)
            self._release_held()
            return
        self._give_up()

    def _rebuilds(self) -> list[tuple[str | None, Callable[[], Opened]]]:
        """What a restart tries, in order: the map as it reads now; if it no longer opens
        (edited with a typo, removed), the map that was loaded; a permanent game without
        a copy of it falls back on the world's own map, then on the world it has."""
        plugin, seed, size = self.plugin, self.seed, self.max_map_bytes
        keep = self._opened.template is not None
        attempts: list[tuple[str | None, Callable[[], Opened]]] = [
            (None, partial(open_world, plugin, self.map_spec, seed, size, keep))
        ]
        if keep:
            attempts.append(("the loaded map", partial(copy_world, self._opened, size)))
        elif self.permanent:
            attempts.append(("the world's own map", partial(open_world, plugin, None, seed, size)))
        if self.permanent:
            attempts.append(("the world as it was", partial(measure, self.world, size)))
        return attempts

    def _restart_failed(self, error: Exception) -> None:
        self._log.error("game restart failed", error=str(error) or repr(error))

    def _give_up(self) -> None:
        """No fresh world: the game goes away; what waited for it is told so."""
        self.restarting = False
        held, self._held_steps = self._held_steps, []
        for client, _ in held:
            if not client.closed:
                client.send(
                    Error(f"the game {self.name} could not restart; send GAMES for the others")
                )
        self._on_gone(self, "it could not restart")
        self.close("the world could not be restarted")

    def _install(self, opened: Opened, kept: str | None = None) -> None:
        if kept is not None:
            self._log.warning("game restarted on a fallback", kept=kept)
        self._opened = opened
        self.world = opened.world
        self.restarting = False
        self.round = 0
        self._joined_any = False
        self._missed.clear()
        self._turn_holder = None
        self._turn_deadline = math.inf
        self._finished_names.clear()
        for _, _, done in self._held.values():  # their players are gone with the old world
            done.set()
        self._held.clear()
        for _, _, done in self._early.values():
            done.set()
        self._early.clear()
        self._filled = False
        self._fill_deadline = math.inf
        self._last_view = None
        self._last_scene = None
        self._start_unjoined_clock()
        self._show()

    def _release_held(self) -> None:
        """Do what waited for the world, in the order it came, then let the clients on.

        A step may end this fresh world at once (a player wins, the world fails), and
        the next restart may be slow: the steps after it then wait for the world after
        that, so that none of them reaches a world that is about to be replaced."""
        held, self._held_steps = self._held_steps, []
        ready = self._ready
        for index, (client, step) in enumerate(held):
            if self.restarting:
                later = held[index:]
                self._held_steps[:0] = later
                for waiting, _ in later:
                    waiting.wait_for(self._ready)
                break
            if not client.closed:
                step()
        ready.set()

    def _close_replay(self, reason: str) -> None:
        replay, self._replay = self._replay, None
        if replay is not None:
            replay.close(self.round, reason)
        self._record(reason, replay)

    # -- records ------------------------------------------------------------------------

    def _tally_leave(self, player: PlayerId, why: str) -> None:
        """Tell the tally how a player who did not win or die left, with what it held."""
        status = self.world.status(player)
        outcome = _LEAVE_OUTCOMES.get(why, "removed")
        if status is None:
            self.tally.left(player, outcome)
        else:
            self.tally.left(player, outcome, status.gold)

    def _record(self, reason: str, replay: ReplayWriter | None) -> None:
        """The game is over: hand its record to ``on_finished`` (never raises)."""
        tally = self.tally
        if tally.empty:
            return
        for player in list(self.players):
            self._tally_leave(player, "unfinished")
        record = tally.finish(
            rounds=self.round,
            end=reason,
            replay=str(replay.path) if replay is not None else None,
        )
        if record is not None and self._on_finished is not None:
            try:
                self._on_finished(record)
            except Exception:
                self._log.exception("recording the game failed", record=record.id)

    def _guarded(self, step: Callable[[], None], during: str) -> None:
        try:
            step()
        except Exception:
            self._crash(during)

    def _crash(self, during: str) -> None:
        """The world raised something unexpected: log it, end the game for its players, restart."""
        self._log.exception("world failed", during=during)
        current, self._round = self._round, None
        for client in list(self.players.values()):
            client.finish(
                Bye(
                    f"the {self.world_name} game stopped because of an internal error; "
                    "please reconnect"
                ),
                reason="world failed",
            )
        self.players.clear()
        self._seats.clear()
        self.names.clear()
        self._names_of.clear()
        self.audience.intersection_update(self.watchers)
        self._departing.clear()
        if current is not None:
            current.done.set()
        if self._replay is not None:
            self._replay.begin()  # a failure is worth its record, actions or not
        self._close_replay(f"the world failed during {during}")
        self._restart()


_LEAVE_OUTCOMES: Final = {
    "quit": "quit",
    "disconnected": "disconnected",
    "unfinished": "unfinished",
}
"""How the record calls a player's leaving, by the reason the game gives (anything
else, such as ``removed`` for missed turns or ``moved`` to another game, is ``removed``)."""


def plays_in_turns(world: World) -> TypeGuard[TurnBasedWorld]:
    """Whether ``world`` plays in turns (by its flag, so that wrappers of such worlds count)."""
    return world.has_turns
