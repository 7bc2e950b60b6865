"""What each game command does: one function a verb, by the command's class.

A player's command comes here through :meth:`server.game.game.Game.handle` once the
client plays in the game; a spectator's through :func:`answer_watcher`. Actions are
checked against the world's rules here (directions, ``STAY``, turn commands), so
that a refused action never reaches the pacing or the replay; what passes is
handed to the game's pacing (:attr:`~server.game.table.Table.act`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Final, TypeVar, cast

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
    Notice,
)
from records.names import name_taken
from worlds.api import PlayerId, PlayerKind, WorldError

from .outbox import Outbox
from .roster import label
from .table import Table
from .turn_taking import plays_in_turns

_DONE = Done()

_C = TypeVar("_C", bound=Command)
_Play = Callable[[Table, Outbox, PlayerId, Command], None]
"""What a player's command does in its game."""


def _plays(
    kind: type[_C], handler: Callable[[Table, Outbox, PlayerId, _C], None]
) -> tuple[type[Command], _Play]:
    """One entry of :data:`COMMANDS`. It is looked up by the command's exact class, so
    ``handler`` only ever gets a ``kind``; the cast records that invariant."""
    return kind, cast(_Play, handler)


def handle(game: Table, client: Outbox, command: Command) -> None:
    """Apply one game command from ``client`` and queue every reply it causes (once
    the world is ready, if it is being rebuilt: :meth:`Table.hold`). A client that
    does not play here yet joins first (``HELLO <name>``: under that name, if it is
    free). A world that raises ends the game (:meth:`Table.crash`).

    :meth:`server.game.game.Game.handle` is this function itself, not a method calling it:
    one frame fewer on every game command."""
    if game.slot.building and game.hold(client, partial(handle, game, client, command)):
        return
    try:
        player = game.seats.get(client)
        if player is None:
            player = _arrive(game, client, command)
            if player is None:
                return
        COMMANDS.get(type(command), not_a_game_command)(game, client, player, command)
    except WorldError as error:
        client.send(Error(str(error)))
    except Exception:
        game.crash(command.verb)
        if not client.closed:  # not a player (yet): still owed a reply
            client.send(Error(f"the {game.world_name} game stopped because of an internal error"))


def _arrive(game: Table, client: Outbox, command: Command) -> PlayerId | None:
    """Join ``client``, which sent ``command`` before it played here."""
    if isinstance(command, Hello) and command.name is not None and command.name in game.names:
        # Named before joining, so that others see the name from the start.
        client.send(Error(name_taken(command.name, game.names, "this game")))
        return None
    return game.join(client, PlayerKind.BOT if client.bot else PlayerKind.HUMAN)


def answer(game: Table, client: Outbox, player: PlayerId, step: Look | Map) -> None:
    """Answer ``LOOK`` or ``MAP`` for ``player`` (one that waited, or one now)."""
    world = game.world
    if isinstance(step, Look):
        drawn = world.look_bytes(player)  # issue 19: no strings for the commonest reply
        client.send(LookReply(world.look(player)) if drawn is None else LookReply.drawn(drawn))
        return
    refusal = game.too_big()
    client.send(Error(refusal) if refusal is not None else MapReply(world.render(player)))


def _look(game: Table, client: Outbox, player: PlayerId, command: Look) -> None:
    if game.looks_wait and game.waits(client, player, command):
        return
    # answer()'s LOOK, inline: the commonest command, one call fewer.
    world = game.world
    drawn = world.look_bytes(player)
    client.send(LookReply(world.look(player)) if drawn is None else LookReply.drawn(drawn))


def _map(game: Table, client: Outbox, player: PlayerId, command: Map) -> None:
    if not (game.looks_wait and game.waits(client, player, command)):
        answer(game, client, player, command)


def _move(game: Table, client: Outbox, player: PlayerId, command: Move) -> None:
    world = game.world
    direction = command.direction
    if direction not in world.directions:
        allowed = ", ".join(sorted(d.name for d in world.directions))
        client.send(Error(f"MOVE {direction.name} is not allowed here; directions: {allowed}"))
        return
    game.act(client, player, command)


def _pickup(game: Table, client: Outbox, player: PlayerId, command: Pickup) -> None:
    game.act(client, player, command)


def _stay(game: Table, client: Outbox, player: PlayerId, command: Stay) -> None:
    if not game.world.allows_stay:
        client.send(Error(f"STAY is not available in the {game.world_name} world"))
        return
    game.act(client, player, command)


def _hello(game: Table, client: Outbox, player: PlayerId, command: Hello) -> None:
    name = command.name
    if (
        name is not None
        and name != game.names_of.get(player)
        and not rename(game, client, player, name)
    ):
        return
    world = game.world
    status = world.status(player)
    held = status.gold if status is not None else 0
    client.send(Gold(world.goal, name=game.names_of.get(player), held=held))


def rename(game: Table, client: Outbox, player: PlayerId, name: str) -> bool:
    """Call ``player`` ``name``; refused (``ERROR``, ``False``) if another player here
    has it, or a name that looks like it. Listeners are told, spectators' boards redrawn."""
    holder = game.names.get(name)
    if holder is not None and holder != player:
        client.send(Error(name_taken(name, game.names, "this game")))
        return False
    old = game.roster.rename(player, name)
    game.chronicle.named(game.round, player, name, claimed=client.login == name)
    if game.crowd.listeners:
        game.crowd.push(Notice(f"{label(old, player)} is now called {name}"), but=client)
    if game.crowd.watchers:
        game.show()  # the board names the player anew
    return True


def _shout(game: Table, client: Outbox, player: PlayerId, command: Shout) -> None:
    if not game.may_chat(client):
        return
    game.shout(game.label(player), command.text)
    client.send(_DONE)


def _turn_command(
    game: Table, client: Outbox, player: PlayerId, command: Attack | EndTurn | ApGet | HpGet
) -> None:
    """``ATTACK``, ``ENDTURN``, ``APGET`` and ``HPGET``: commands of turn-based worlds."""
    world = game.world
    if not plays_in_turns(world):
        client.send(Error(f"{command.verb} is not available in the {game.world_name} world"))
    elif isinstance(command, ApGet):
        client.send(ActionPoints(world.action_points(player)))
    elif isinstance(command, HpGet):
        client.send(HitPoints(world.hit_points(player)))
    elif isinstance(command, Attack) and command.direction not in world.directions:
        allowed = ", ".join(sorted(d.name for d in world.directions))
        client.send(Error(f"ATTACK goes {allowed} here"))
    else:
        game.act(client, player, command)


def not_a_game_command(game: Table, client: Outbox, player: PlayerId, command: Command) -> None:
    client.send(Error(f"{command.verb} is not a game command"))


COMMANDS: Final[dict[type[Command], _Play]] = dict(
    (
        _plays(Look, _look),
        _plays(Move, _move),
        _plays(Pickup, _pickup),
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


def answer_watcher(game: Table, client: Outbox, command: Command) -> None:
    """A spectator's command: it may read, never act."""
    if isinstance(command, Map):
        refusal = game.too_big()
        client.send(Error(refusal) if refusal is not None else MapReply(game.world.render(None)))
    elif isinstance(command, Hello) and command.name is None:
        client.send(Gold(game.world.goal))
    else:
        client.send(
            Error(
                f"you are watching {game.name}; spectators cannot {command.verb} "
                f"(send JOIN {game.name} to play)"
            )
        )
