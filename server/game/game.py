"""A game: one world, the clients playing and watching it, and the commands they send.

Commands are handled synchronously, straight into the world: trio runs one task
at a time, so the client task that read a command can update the world and
queue every reply without handing the work to another task.

A :class:`Game` is made from a :class:`~server.game.spec.GameSpec` (what it is) and the
:class:`~server.game.spec.GameHooks` of its owner (what it tells it), and composes its
parts, each given only the collaborators it uses (docs/architecture.md draws them):
who plays (:class:`~server.game.roster.Roster`), who watches
(:class:`~server.game.audience.Audience`), the world (:class:`~server.game.restarts.WorldSlot`),
the replay and record (:class:`~server.game.chronicle.Chronicle`) with the one step of
play (:class:`~server.game.chronicle.Play`), who hears what
(:class:`~server.game.delivery.Delivery`), what each command does
(:class:`~server.game.verbs.Verbs`), when actions are played
(:class:`~server.game.pacing.Pacing`), and its task, end and restarts
(:class:`~server.game.steward.Steward`). It keeps membership itself. A caller may rely on:

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

from collections.abc import Callable
from functools import partial

import structlog

from protocol.commands import Command, Hello
from protocol.replies import (
    Bye,
    Error,
    GameInfo,
    HelpReply,
    Lose,
    PlayerJoined,
    PlayerLeft,
    Win,
)
from records.names import LookalikeNames, name_taken
from worlds.api import Joined, Left, PlayerId, PlayerKind, World, WorldError, WorldFull
from worlds.turns import plays_in_turns

from ..replay.shelf import ReplayShelf
from .alarm import Alarm
from .audience import Audience
from .builds import Opened, WorldBuilder
from .chronicle import Chronicle, Play
from .delivery import Delivery
from .lifecycle import State
from .outbox import Outbox
from .pacing import Pacing, StartWhenFull
from .restarts import WorldSlot
from .roster import Departure, Roster, label
from .rounds import Rounds
from .spec import GameHooks, GameSpec, Unowned
from .steward import Steward
from .turn_taking import Turns
from .verbs import COMMANDS, Verbs
from .wording import help_reply

__all__ = ["Game"]

log = structlog.get_logger("server.game")


class Game:
    """One world and its players; see the module docstring."""

    def __init__(
        self,
        spec: GameSpec,
        hooks: GameHooks[Game] | None = None,
        *,
        opened: Opened | None = None,
        builder: WorldBuilder | None = None,
        replays: ReplayShelf | None = None,
    ) -> None:
        """A game as ``spec`` says, held by the owner of ``hooks`` (none: :class:`Unowned`),
        in ``opened``'s world (else one opened now), its fresh worlds built by ``builder``
        (none: on the loop), its replays on the ``replays`` shelf (none: unrecorded)."""
        self.spec = spec
        self.name = spec.name
        self._hooks: GameHooks[Game] = hooks if hooks is not None else Unowned()
        self._log = log.bind(game=spec.name, world=spec.world_name)
        self.alarm = Alarm()
        self.slot = slot = WorldSlot(spec, builder, opened, self._log)
        self.roster = roster = Roster()
        self.audience = audience = Audience(self.alarm, roster, spec.max_map_bytes)
        self.chronicle = chronicle = Chronicle(spec, replays, self._hooks, self._log)
        self.steward = Steward(spec, slot, roster, audience, chronicle, self, self.alarm, self._log)
        self.delivery = Delivery(roster, audience, slot, self)
        self.play = Play(chronicle, slot, self.delivery, audience, self.steward)
        self.verbs = Verbs(spec, slot, roster, audience, chronicle, self)
        self._next_player = 1
        self._info: GameInfo | None = None
        self._info_fields: tuple[object, ...] = ()
        self.pacing = self._pacing()
        """When actions are played in the world played now (a fresh world gets its own)."""

    # -- what others read ---------------------------------------------------------------

    @property
    def world(self) -> World:
        """The world played in now."""
        return self.slot.world

    @property
    def world_name(self) -> str:
        return self.spec.world_name

    @property
    def players(self) -> dict[PlayerId, Outbox]:
        """Who plays here, by player."""
        return self.roster.players

    @property
    def names(self) -> LookalikeNames[PlayerId]:
        """The names players go by here (names that look alike are one)."""
        return self.roster.names

    @property
    def watchers(self) -> set[Outbox]:
        return self.audience.watchers

    @property
    def round(self) -> int:
        """Rounds resolved in this world (each action, in a world without rounds)."""
        return self.chronicle.round

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

    def info(self) -> GameInfo:
        """This game as ``GAMES`` lists it."""
        spec = self.spec
        fields = (
            self.name,
            spec.world_name,
            spec.map_spec or "default",
            spec.seed,
            len(self.roster.players),
            spec.limit,
            len(self.audience.watchers),
            self._turn_timeout(),
        )
        # A reply checks its fields when built (a few microseconds for this one): the
        # last one is kept, and given again while nothing it says has changed.
        if fields != self._info_fields or self._info is None:
            self._info, self._info_fields = GameInfo(*fields), fields
        return self._info

    def full(self) -> bool:
        limit = self.spec.limit
        return limit is not None and len(self.roster.players) >= limit

    def player_of(self, client: Outbox) -> PlayerId | None:
        """``client``'s player in this game's world, if it plays here."""
        return self.roster.seats.get(client)

    def name_of(self, player: PlayerId) -> str | None:
        """The name ``player`` goes by in this game, if any."""
        return self.roster.names_of.get(player)

    def label(self, player: PlayerId) -> str:
        """How ``player`` is shown, even after they won or died here."""
        return self.roster.label(player)

    def too_big(self) -> str | None:
        """Why the whole map may not be sent (``MAP``, ``VIEW``), or ``None`` if it may."""
        return self.slot.too_big()

    def help(self) -> HelpReply:
        world = self.slot.world
        return help_reply(world, self.spec.world_name, in_turns=plays_in_turns(world))

    def log_removed(self, reason: str) -> None:
        self._log.info("game removed", reason=reason)

    async def run(self) -> None:
        """Time out rounds and turns, restart the world, remove an unjoined game and
        flush the replay, until :meth:`close`. Owned by the lobby."""
        await self.steward.run()

    def flush(self) -> None:
        """Hand the replay's unwritten lines to the operating system, so that an action
        a client has been told about is never lost with the process."""
        self.chronicle.flush()

    def close(self, reason: str) -> None:
        """Stop the game's task and close its replay (the server is stopping)."""
        self.steward.close(reason)

    def hold(self, client: Outbox, step: Callable[[], None]) -> bool:
        """Whether ``step`` waits for the fresh world (:meth:`WorldSlot.hold`)."""
        return self.slot.hold(client, step)

    # -- commands ---------------------------------------------------------------------

    def handle(self, client: Outbox, command: Command) -> None:
        """Apply one game command from ``client`` and queue every reply it causes (once
        the world is ready, if it is being rebuilt: :meth:`hold`). A client that does not
        play here yet joins first (``HELLO <name>``: under that name, if it is free). A
        world that raises ends the game (:meth:`crash`)."""
        # The test first: a step to hold is made only while the world is being rebuilt.
        if self.slot.building and self.slot.hold(client, partial(self.handle, client, command)):
            return
        try:
            player = self.roster.seats.get(client)
            if player is None:
                player = self._arrive(client, command)
                if player is None:
                    return
            COMMANDS.get(type(command), Verbs.not_a_game_command)(
                self.verbs, client, player, command
            )
        except WorldError as error:
            client.send(Error(str(error)))
        except Exception:
            self.crash(command.verb)
            if not client.closed:  # not a player (yet): still owed a reply
                client.send(
                    Error(f"the {self.spec.world_name} game stopped because of an internal error")
                )

    def _arrive(self, client: Outbox, command: Command) -> PlayerId | None:
        """Join ``client``, which sent ``command`` before it played here."""
        names = self.roster.names
        if isinstance(command, Hello) and command.name is not None and command.name in names:
            # Named before joining, so that others see the name from the start.
            client.send(Error(name_taken(command.name, names, "this game")))
            return None
        return self.join(client, PlayerKind.BOT if client.who.bot else PlayerKind.HUMAN)

    def handle_watcher(self, client: Outbox, command: Command) -> None:
        """A spectator's command: it may read, never act."""
        if self.slot.building and self.slot.hold(
            client, partial(self.handle_watcher, client, command)
        ):
            return
        self.verbs.watcher(client, command)

    def may_chat(self, client: Outbox) -> bool:
        """Whether ``client`` may ``SHOUT`` once more now (the owner's rate; if not, told)."""
        return self._hooks.may_chat(client)

    # -- membership -------------------------------------------------------------------

    def join(self, client: Outbox, kind: PlayerKind = PlayerKind.HUMAN) -> PlayerId:
        """Put ``client`` in the world, under its name unless a player here has it;
        raises :class:`WorldFull`, :class:`WorldError` when the owner refuses a fresh
        world its first player (:meth:`GameHooks.may_begin`), or what the world raises
        (the world is then as it was: nobody joined). Never called while the world
        restarts (:meth:`hold`)."""
        if self.slot.building:
            raise RuntimeError("a player may not join a world that is being replaced")
        if self.full():
            raise WorldFull(f"the game {self.name} is full ({self.spec.limit} players)")
        if not self.joined_any and (refusal := self._hooks.may_begin()) is not None:
            raise WorldError(refusal)
        who, roster = client.who, self.roster
        name = who.name
        if name is not None and name in roster.names:
            name = None  # taken here; the player may choose another with HELLO
        player = self._next_player
        events = self.slot.world.join(player, kind)
        if self.steward.state is State.OPEN:
            self.chronicle.begin(self.slot.opened, self._turn_timeout())
        self.steward.joined()
        self._next_player += 1
        roster.seat(client, player, name)
        claimed = name is not None and who.login == name
        self.chronicle.joined(player, kind, name, claimed, who.dialect, probe=who.probe)
        # Through the client's own logger: rate-limited with its other events (issue 20).
        who.log.info("player joined", game=self.name, player=player, world=self.spec.world_name)
        audience = self.audience
        if audience.listeners:
            audience.push(PlayerJoined(label(name, player)), but=client)
        if client.wants.events:
            audience.listeners.add(client)
        # Whatever the world says on a join besides Joined itself (a greeting, a death
        # on arrival) reaches the players like the events of any action.
        self.delivery.deliver([e for e in events if not isinstance(e, Joined)], (), ())
        self.pacing.joined(client, player)
        self.show()
        return player

    def failed(self, during: str) -> None:
        """The world raised where the lobby called it (a join): end this game."""
        self.crash(during)

    def announce(self, text: str) -> None:
        """A ``NOTICE`` to everyone in the game who asked for events."""
        self.delivery.notice(None, text)

    def claimed(self, player: PlayerId, name: str) -> None:
        """``player`` proved it owns ``name``, the name it plays under, in the middle of
        the game: the record says it played the whole game as the owner."""
        self.chronicle.tally.named(player, name, claimed=True)

    def resume(self, old: Outbox, new: Outbox) -> bool:
        """``new`` plays ``old``'s player from now on: a logged-in player whose client
        dropped came back (:mod:`server.lobby.ladder`). False if that player is no longer here."""
        roster = self.roster
        player = roster.seats.get(old)
        if self.closed or player is None or roster.players.get(player) is not old:
            return False
        roster.move(player, old, new)
        listeners = self.audience.listeners
        listeners.discard(old)
        if new.wants.events:
            listeners.add(new)
        self.pacing.resumed(player, new)
        self._log.info("player resumed", conn=new.who.id, player=player)
        return True

    def leave(self, client: Outbox, why: str = "disconnected") -> None:
        """Take ``client``'s player out of the game (like death, RULES §1)."""
        roster = self.roster
        self.audience.listeners.discard(client)
        player = roster.seats.pop(client, None)
        if player is None or roster.players.get(player) is not client:
            return
        _, name = roster.unseat(player)
        who = label(name, player)
        if self.pacing.stays_for(player):
            # The action was made: it is played with its round, then the player leaves.
            roster.departing[player] = Departure(who, why)
            self._pacing_left()
            return
        self.remove(player, who, why)
        self._pacing_left()
        self.steward.settle()

    def _pacing_left(self) -> None:
        try:
            self.pacing.left()
        except Exception:
            self.crash("leave")

    def remove(self, player: PlayerId, who: str, why: str) -> None:
        """Take ``player`` (shown as ``who``) out of the world, for ``why``."""
        self.pacing.forget(player)
        world = self.slot.world
        self.chronicle.left(player, why, world.status(player))
        try:
            events = world.leave(player)
        except Exception:
            self.crash("leave")
            return
        audience = self.audience
        if audience.listeners:
            audience.push(PlayerLeft(who, why))
        # What the world says besides Left (in a turn-based world, the next turn).
        self.delivery.deliver([e for e in events if not isinstance(e, Left)], (), ())
        self.pacing.changed()
        self.show()

    def finish(self, player: PlayerId, final: Win | Lose, outcome: str, **context: int) -> None:
        """``player``'s game is over (``outcome``): told ``final``, then out of the game."""
        self.pacing.forget(player)
        client, name = self.roster.unseat(player, finished=True)
        if client is None:
            return
        audience = self.audience
        audience.listeners.discard(client)
        self.chronicle.finished(player, outcome, context.get("gold", 0), context.get("moves"))
        client.who.log.info(
            f"player {outcome}", game=self.name, player=player, world=self.world_name, **context
        )
        client.finish(final, reason=f"player {outcome}")
        if audience.listeners:
            audience.push(PlayerLeft(label(name, player), outcome))

    def played_in_time(self, player: PlayerId) -> None:
        """``player``'s turn ended in time: its count of missed turns starts again."""
        self.pacing.played(player)

    # -- spectators -----------------------------------------------------------------------

    def watch(self, client: Outbox) -> None:
        """Add a spectator: it is answered with this game's line, then the whole map
        (and the board, ``EXTEND board``), sent again after every change (the latest
        only, to one that lags)."""
        self.audience.watch(client)
        client.send(self.info())
        self.audience.greet(client, self.slot.world)

    def unwatch(self, client: Outbox) -> None:
        self.audience.unwatch(client)

    def listen(self, client: Outbox) -> None:
        """``client`` (a player or spectator here) now wants events."""
        if client in self.roster.seats or client in self.audience.watchers:
            self.audience.listeners.add(client)

    def show(self) -> None:
        """Send spectators the whole map, if it changed since they last saw it."""
        self.audience.show(self.slot.world)

    # -- ending and restarting: what the steward has the game do -------------------------

    def kept(self) -> bool:
        """Whether a fresh world replaces the one that ended (the owner says)."""
        return self._hooks.kept(self)

    def gone(self, why: str) -> None:
        """The game closed by itself, for ``why``: its owner is told."""
        self._hooks.gone(self, why)

    def closing(self, reason: str) -> None:
        """The world's game ended for ``reason``: its replay and record are closed."""
        status = self.slot.world.status
        self.chronicle.close(reason, [(p, status(p)) for p in self.roster.players])

    def fresh(self, opened: Opened) -> None:
        """``opened``'s world (now in the slot) replaces the one that ended."""
        self.chronicle.fresh()
        self.delivery.fresh()
        self.roster.finished_names.clear()
        self.pacing.reset()  # the players it held are gone with the old world
        self.pacing = self._pacing()
        self.audience.forget_view()
        self.show()

    def crash(self, during: str) -> None:
        """The world raised something unexpected: log it, end the game for its players, restart."""
        self.steward.crash(during)

    def evict(self, final: Bye) -> None:
        """Everyone out at once, told ``final`` (the world failed)."""
        for client in list(self.roster.players.values()):
            client.finish(final, reason="world failed")
        self.roster.clear()
        audience = self.audience
        audience.listeners.intersection_update(audience.watchers)
        self.pacing.reset()
        self.chronicle.failed()

    def _pacing(self) -> Pacing:
        """The pacing of the world played in now (:mod:`server.game.pacing`)."""
        spec, world = self.spec, self.slot.world
        parts = (self.play, self.roster, self, self.verbs, self.alarm, spec)
        pacing: Pacing
        if plays_in_turns(world):
            pacing = Turns(*parts)
        elif world.has_rounds:
            pacing = Rounds(*parts)
        else:
            pacing = Pacing(*parts)
        if spec.waits_until_full and spec.limit is not None:
            pacing = StartWhenFull(pacing, spec.limit)
        return pacing

    def _turn_timeout(self) -> float | None:
        """``turn_timeout`` where it applies (to rounds, or to turns), else ``None``."""
        return self.spec.turn_timeout if self.pacing.timed else None
