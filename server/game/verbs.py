"""What each game command does: one method a verb, by the command's class.

A player's command comes here through :meth:`server.game.game.Game.handle` once the
client plays in the game (the game looks its verb up in :data:`COMMANDS`); a
spectator's through :meth:`Verbs.watcher`. Actions are checked against the world's
rules here (directions, ``STAY``, turn commands), so that a refused action never
reaches the pacing or the replay; what passes is handed to the game's pacing
(:meth:`Paced.act`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Protocol, TypeVar, cast

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
    Done,
    Error,
    Gold,
    HitPoints,
    LookReply,
    MapReply,
    Message,
    Notice,
)
from records.names import name_taken
from worlds.api import Action, PlayerId
from worlds.turns import plays_in_turns

from .audience import Audience
from .outbox import Outbox
from .restarts import WorldSlot
from .roster import Roster, label
from .spec import GameSpec

_DONE = Done()


class Paced(Protocol):
    """A game's pacing, as the verbs hand it what players do
    (:class:`server.game.pacing.Pacing`)."""

    def act(self, client: Outbox, player: PlayerId, action: Action) -> None: ...

    def waits(self, client: Outbox, player: PlayerId, step: Look | Map) -> bool: ...


class Acting(Protocol):
    """The game, as its verbs see it (:class:`server.game.game.Game`)."""

    @property
    def pacing(self) -> Paced:
        """The pacing of the world played in now."""
        ...

    def may_chat(self, client: Outbox) -> bool:
        """Whether ``client`` may ``SHOUT`` once more now (if not, it is told)."""
        ...


class NameRecord(Protocol):
    """A game's record of names (:class:`server.game.chronicle.Chronicle`)."""

    def named(self, player: PlayerId, name: str, *, claimed: bool) -> None: ...


class Verbs:
    """The game commands of one game (module docstring)."""

    __slots__ = ("_audience", "_chronicle", "_game", "_roster", "_slot", "_spec")

    def __init__(
        self,
        spec: GameSpec,
        slot: WorldSlot,
        roster: Roster,
        audience: Audience,
        chronicle: NameRecord,
        game: Acting,
    ) -> None:
        self._spec = spec
        self._slot = slot
        self._roster = roster
        self._audience = audience
        self._chronicle = chronicle
        self._game = game

    def answer(
        self, client: Outbox, player: PlayerId, step: Look | Map, *, asked: bool = True
    ) -> None:
        """Answer ``LOOK`` or ``MAP`` for ``player``: now, unless the pacing holds it
        (``asked``: it was just sent; a step the pacing held is answered as it lets go)."""
        if asked and self._game.pacing.waits(client, player, step):
            return
        world = self._slot.world
        if isinstance(step, Look):
            drawn = world.look_bytes(player)  # issue 19: no strings for the commonest reply
            client.send(LookReply(world.look(player)) if drawn is None else LookReply.drawn(drawn))
            return
        refusal = self._slot.too_big()
        client.send(Error(refusal) if refusal is not None else MapReply(world.render(player)))

    def move(self, client: Outbox, player: PlayerId, command: Move) -> None:
        world = self._slot.world
        direction = command.direction
        if direction not in world.directions:
            allowed = ", ".join(sorted(d.name for d in world.directions))
            client.send(Error(f"MOVE {direction.name} is not allowed here; directions: {allowed}"))
            return
        self._game.pacing.act(client, player, command)

    def pickup(self, client: Outbox, player: PlayerId, command: Pickup) -> None:
        self._game.pacing.act(client, player, command)

    def stay(self, client: Outbox, player: PlayerId, command: Stay) -> None:
        if not self._slot.world.allows_stay:
            client.send(Error(f"STAY is not available in the {self._spec.world_name} world"))
            return
        self._game.pacing.act(client, player, command)

    def hello(self, client: Outbox, player: PlayerId, command: Hello) -> None:
        name, names_of = command.name, self._roster.names_of
        if (
            name is not None
            and name != names_of.get(player)
            and not self.rename(client, player, name)
        ):
            return
        world = self._slot.world
        status = world.status(player)
        held = status.gold if status is not None else 0
        client.send(Gold(world.goal, name=names_of.get(player), held=held))

    def rename(self, client: Outbox, player: PlayerId, name: str) -> bool:
        """Call ``player`` ``name``; refused (``ERROR``, ``False``) if another player here
        has it, or a name that looks like it. Listeners are told, spectators' boards redrawn."""
        roster = self._roster
        holder = roster.names.get(name)
        if holder is not None and holder != player:
            client.send(Error(name_taken(name, roster.names, "this game")))
            return False
        old = roster.rename(player, name)
        self._chronicle.named(player, name, claimed=client.who.login == name)
        audience = self._audience
        if audience.listeners:
            audience.push(Notice(f"{label(old, player)} is now called {name}"), but=client)
        audience.show(self._slot.world)  # the board names the player anew
        return True

    def shout(self, client: Outbox, player: PlayerId, command: Shout) -> None:
        if not self._game.may_chat(client):
            return
        message = Message(self._roster.label(player), command.text)
        self._audience.shout(message, self._roster.players.values())
        client.send(_DONE)

    def turn_command(
        self, client: Outbox, player: PlayerId, command: Attack | EndTurn | ApGet | HpGet
    ) -> None:
        """``ATTACK``, ``ENDTURN``, ``APGET`` and ``HPGET``: commands of turn-based worlds."""
        world = self._slot.world
        if not plays_in_turns(world):
            client.send(
                Error(f"{command.verb} is not available in the {self._spec.world_name} world")
            )
        elif isinstance(command, ApGet):
            client.send(ActionPoints(world.action_points(player)))
        elif isinstance(command, HpGet):
            client.send(HitPoints(world.hit_points(player)))
        elif isinstance(command, Attack) and command.direction not in world.directions:
            allowed = ", ".join(sorted(d.name for d in world.directions))
            client.send(Error(f"ATTACK goes {allowed} here"))
        else:
            self._game.pacing.act(client, player, command)

    def not_a_game_command(self, client: Outbox, player: PlayerId, command: Command) -> None:
        client.send(Error(f"{command.verb} is not a game command"))

    def watcher(self, client: Outbox, command: Command) -> None:
        """A spectator's command: it may read, never act."""
        if isinstance(command, Map):
            refusal = self._slot.too_big()
            world = self._slot.world
            client.send(Error(refusal) if refusal is not None else MapReply(world.render(None)))
        elif isinstance(command, Hello) and command.name is None:
            client.send(Gold(self._slot.world.goal))
        else:
            name = self._spec.name
            client.send(
                Error(
                    f"you are watching {name}; spectators cannot {command.verb} "
                    f"(send JOIN {name} to play)"
                )
            )


_C = TypeVar("_C", bound=Command)
Verb = Callable[[Verbs, Outbox, PlayerId, Command], None]
"""What a player's command does in its game."""


def _plays(
    kind: type[_C], handler: Callable[[Verbs, Outbox, PlayerId, _C], None]
) -> tuple[type[Command], Verb]:
    """One entry of :data:`COMMANDS`. It is looked up by the command's exact class, so
    ``handler`` only ever gets a ``kind``; the cast records that invariant."""
    return kind, cast(Verb, handler)


COMMANDS: Final[dict[type[Command], Verb]] = dict(
    (
        _plays(Look, Verbs.answer),
        _plays(Move, Verbs.move),
        _plays(Pickup, Verbs.pickup),
        _plays(Stay, Verbs.stay),
        _plays(Hello, Verbs.hello),
        _plays(Map, Verbs.answer),
        _plays(Shout, Verbs.shout),
        _plays(Attack, Verbs.turn_command),
        _plays(EndTurn, Verbs.turn_command),
        _plays(ApGet, Verbs.turn_command),
        _plays(HpGet, Verbs.turn_command),
    )
)
"""What a player's command does, by its kind (any other: :meth:`Verbs.not_a_game_command`)."""
