"""Commands a client sends, as typed objects, and the parser that makes them.

:func:`parse_command` turns one line into a command object; ``command.to_line()``
goes the other way, for clients. Parsing is liberal, as RULES §1 asks: verbs and
directions in any letter case, spaces and tabs anywhere around the words. A line
that cannot be a command raises :class:`RemoteProtocolError` with a message meant
for the person who typed it (never fatal: the next line is read normally).

The 2013 commands are ``HELLO``, ``MOVE``, ``PICKUP``, ``LOOK`` and ``QUIT``; every
other verb here is one of our extensions (see ``docs/protocol.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Final

from .direction import Direction
from .errors import RemoteProtocolError

__all__ = [
    "MAX_NAME_LENGTH",
    "Command",
    "Hello",
    "Help",
    "Look",
    "Map",
    "Move",
    "Pickup",
    "Quit",
    "Stay",
    "parse_command",
    "printable",
]

MAX_NAME_LENGTH: Final = 24
HELP_HINT: Final = "send HELP for the list of commands"


class Command:
    """Base class of every command. ``verb`` is the word on the wire."""

    __slots__ = ()
    verb: ClassVar[str]

    def to_line(self) -> str:
        """The command as a client writes it, without the line terminator."""
        return self.verb


@dataclass(frozen=True, slots=True)
class Hello(Command):
    """``HELLO`` or ``HELLO <name>``: asks for the gold target; the name is an extension."""

    verb: ClassVar[str] = "HELLO"
    name: str | None = None

    def to_line(self) -> str:
        return f"HELLO {self.name}" if self.name else "HELLO"


@dataclass(frozen=True, slots=True)
class Move(Command):
    """``MOVE <direction>``."""

    verb: ClassVar[str] = "MOVE"
    direction: Direction

    def to_line(self) -> str:
        return f"MOVE {self.direction.name}"


@dataclass(frozen=True, slots=True)
class Pickup(Command):
    verb: ClassVar[str] = "PICKUP"


@dataclass(frozen=True, slots=True)
class Look(Command):
    verb: ClassVar[str] = "LOOK"


@dataclass(frozen=True, slots=True)
class Quit(Command):
    verb: ClassVar[str] = "QUIT"


@dataclass(frozen=True, slots=True)
class Help(Command):
    """Extension: lists the commands."""

    verb: ClassVar[str] = "HELP"


@dataclass(frozen=True, slots=True)
class Stay(Command):
    """Extension: spend a turn without moving (the monsters still move)."""

    verb: ClassVar[str] = "STAY"


@dataclass(frozen=True, slots=True)
class Map(Command):
    """Extension: the whole map, as far as the world lets a player see it."""

    verb: ClassVar[str] = "MAP"


def printable(text: str) -> bool:
    """True when ``text`` holds no control characters (so no terminal escapes)."""
    return text.isprintable()


def _sanitise(text: str, limit: int = 20) -> str:
    """A short, printable rendering of untrusted text, for error messages."""
    shown = "".join(ch if ch.isprintable() else "?" for ch in text[:limit])
    return shown + ("..." if len(text) > limit else "")


def _no_arguments(command: Command) -> Callable[[list[str]], Command]:
    def parse(args: list[str]) -> Command:
        if args:
            raise RemoteProtocolError(f"{command.verb} takes no arguments; {HELP_HINT}")
        return command

    return parse


def _parse_hello(args: list[str]) -> Command:
    if not args:
        return Hello()
    name = " ".join(args)
    if not printable(name):
        raise RemoteProtocolError("a name may hold only printable characters")
    if len(name) > MAX_NAME_LENGTH:
        raise RemoteProtocolError(f"a name may be at most {MAX_NAME_LENGTH} characters long")
    return Hello(name)


def _parse_move(args: list[str]) -> Command:
    if len(args) != 1:
        raise RemoteProtocolError(
            f"MOVE takes one direction, N, S, E or W (for example MOVE N); {HELP_HINT}"
        )
    direction = Direction.parse(args[0])
    if direction is None:
        raise RemoteProtocolError(
            f'"{_sanitise(args[0])}" is not a direction; use N, S, E or W '
            "(or NE, SE, SW, NW where the world allows diagonal moves)"
        )
    return Move(direction)


_PARSERS: Final[dict[str, Callable[[list[str]], Command]]] = {
    "HELLO": _parse_hello,
    "MOVE": _parse_move,
    "PICKUP": _no_arguments(Pickup()),
    "LOOK": _no_arguments(Look()),
    "QUIT": _no_arguments(Quit()),
    "HELP": _no_arguments(Help()),
    "STAY": _no_arguments(Stay()),
    "MAP": _no_arguments(Map()),
}

VERBS: Final = frozenset(_PARSERS)


def parse_command(line: str) -> Command | None:
    """Parse one line; ``None`` for a blank line, which is not an error.

    Raises :class:`RemoteProtocolError` for anything that is not a command.
    """
    words = line.split()
    if not words:
        return None
    verb = words[0].upper()
    parse = _PARSERS.get(verb)
    if parse is None:
        raise RemoteProtocolError(f'unknown command "{_sanitise(words[0])}"; {HELP_HINT}')
    return parse(words[1:])
