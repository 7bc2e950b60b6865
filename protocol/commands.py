"""Commands a client sends, as typed objects, and the parser that makes them.

:func:`parse_command` turns one line into a command object; ``command.to_line()``
goes the other way, for clients. Parsing is liberal, as RULES §1 asks: verbs and
directions in any letter case, spaces and tabs anywhere around the words. A line
that cannot be a command raises :class:`RemoteProtocolError` with a message meant
for the person who typed it (never fatal: the next line is read normally).

The 2013 commands are ``HELLO``, ``MOVE``, ``PICKUP``, ``LOOK`` and ``QUIT``; every
other verb here is one of our extensions (see ``docs/protocol.md``).

Untrusted text is checked here, once: a player name or a chat message holding a
control character (and so any terminal escape sequence) is refused, so every
name and message a command carries is printable.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Final

from .direction import Direction
from .errors import RemoteProtocolError

__all__ = [
    "MAX_NAME_LENGTH",
    "ApGet",
    "Attack",
    "Command",
    "Create",
    "EndTurn",
    "Extend",
    "Games",
    "Hello",
    "Help",
    "HpGet",
    "Join",
    "Leaderboard",
    "Login",
    "Look",
    "Map",
    "Move",
    "Pickup",
    "Quit",
    "Register",
    "Shout",
    "Stay",
    "Watch",
    "parse_command",
    "printable",
]

MAX_NAME_LENGTH: Final = 24
MAX_GAME_NAME_LENGTH: Final = 24
MAX_PLAYER_LIMIT: Final = 1000
HELP_HINT: Final = "send HELP for the list of commands"
GAME_NAME = re.compile(rf"[A-Za-z0-9_-]{{1,{MAX_GAME_NAME_LENGTH}}}")
"""What a game may be called: letters, digits, ``_`` and ``-``."""


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


@dataclass(frozen=True, slots=True)
class Extend(Command):
    """Extension: ``EXTEND [capability ...]`` asks for the extended protocol.

    No capability named means the default set; names are lower-cased here and
    the server answers with those it enabled.
    """

    verb: ClassVar[str] = "EXTEND"
    capabilities: tuple[str, ...] = ()

    def to_line(self) -> str:
        return " ".join(("EXTEND", *self.capabilities))


@dataclass(frozen=True, slots=True)
class Shout(Command):
    """Extension: ``SHOUT <text>``, a chat message to everyone in the game."""

    verb: ClassVar[str] = "SHOUT"
    text: str

    def to_line(self) -> str:
        return f"SHOUT {self.text}"


@dataclass(frozen=True, slots=True)
class Games(Command):
    """Extension: list the games on the server."""

    verb: ClassVar[str] = "GAMES"


@dataclass(frozen=True, slots=True)
class Create(Command):
    """Extension: ``CREATE <game> <world> [map=<m>] [seed=<n>] [players=<n>] [turn=<s>]``."""

    verb: ClassVar[str] = "CREATE"
    game: str
    world: str
    map: str | None = None
    seed: int = 0
    players: int | None = None
    """The most players at once; ``None``: no limit."""
    turn: float | None = None
    """Seconds a round waits for actions; ``None``: the server's setting."""
    start_full: bool = False
    """``start=full``: no action is played until ``players`` players have joined (a
    tournament's games begin the same way every time)."""

    def to_line(self) -> str:
        words = ["CREATE", self.game, self.world]
        if self.map is not None:
            words.append(f"map={self.map}")
        words.append(f"seed={self.seed}")
        if self.players is not None:
            words.append(f"players={self.players}")
        if self.turn is not None:
            words.append(f"turn={self.turn:g}")
        if self.start_full:
            words.append("start=full")
        return " ".join(words)


@dataclass(frozen=True, slots=True)
class Join(Command):
    """Extension: ``JOIN <game>``, play in another game."""

    verb: ClassVar[str] = "JOIN"
    game: str

    def to_line(self) -> str:
        return f"JOIN {self.game}"


@dataclass(frozen=True, slots=True)
class Watch(Command):
    """Extension: ``WATCH <game>``, follow a game read-only as a spectator."""

    verb: ClassVar[str] = "WATCH"
    game: str

    def to_line(self) -> str:
        return f"WATCH {self.game}"


# -- the turn commands of the battle world (the 2013 multiplayer rules) --------------


@dataclass(frozen=True, slots=True)
class Attack(Command):
    """Extension: ``ATTACK <direction>``, strike the player on the next square."""

    verb: ClassVar[str] = "ATTACK"
    direction: Direction

    def to_line(self) -> str:
        return f"ATTACK {self.direction.name}"


@dataclass(frozen=True, slots=True)
class EndTurn(Command):
    """Extension: ``ENDTURN``, give up the rest of this turn's action points."""

    verb: ClassVar[str] = "ENDTURN"


@dataclass(frozen=True, slots=True)
class ApGet(Command):
    """Extension: ``APGET``, the action points left in this turn (``AP <n>``)."""

    verb: ClassVar[str] = "APGET"


@dataclass(frozen=True, slots=True)
class HpGet(Command):
    """Extension: ``HPGET``, the player's hit points (``HP <n>``)."""

    verb: ClassVar[str] = "HPGET"


@dataclass(frozen=True, slots=True)
class Leaderboard(Command):
    """Extension: ``LEADERBOARD [world] [best]``, the ratings of a world (the player's own
    by default); with ``best``, its best results per map instead (``BESTS``)."""

    verb: ClassVar[str] = "LEADERBOARD"
    world: str | None = None
    best: bool = False

    def to_line(self) -> str:
        words = [
            "LEADERBOARD",
            *([self.world] if self.world else []),
            *(["best"] if self.best else []),
        ]
        return " ".join(words)


@dataclass(frozen=True, slots=True)
class Register(Command):
    """Extension: ``REGISTER <name>`` claims a name; the answer holds its secret token, once."""

    verb: ClassVar[str] = "REGISTER"
    name: str

    def to_line(self) -> str:
        return f"REGISTER {self.name}"


@dataclass(frozen=True, slots=True)
class Login(Command):
    """Extension: ``LOGIN <name> <token>`` plays as a claimed name (the token is its last word)."""

    verb: ClassVar[str] = "LOGIN"
    name: str
    token: str

    def to_line(self) -> str:
        return f"LOGIN {self.name} {self.token}"

    def __repr__(self) -> str:  # the token is a secret: never in a log or a traceback
        return f"Login(name={self.name!r}, token='***')"


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
    return Hello(_player_name(args)) if args else Hello()


def _player_name(args: list[str]) -> str:
    """The name ``args`` spell, checked as every name a player may take."""
    name = " ".join(args)
    if not printable(name):
        raise RemoteProtocolError("a name may hold only printable characters")
    if len(name) > MAX_NAME_LENGTH:
        raise RemoteProtocolError(f"a name may be at most {MAX_NAME_LENGTH} characters long")
    # ":" ends the sender's name in pushed lines ("MESSAGE Ada: hi") and "#3" is
    # how a player without a name is shown, so neither may be forged.
    if ":" in name:
        raise RemoteProtocolError("a name may not hold ':'")
    if name.startswith("#"):
        raise RemoteProtocolError("a name may not begin with '#'")
    return name


def _parse_leaderboard(args: list[str]) -> Command:
    best = bool(args) and args[-1].lower() == "best"
    if best:
        args = args[:-1]
    if len(args) > 1:
        raise RemoteProtocolError(
            f"LEADERBOARD takes at most one world's name, then 'best'; {HELP_HINT}"
        )
    return Leaderboard(args[0].lower() if args else None, best)


def _parse_register(args: list[str]) -> Command:
    if not args:
        raise RemoteProtocolError("REGISTER takes the name to claim (for example REGISTER Ada)")
    return Register(_player_name(args))


def _parse_login(args: list[str]) -> Command:
    if len(args) < 2:
        raise RemoteProtocolError(
            "LOGIN takes a name and its token (for example LOGIN Ada <token>)"
        )
    return Login(_player_name(args[:-1]), args[-1])


def _parse_extend(args: list[str]) -> Command:
    return Extend(tuple(word.lower() for word in args))


def _parse_shout(args: list[str]) -> Command:
    if not args:
        raise RemoteProtocolError(f"SHOUT takes a message (for example SHOUT hello); {HELP_HINT}")
    text = " ".join(args)
    if not printable(text):
        raise RemoteProtocolError("a message may hold only printable characters")
    return Shout(text)


def _game_name(verb: str, args: list[str]) -> str:
    if len(args) != 1:
        raise RemoteProtocolError(f"{verb} takes the name of one game; send GAMES for the list")
    return _check_game_name(args[0])


def _check_game_name(name: str) -> str:
    if GAME_NAME.fullmatch(name) is None:
        raise RemoteProtocolError(
            f'"{_sanitise(name)}" is not a game name; use letters, digits, _ and -, '
            f"at most {MAX_GAME_NAME_LENGTH}"
        )
    return name


def _number(key: str, text: str, kind: type[int] | type[float]) -> int | float:
    try:
        value = kind(text)
    except ValueError:
        raise RemoteProtocolError(f'{key}= takes a number, not "{_sanitise(text)}"') from None
    if kind is float and not 0 < value < 86400:
        raise RemoteProtocolError(f"{key}= takes seconds between 0 and 86400")
    return value


_CREATE_USAGE: Final = "CREATE <game> <world> [map=<map>] [seed=<n>] [players=<n>] [turn=<seconds>]"


def _parse_create(args: list[str]) -> Command:
    if len(args) < 2:
        raise RemoteProtocolError(f"usage: {_CREATE_USAGE}")
    game = _check_game_name(args[0])
    world = args[1].lower()
    options: dict[str, str] = {}
    for word in args[2:]:
        key, equals, value = word.partition("=")
        key = key.lower()
        if not equals or key not in ("map", "seed", "players", "turn", "start") or not value:
            raise RemoteProtocolError(f'unknown option "{_sanitise(word)}"; usage: {_CREATE_USAGE}')
        if key in options:
            raise RemoteProtocolError(f"{key}= given twice")
        options[key] = value
    map_spec = options.get("map")
    if map_spec is not None and not printable(map_spec):
        raise RemoteProtocolError("a map name may hold only printable characters")
    seed = int(_number("seed", options.get("seed", "0"), int))
    players = None
    if "players" in options:
        players = int(_number("players", options["players"], int))
        if not 1 <= players <= MAX_PLAYER_LIMIT:
            raise RemoteProtocolError(f"players= takes a number from 1 to {MAX_PLAYER_LIMIT}")
    turn = float(_number("turn", options["turn"], float)) if "turn" in options else None
    start = options.get("start")
    if start is not None and (start.lower() != "full" or players is None):
        raise RemoteProtocolError("start= takes only full, and with players=<n>")
    return Create(game, world, map_spec, seed, players, turn, start is not None)


def _direction(verb: str, args: list[str]) -> Direction:
    if len(args) != 1:
        raise RemoteProtocolError(
            f"{verb} takes one direction, N, S, E or W (for example {verb} N); {HELP_HINT}"
        )
    direction = Direction.parse(args[0])
    if direction is None:
        raise RemoteProtocolError(
            f'"{_sanitise(args[0])}" is not a direction; use N, S, E or W '
            "(or NE, SE, SW, NW where the world allows diagonal moves)"
        )
    return direction


def _parse_move(args: list[str]) -> Command:
    return Move(_direction("MOVE", args))


def _parse_attack(args: list[str]) -> Command:
    return Attack(_direction("ATTACK", args))


_PARSERS: Final[dict[str, Callable[[list[str]], Command]]] = {
    "HELLO": _parse_hello,
    "MOVE": _parse_move,
    "PICKUP": _no_arguments(Pickup()),
    "LOOK": _no_arguments(Look()),
    "QUIT": _no_arguments(Quit()),
    "HELP": _no_arguments(Help()),
    "STAY": _no_arguments(Stay()),
    "MAP": _no_arguments(Map()),
    "EXTEND": _parse_extend,
    "SHOUT": _parse_shout,
    "GAMES": _no_arguments(Games()),
    "CREATE": _parse_create,
    "JOIN": lambda args: Join(_game_name("JOIN", args)),
    "WATCH": lambda args: Watch(_game_name("WATCH", args)),
    "LEADERBOARD": _parse_leaderboard,
    "REGISTER": _parse_register,
    "LOGIN": _parse_login,
    "ATTACK": _parse_attack,
    "ENDTURN": _no_arguments(EndTurn()),
    "APGET": _no_arguments(ApGet()),
    "HPGET": _no_arguments(HpGet()),
}

VERBS: Final = frozenset(_PARSERS)


def _parse_words(line: str) -> Command | None:
    words = line.split()
    if not words:
        return None
    verb = words[0].upper()
    parse = _PARSERS.get(verb)
    if parse is None:
        raise RemoteProtocolError(f'unknown command "{_sanitise(words[0])}"; {HELP_HINT}')
    return parse(words[1:])


# The lines bots send most, parsed once. Commands are frozen, so every such line can
# share one object; a look-up costs a twentieth of splitting and dispatching.
_CANONICAL: Final[dict[str, Command | None]] = {
    line: _parse_words(line)
    for line in (
        *(f"MOVE {d}" for d in ("N", "S", "E", "W", "NE", "SE", "SW", "NW")),
        *("LOOK", "PICKUP", "STAY", "HELLO", "MAP", "HELP", "QUIT", "EXTEND", "GAMES"),
    )
}
CANONICAL_LINES: Final[tuple[str, ...]] = tuple(_CANONICAL)
"""The lines bots send most, written the one canonical way (``MOVE N``, ``LOOK``)."""


def parse_command(line: str) -> Command | None:
    """Parse one line; ``None`` for a blank line, which is not an error.

    Raises :class:`RemoteProtocolError` for anything that is not a command.
    """
    command = _CANONICAL.get(line)
    return command if command is not None else _parse_words(line)
