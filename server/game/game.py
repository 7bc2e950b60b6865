"""A game: one world, the clients playing and watching it, and the commands they send.

Commands are handled synchronously, straight into the world: trio runs one task
at a time, so the client task that read a command can update the world and
queue every reply without handing the work to another task.

A :class:`Game` keeps who plays (:class:`~server.game.roster.Roster`), who watches
(:class:`~server.game.audience.Audience`), the replay and record
(:class:`~server.game.chronicle.Chronicle`); one :class:`~server.game.pacing.Pacing` beside
it decides when actions are played, and a :class:`~server.game.steward.Steward` runs its
task, its end and its restarts. docs/architecture.md draws them. A caller may rely on:

* **Leaving** removes the player from the world at once, like death (RULES §1),
  except a player whose action is waiting for its round: that action is played
  with the round, and the player leaves right after it. Every action and leave
  is in the replay.
* **Pushes** go only to clients that asked for them (``EXTEND``): joins and
  leaves, actions they could see (within their 5×5 view, or anything for a
  spectator), world notices, round results, turns, chat.
* **The end.** When the last player of a game has left, or nobody still playing can
  win any more (:meth:`worlds.api.World.unwinnable`; each is told ``LOSE`` and why),
  the game is over: its replay is closed, spectators get ``GAMEOVER``, and (if the
  owner wants it) a fresh world with the same settings takes its place. A world
  that raises is logged, its players told, and it restarts the same way.
* **The replay** holds every action before its reply is written (:meth:`Game.flush`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from functools import partial
from pathlib import Path

import structlog

from protocol.commands import Command, Look, Map
from protocol.replies import (
    Bye,
    GameInfo,
    HelpReply,
    Lose,
    Message,
    PlayerJoined,
    PlayerLeft,
    Win,
)
from records.model import GameRecord
from worlds.api import (
    Action,
    Event,
    Joined,
    Left,
    PlayerId,
    PlayerKind,
    World,
    WorldError,
    WorldFull,
    WorldPlugin,
)

from ..replay.writer import ReplayShelf, ReplayWriter
from . import telling
from . import verbs as commands
from .audience import Audience
from .builds import Opened, WorldBuilder
from .chronicle import Chronicle
from .lifecycle import State
from .outbox import Outbox
from .pacing import Pacing, StartWhenFull
from .render import help_reply
from .restarts import WorldSlot
from .roster import Roster, label
from .rounds import Rounds
from .steward import Steward
from .turn_taking import Turns, plays_in_turns

__all__ = ["Game", "plays_in_turns"]

log = structlog.get_logger("server.game")


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
        self.start_full = start_full and limit is not None
        """Hold every action (and ``LOOK``, ``MAP``) until ``limit`` players are in
        (``CREATE ... start=full``)."""
        self.may_chat = may_chat
        self.may_begin = may_begin
        """Why a fresh world may not take its first player now (the records' backlog)."""
        self._log = log.bind(game=name, world=plugin.name)
        self.slot = WorldSlot(
            plugin,
            map_spec,
            seed,
            max_map_bytes,
            permanent=self.permanent,
            builder=builder,
            opened=opened,
            log=self._log,
        )
        self.world: World = self.slot.world
        self.steward = Steward(
            self,
            self.slot,
            on_over=partial(on_over, self),
            on_gone=partial(on_gone, self),
            unjoined_timeout=unjoined_timeout,
            log=self._log,
        )
        self.roster = roster = Roster()
        self.crowd = Audience(self.wake, roster.shown, max_map_bytes)
        self.chronicle = Chronicle(
            name,
            plugin,
            map_spec,
            seed,
            replays=replays,
            on_finished=on_finished,
            max_map_bytes=max_map_bytes,
            log=self._log,
        )
        self.tally = self.chronicle.tally
        # The roster's own tables, under the names the lobby and the game's parts use.
        self.players, self.seats, self.names = roster.players, roster.seats, roster.names
        self.names_of, self.departing = roster.names_of, roster.departing
        self.round = 0
        """Rounds resolved in this world (each action, in a world without rounds)."""
        self._next_player = 1
        self._info: GameInfo | None = None
        self._info_fields: tuple[object, ...] = ()
        self.looks_wait = False
        self.settle: Callable[[], None] = self.steward.settle
        """End the game if it is over (:meth:`server.game.steward.Steward.settle`): the
        steward's own method, no frame between (it runs after every action)."""
        self.told: Callable[
            [list[Event], Sequence[tuple[PlayerId, Action]], Collection[PlayerId]], None
        ] = partial(telling.events, self)
        """Tell what resolving actions gave (:func:`server.game.telling.events` for this game):
        a ``partial``, called from C, so the pacing's action has no frame between."""
        self.act: Callable[[Outbox, PlayerId, Action], None]
        """``act(client, player, action)``: hand ``action`` to the game's pacing (its own
        method, set with the pacing, no frame between)."""
        self.pacing = self._pacing()

    # -- what others read ---------------------------------------------------------------

    @property
    def world_name(self) -> str:
        return self.plugin.name

    @property
    def closed(self) -> bool:
        return self.steward.state is State.CLOSED

    @property
    def restarting(self) -> bool:
        """Whether a fresh world is being built: commands wait for it (see :meth:`hold`)."""
        return self.slot.building

    @property
    def joined_any(self) -> bool:
        """Whether anyone has joined this world (until a fresh one is in its place)."""
        return self.steward.state in (State.PLAYING, State.OVER, State.RESTARTING)

    @property
    def watchers(self) -> set[Outbox]:
        return self.crowd.watchers

    @property
    def audience(self) -> set[Outbox]:
        """Players and spectators who asked for events."""
        return self.crowd.listeners

    @property
    def replay(self) -> ReplayWriter | None:
        return self.chronicle.replay

    def info(self) -> GameInfo:
        """This game as ``GAMES`` lists it."""
        fields = (
            self.name,
            self.world_name,
            self.map_spec or "default",
            self.seed,
            len(self.players),
            self.limit,
            len(self.watchers),
            self._turn_timeout(),
        )
        # A reply checks its fields when built (a few microseconds for this one): the
        # last one is kept, and given again while nothing it says has changed.
        if fields != self._info_fields or self._info is None:
            self._info, self._info_fields = GameInfo(*fields), fields
        return self._info

    def full(self) -> bool:
        return self.limit is not None and len(self.players) >= self.limit

    def player_of(self, client: Outbox) -> PlayerId | None:
        """``client``'s player in this game's world, if it plays here."""
        return self.seats.get(client)

    def name_of(self, player: PlayerId) -> str | None:
        """The name ``player`` goes by in this game, if any."""
        return self.names_of.get(player)

    def label(self, player: PlayerId) -> str:
        """How ``player`` is shown, even after they won or died here."""
        return self.roster.label(player)

    def too_big(self) -> str | None:
        """Why the whole map may not be sent (``MAP``, ``VIEW``), or ``None`` if it may."""
        return self.slot.too_big(self.name)

    def help(self) -> HelpReply:
        return help_reply(self.world, self.world_name, in_turns=plays_in_turns(self.world))

    def log_removed(self, reason: str) -> None:
        self._log.info("game removed", reason=reason)

    async def run(self) -> None:
        """Time out rounds and turns, restart the world, remove an unjoined game and
        flush the replay, until :meth:`close`. Owned by the lobby."""
        await self.steward.run()

    def wake(self) -> None:
        """Make the game's task look at its deadlines again."""
        self.steward.wake()

    def flush(self) -> None:
        """Hand the replay's unwritten lines to the operating system. Outboxes call
        it after each batch of commands, before their replies are written, so that an
        action a client has been told about is never lost with the process."""
        replay = self.chronicle.replay  # not through Chronicle.flush: once a reply
        if replay is not None and replay.unwritten:
            replay.flush()

    def close(self, reason: str) -> None:
        """Stop the game's task and close its replay (the server is stopping)."""
        self.steward.close(reason)

    def closing(self, reason: str) -> None:
        status = self.world.status
        self.chronicle.close(self.round, reason, [(p, status(p)) for p in self.players])

    def hold(self, client: Outbox, step: Callable[[], None]) -> bool:
        """Whether ``step`` waits for the fresh world (:meth:`WorldSlot.hold`)."""
        return self.slot.hold(client, step)

    # -- membership -------------------------------------------------------------------

    def join(self, client: Outbox, kind: PlayerKind = PlayerKind.HUMAN) -> PlayerId:
        """Put ``client`` in the world, under its name unless a player here has it;
        raises :class:`WorldFull`, :class:`WorldError` when ``may_begin`` refuses a
        fresh world its first player, or what the world raises (the world is then as it
        was: nobody joined). Never called while the world restarts (:meth:`hold`)."""
        if self.slot.building:
            raise RuntimeError("a player may not join a world that is being replaced")
        if self.full():
            raise WorldFull(f"the game {self.name} is full ({self.limit} players)")
        if not self.joined_any and (refusal := self.may_begin()) is not None:
            raise WorldError(refusal)
        name = client.name
        if name is not None and name in self.names:
            name = None  # taken here; the player may choose another with HELLO
        player = self._next_player
        events = self.world.join(player, kind)
        if self.steward.state is State.OPEN:
            self.chronicle.begin(self.slot.opened, self._turn_timeout())
        self.steward.joined()
        self._next_player += 1
        self.roster.seat(client, player, name)
        claimed = name is not None and client.login == name
        self.chronicle.joined(
            self.round, player, kind, name, claimed, client.dialect, probe=client.probe
        )
        # Through the client's own logger: rate-limited with its other events (issue 20).
        client.log.info("player joined", game=self.name, player=player, world=self.world_name)
        if self.audience:
            self.crowd.push(PlayerJoined(label(name, player)), but=client)
        if client.events:
            self.audience.add(client)
        # Whatever the world says on a join besides Joined itself (a greeting, a death
        # on arrival) reaches the players like the events of any action.
        self.tell([e for e in events if not isinstance(e, Joined)])
        self.pacing.joined(client, player)
        self.show()
        return player

    def failed(self, during: str) -> None:
        """The world raised where the lobby called it (a join): end this game."""
        self.crash(during)

    def announce(self, text: str) -> None:
        """A ``NOTICE`` to everyone in the game who asked for events."""
        telling.notice(self, None, text)

    def resume(self, old: Outbox, new: Outbox) -> bool:
        """``new`` plays ``old``'s player from now on: a logged-in player whose client
        dropped came back (:mod:`server.lobby.ladder`). False if that player is no longer here."""
        player = self.seats.get(old)
        if self.closed or player is None or self.players.get(player) is not old:
            return False
        self.roster.move(player, old, new)
        self.audience.discard(old)
        if new.events:
            self.audience.add(new)
        self.pacing.resumed(player, new)
        self._log.info("player resumed", conn=new.id, player=player)
        return True

    def leave(self, client: Outbox, why: str = "disconnected") -> None:
        """Take ``client``'s player out of the game (like death, RULES §1)."""
        self.audience.discard(client)
        player = self.seats.pop(client, None)
        if player is None or self.players.get(player) is not client:
            return
        _, name = self.roster.unseat(player)
        who = label(name, player)
        if self.pacing.stays_for(player):
            # The action was made: it is played with its round, then the player leaves.
            self.departing[player] = who
            self.guarded(self.pacing.left, "leave")
            return
        self.remove(player, who, why)
        self.guarded(self.pacing.left, "leave")
        self.settle()

    def remove(self, player: PlayerId, who: str, why: str) -> None:
        """Take ``player`` (shown as ``who``) out of the world, for ``why``."""
        self.pacing.forget(player)
        self.chronicle.left(self.round, player, why, self.world.status(player))
        try:
            events = self.world.leave(player)
        except Exception:
            self.crash("leave")
            return
        if self.audience:
            self.crowd.push(PlayerLeft(who, why))
        # What the world says besides Left (in a turn-based world, the next turn).
        self.tell([e for e in events if not isinstance(e, Left)])
        self.pacing.changed()
        self.show()

    def finish(self, player: PlayerId, final: Win | Lose, outcome: str, **context: int) -> None:
        """``player``'s game is over (``outcome``): told ``final``, then out of the game."""
        self.pacing.forget(player)
        client, name = self.roster.unseat(player, finished=True)
        if client is None:
            return
        self.audience.discard(client)
        self.chronicle.finished(player, outcome, context.get("gold", 0), context.get("moves"))
        client.log.info(
            f"player {outcome}", game=self.name, player=player, world=self.world_name, **context
        )
        client.finish(final, reason=f"player {outcome}")
        if self.audience:
            self.crowd.push(PlayerLeft(label(name, player), outcome))

    # -- spectators and chat ------------------------------------------------------------

    def watch(self, client: Outbox) -> None:
        """Add a spectator: it is answered with this game's line, then the whole map
        (and the board, ``EXTEND board``), sent again after every change (the latest
        only, to one that lags)."""
        self.crowd.watch(client)
        client.send(self.info())
        self.crowd.greet(client, self.world)

    def unwatch(self, client: Outbox) -> None:
        self.crowd.unwatch(client)

    def listen(self, client: Outbox) -> None:
        """``client`` (a player or spectator here) now wants events."""
        if client in self.seats or client in self.watchers:
            self.audience.add(client)

    def shout(self, sender: str, text: str) -> None:
        """Chat: to every player and spectator in the game who asked for it."""
        self.crowd.shout(Message(sender, text), self.players.values())

    def show(self) -> None:
        """Send spectators the whole map, if it changed since they last saw it."""
        self.crowd.show(self.world)

    # -- commands ---------------------------------------------------------------------

    handle = commands.handle
    """``handle(client, command)``: apply one game command from ``client`` and queue
    every reply it causes (once the world is ready, if it is being rebuilt). A client
    that does not play here yet joins first (``HELLO <name>``: under that name, if it
    is free). The function itself (:func:`server.game.verbs.handle`): no frame between."""

    def handle_watcher(self, client: Outbox, command: Command) -> None:
        """A spectator's command: it may read, never act."""
        if self.slot.building and self.hold(client, partial(self.handle_watcher, client, command)):
            return
        commands.answer_watcher(self, client, command)

    def answer(self, client: Outbox, player: PlayerId, step: Look | Map) -> None:
        """Answer ``LOOK`` or ``MAP`` for ``player`` (one that waited, or one now)."""
        commands.answer(self, client, player, step)

    # -- playing: what the pacing calls ---------------------------------------------------

    def play(
        self, actions: Sequence[tuple[PlayerId, Action]], unasked: Collection[PlayerId] = ()
    ) -> None:
        """Resolve ``actions`` in the world and tell each event to whom it concerns."""
        telling.events(self, self.world.resolve(actions), actions, unasked)

    def tell(self, events: list[Event]) -> None:
        """Tell what the world did by itself (no action caused it)."""
        telling.events(self, events, (), ())

    def waits(self, client: Outbox, player: PlayerId, step: Look | Map) -> bool:
        return self.pacing.waits(client, player, step)

    def played_in_time(self, player: PlayerId) -> None:
        self.pacing.played(player)

    # -- ending and restarting -----------------------------------------------------------

    def fresh(self, opened: Opened) -> None:
        """``opened``'s world replaces the one that ended (the steward built it)."""
        self.world = opened.world
        self.round = 0
        self.roster.finished_names.clear()
        self.pacing.reset()  # the players it held are gone with the old world
        self.pacing = self._pacing()
        self.crowd.forget_view()
        self.show()

    def _pacing(self) -> Pacing:
        world = self.world
        pacing: Pacing
        if plays_in_turns(world):
            pacing = Turns(self, self.label)
        elif world.has_rounds:
            pacing = Rounds(self)
        else:
            pacing = Pacing(self)
        if self.start_full and self.limit is not None:
            pacing = StartWhenFull(pacing, self.limit)
        # A pacing that never holds a LOOK or MAP (Pacing.waits) is not asked each time.
        self.looks_wait = type(pacing).waits is not Pacing.waits
        self.act = pacing.act
        return pacing

    def _turn_timeout(self) -> float | None:
        """``turn_timeout`` where it applies (to rounds, or to turns), else ``None``."""
        return self.turn_timeout if self.pacing.timed else None

    def guarded(self, step: Callable[[], None], during: str) -> None:
        try:
            step()
        except Exception:
            self.crash(during)

    def crash(self, during: str) -> None:
        """The world raised something unexpected: log it, end the game for its players, restart."""
        self.steward.crash(during)

    def evict(self, final: Bye) -> None:
        """Everyone out at once, told ``final`` (the world failed)."""
        for client in list(self.players.values()):
            client.finish(final, reason="world failed")
        self.roster.clear()
        self.audience.intersection_update(self.watchers)
        self.pacing.reset()
        self.chronicle.failed()
