"""A bot's one connection to its server, through the arena, under the entrant's name.

The bot never picks its name nor its game: the relay reads the bot's bytes with the
server's own line framing (:class:`protocol.framing.LineFramer`, so that no line can hide
from it in a bare ``CR`` or a telnet sequence) and sends the server whole lines, each
ending in ``LF``, with

* ``HELLO <anything>`` sent as ``HELLO <the entrant's name>``,
* ``JOIN <anything>`` sent as ``JOIN <the match's game>``,
* ``CREATE``, ``WATCH``, ``REGISTER`` and ``LOGIN`` answered ``ERROR`` by the relay and
  not sent (a bot plays the game it was given, as the name it was given);

everything else is sent as it came. The server's bytes reach the bot as they come.
"""

from __future__ import annotations

from typing import Final

import trio

from protocol.errors import RemoteProtocolError
from protocol.framing import EndOfInput, LineFramer, NeedData

__all__ = ["relay"]

REFUSED: Final = frozenset({"CREATE", "WATCH", "REGISTER", "LOGIN"})
MAX_LINE: Final = 1 << 16
"""Bytes in one of the bot's lines; the server holds it to its own, smaller, limit."""


def rewrite(line: str, name: str, game: str) -> tuple[str | None, str | None]:
    """``(line for the server, line for the bot)``: what the relay does with one line."""
    words = line.split(None, 1)
    verb = words[0].upper() if words else ""
    if verb == "HELLO":
        return f"HELLO {name}", None
    if verb == "JOIN":
        return f"JOIN {game}", None
    if verb in REFUSED:
        return None, f"ERROR {verb} is not for bots in the arena"
    return line, None


async def relay(bot: trio.abc.Stream, server: trio.abc.Stream, name: str, game: str) -> None:
    """Relay between ``bot`` and ``server`` until either side ends; close both."""
    async with bot, server, trio.open_nursery() as nursery:

        async def downstream() -> None:
            try:
                async for chunk in server:
                    await bot.send_all(chunk)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
            nursery.cancel_scope.cancel()

        nursery.start_soon(downstream)
        framer = LineFramer(max_line_length=MAX_LINE)
        try:
            async for chunk in bot:
                framer.receive_data(bytes(chunk))
                await _forward(framer, bot, server, name, game)
            framer.receive_data(b"")
            await _forward(framer, bot, server, name, game)
        except (trio.BrokenResourceError, trio.ClosedResourceError, RemoteProtocolError):
            pass
        nursery.cancel_scope.cancel()


async def _forward(
    framer: LineFramer, bot: trio.abc.Stream, server: trio.abc.Stream, name: str, game: str
) -> None:
    if refusals := framer.data_to_send():
        await bot.send_all(refusals)
    while True:
        event = framer.next_event()
        if isinstance(event, NeedData | EndOfInput):
            return
        upstream, answer = rewrite(event, name, game)
        if upstream is not None:
            await server.send_all(upstream.encode() + b"\n")
        if answer is not None:
            await bot.send_all(answer.encode() + b"\n")
