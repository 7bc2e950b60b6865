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

from protocol.commands import (
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

from ..aio import AsyncClient

__all__ = ["Sent", "send"]


@dataclass(frozen=True, slots=True)
class Sent:
    """A command's answer: the client method's result, and the reply lines it stands for."""

    value: object
    lines: list[str]


async def send(client: AsyncClient, command: Command) -> Sent:
    """Send ``command`` with the client's method for it; see the module docstring."""
    match command:
        case Hello(name=name):
            goal = await client.hello(name)
            return Sent(goal, [f"GOLD {goal}"])
        case Move(direction=direction):
            moved = await client.move(direction)
            return Sent(moved, ["SUCCESS" if moved else "FAIL"])
        case Stay():
            stayed = await client.stay()
            return Sent(stayed, ["SUCCESS" if stayed else "FAIL"])
        case Pickup():
            picked = await client.pickup()
            if picked.gold is not None:
                return Sent(picked, [f"SUCCESS, GOLD COINS: {picked.gold}"])
            return Sent(picked, ["SUCCESS" if picked else "FAIL"])
        case Look():
            view = await client.look()
            return Sent(view, ["LOOKREPLY", *view.rows])
        case Map():
            grid = await client.map()
            return Sent(grid, [f"MAP {grid.height} {grid.width}", *grid.rows])
        case Help():
            text = await client.help()
            return Sent(text, [f"HELP {len(text)}", *text])
        case Extend(capabilities=capabilities):
            enabled = await client.extend(*capabilities)
            return Sent(enabled, [" ".join(["EXTENDED", *sorted(enabled)])])
        case Shout(text=text):
            await client.shout(text)
            return Sent(None, ["SUCCESS"])
        case Games():
            games = await client.games()
            return Sent(games, [f"GAMES {len(games)}", *(info.line() for info in games)])
        case Create(game=game, world=world, map=map_spec, seed=seed, players=players, turn=turn):
            info = await client.create(
                game, world, map=map_spec, seed=seed, players=players, turn=turn
            )
            return Sent(info, [info.line()])
        case Join(game=game):
            info = await client.join(game)
            return Sent(info, [info.line()])
        case Watch(game=game):
            info = await client.watch(game)
            return Sent(info, [info.line()])
        case Quit():
            bye = await client.quit()
            return Sent(bye, bye.lines())
        case Attack(direction=direction):
            hit = await client.attack(direction)
            return Sent(hit, ["SUCCESS" if hit else "FAIL"])
        case EndTurn():
            await client.end_turn()
            return Sent(None, ["SUCCESS"])
        case ApGet():
            points = await client.action_points()
            return Sent(points, [f"AP {points}"])
        case HpGet():
            points = await client.hit_points()
            return Sent(points, [f"HP {points}"])
    raise ValueError(f"no client method sends {command.to_line()!r}")
