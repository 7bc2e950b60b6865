"""Commands typed by hand: any protocol command, sent through the client library.

The client library has one method per command and no way to send a raw line,
so a typed line is parsed with the protocol's own parser
(:func:`protocol.commands.parse_command`) and handed to the matching method;
its typed answer is written back as the reply lines the server sent. A line
the parser refuses gets the parser's message, the very one the server would
have answered with ``ERROR``, and is not sent. What a caller may rely on:

* :func:`send` runs a command and returns a :class:`Sent`: the method's typed
  answer (``GameInfo`` for ``JOIN``, a ``Grid`` for ``MAP`` ...) and the reply as
  protocol lines. It raises what the client raises
  (:class:`~clients.errors.CommandError` for ``ERROR``,
  :class:`~clients.errors.ServerClosed` once the connection is over).
"""

from __future__ import annotations

from dataclasses import dataclass

from dungeon_of_doom.protocol.commands import (
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
    Pickup,
    Quit,
    Shout,
    Stay,
    Watch,
)
from dungeon_of_doom.protocol.replies import (
    ActionPoints,
    Extended,
    Fail,
    GamesReply,
    Gold,
    GoldCoins,
    HelpReply,
    HitPoints,
    LookReply,
    MapReply,
    Reply,
    Success,
)

from ..aio import AsyncClient

__all__ = ["Sent", "send"]


@dataclass(frozen=True, slots=True)
class Sent:
    """A command's answer: the client method's result, and the reply lines it stands for."""

    value: object
    lines: list[str]


async def send(client: AsyncClient, command: Command) -> Sent:
    """Send ``command`` with the client's method for it; see the module docstring."""
    value, reply = await _answer(client, command)
    # The protocol's own formatting, never lines written again by hand here.
    return Sent(value, reply.lines())


def _done(done: bool) -> Reply:
    return Success() if done else Fail()


async def _answer(client: AsyncClient, command: Command) -> tuple[object, Reply]:
    """The method's result for ``command``, and the reply the server sent for it."""
    match command:
        case Hello(name=name):
            goal = await client.hello(name)
            return goal, Gold(goal)
        case Move(direction=direction):
            moved = await client.move(direction)
            return moved, _done(moved)
        case Stay():
            stayed = await client.stay()
            return stayed, _done(stayed)
        case Pickup():
            picked = await client.pickup()
            return picked, GoldCoins(picked.gold) if picked.gold is not None else _done(
                bool(picked)
            )
        case Look():
            view = await client.look()
            return view, LookReply(tuple(view.rows))
        case Map():
            grid = await client.map()
            return grid, MapReply(tuple(grid.rows))
        case Help():
            text = await client.help()
            return text, HelpReply(text)
        case Extend(capabilities=capabilities):
            enabled = await client.extend(*capabilities)
            return enabled, Extended(tuple(sorted(enabled)))
        case Shout(text=text):
            await client.shout(text)
            return None, Success()
        case Games():
            games = await client.games()
            return games, GamesReply(games)
        case Create(game=game, world=world, map=map_spec, seed=seed, players=players, turn=turn):
            info = await client.create(
                game, world, map=map_spec, seed=seed, players=players, turn=turn
            )
            return info, info
        case Join(game=game):
            info = await client.join(game)
            return info, info
        case Watch(game=game):
            info = await client.watch(game)
            return info, info
        case Quit():
            bye = await client.quit()
            return bye, bye
        case Attack(direction=direction):
            hit = await client.attack(direction)
            return hit, _done(hit)
        case EndTurn():
            await client.end_turn()
            return None, Success()
        case ApGet():
            points = await client.action_points()
            return points, ActionPoints(points)
        case HpGet():
            points = await client.hit_points()
            return points, HitPoints(points)
    raise ValueError(f"no client method sends {command.to_line()!r}")
