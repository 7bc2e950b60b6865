"""What each game command does: one function a verb, by the command's class.

A player's command comes here through :meth:`server.game.Game.handle` once the
client plays in the game; a spectator's through :func:`answer_watcher`. Actions are
checked against the world's rules here (directions, ``STAY``, turn commands), so
that a refused action never reaches the pacing or the replay; what passes is
handed to the game's pacing (:meth:`~server.table.Table.act`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

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
from protocol.replies import ActionPoints, Done, Error, Gold, HitPoints, LookReply, MapReply
from worlds.api import PlayerId, PlayerKind, WorldError

from .outbox import Outbox
from .table import Table
from .turns import plays_in_turns

_DONE = Done()


def handle(game: Table, client: Outbox, command: Command) -> None:
    """Apply one game command from ``client`` and queue every reply it causes. A
    client that does not play here yet joins first (``HELLO <name>``: under that
    name, if it is free). A world that raises ends the game (:meth:`Table.crash`)."""
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
        client.send(Error(f"the name {command.name!r} is taken in this game; choose another"))
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
    if not game.waits(client, player, command):
        answer(game, client, player, command)


def _map(game: Table, client: Outbox, player: PlayerId, command: Map) -> None:
    if not game.waits(client, player, command):
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
        and not game.rename(client, player, name)
    ):
        return
    world = game.world
    status = world.status(player)
    held = status.gold if status is not None else 0
    client.send(Gold(world.goal, name=game.names_of.get(player), held=held))


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


COMMANDS: Final[dict[type[Command], Callable[[Table, Outbox, PlayerId, Any], None]]] = {
    Look: _look,
    Move: _move,
    Pickup: _pickup,
    Stay: _stay,
    Hello: _hello,
    Map: _map,
    Shout: _shout,
    Attack: _turn_command,
    EndTurn: _turn_command,
    ApGet: _turn_command,
    HpGet: _turn_command,
}
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
