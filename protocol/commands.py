"""Commands a client sends, as typed objects, and the parser that makes them.

:func:`parse_command` turns one line into a command object; ``command.to_line()``
goes the other way, for clients. Parsing is liberal, as RULES §1 asks: verbs and
directions in any letter case, spaces and tabs anywhere around the words. A line
that cannot be a command raises :class:`RemoteProtocolError` with a message meant
for the person who typed it (never fatal: the next line is read normally).

The 2013 commands are ``HELLO``, ``MOVE``, ``PICKUP``, ``LOOK`` and ``QUIT``; every
other verb here is one of our extensions (see ``docs/protocol.md``).

Each verb is declared once, in :data:`DECLARED_VERBS` (a :class:`Verb`): its command
class, its parser, who answers it on the server (:class:`Route`), its ``HELP`` line and
the name of its client method. The parser table here, the server's routes
(:mod:`server.session.client`), ``HELP`` (:mod:`server.game.wording`) and the client library
(:mod:`clients.core`) are derived from it, and tests hold each to it. A read-only
verb (:attr:`Route.ASK`) also declares its answer, from what the session knows of its
client (:class:`Asker`), and needs no server code of its own.

Untrusted text is checked here, once: a player name or a chat message holding a
control character (and so any terminal escape sequence) is refused, so every
name and message a command carries is printable.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Final, Protocol

from .capabilities import EXTEND_HELP
from .direction import Direction
from .errors import RemoteProtocolError
from .replies import GameInfo, Identity, Reply

__all__ = [
    "DECLARED_VERBS",
    "MAX_NAME_LENGTH",
    "VERBS",
    "ApGet",
    "Asker",
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
    "Origin",
    "Pickup",
    "Quit",
    "Register",
    "Route",
    "Shout",
    "Shown",
    "Stay",
    "Verb",
    "Watch",
    "WhoAmI",
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
    """Extension: ``CREATE <game> <world> [map=<m>] [seed=<n>] [players=<n>] [turn=<s>]
    [start=full]``."""

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


@dataclass(frozen=True, slots=True)
class WhoAmI(Command):
    """Extension: ``WHOAMI``, the name the player goes by and its game (``Identity``)."""

    verb: ClassVar[str] = "WHOAMI"


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


_CREATE_USAGE: Final = (
    "CREATE <game> <world> [map=<map>] [seed=<n>] [players=<n>] [turn=<seconds>] [start=full]"
)


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


# -- the verbs, each declared once ---------------------------------------------------


class Route(enum.Enum):
    """Who answers a verb on the server."""

    SESSION = "session"
    """The client's own session (``QUIT``, ``HELP``, ``EXTEND``; ``HELLO`` checks a
    claimed name there before its game answers it)."""
    ASK = "ask"
    """A read-only question answered from what the session knows of its client
    (:class:`Asker`), by the verb's :attr:`Verb.answer`: no server code of its own."""
    LOBBY = "lobby"
    """The lobby: the games on the server."""
    LADDER = "ladder"
    """The ladder: ratings and claimed names (a server that keeps records)."""
    GAME = "game"
    """The game the client plays or watches."""


class Origin(enum.Enum):
    """Where a verb comes from, which says whether every server knows it."""

    SPEC = "spec"
    """The 2013 specification: every server knows it."""
    TURNS = "turns"
    """The 2013 multiplayer rules (turns), as the 2015 servers also spoke them."""
    OURS = "ours"
    """Our extension: a server of another era may not know it (``docs/protocol.md``)."""


class Shown(enum.Enum):
    """When ``HELP`` lists a verb."""

    ALWAYS = "always"
    """Among the game's commands."""
    EXTENSION = "extension"
    """Among the extensions about more than the game (the server, chat, games, ratings)."""
    STAY = "stay"
    """In a world that allows ``STAY``."""
    TURNS = "turns"
    """In a world played in turns."""


class Asker(Protocol):
    """What a read-only verb (:attr:`Route.ASK`) may read of the client that asks; the
    server's session is one."""

    @property
    def label(self) -> str:
        """How the client is shown in its game: its name, ``#<n>`` for a player without
        one, ``#`` when it does not play there (not yet, or it watches)."""
        ...

    @property
    def game(self) -> GameInfo:
        """The game the client plays or watches, as ``GAMES`` lists it."""
        ...


@dataclass(frozen=True, slots=True)
class Verb:
    """One verb, declared once: from these declarations the parser (:func:`parse_command`),
    the server's routes, ``HELP`` and the client library's methods are derived."""

    command: type[Command]
    """The command class; its ``verb`` is the word on the wire."""
    parse: Callable[[list[str]], Command]
    """The command the words after the verb make; :class:`RemoteProtocolError` if none."""
    route: Route
    usage: str
    """How ``HELP`` writes the verb and its arguments (``MOVE <dir>``)."""
    does: str
    """What ``HELP`` says it does; ``{directions}`` stands for the world's directions."""
    client: str | None
    """The name of the client library's method for it (``None``: it has none)."""
    origin: Origin = Origin.OURS
    shown: Shown = Shown.ALWAYS
    answer: Callable[[Asker], Reply] | None = None
    """The reply to a read-only verb (:attr:`Route.ASK`), from what its client is."""

    @property
    def word(self) -> str:
        return self.command.verb

    def help_line(self, directions: str) -> str:
        """The verb's line in ``HELP``: usage, then what it does from column 16 (a usage
        of 15 characters or more has no description: it says it all)."""
        does = self.does.replace("{directions}", directions)
        return f"{self.usage:<14} {does}".rstrip() if does else self.usage


def _verb(
    command: type[Command],
    parse: Callable[[list[str]], Command],
    route: Route,
    usage: str,
    does: str = "",
    *,
    client: str | None,
    origin: Origin = Origin.OURS,
    shown: Shown = Shown.ALWAYS,
    answer: Callable[[Asker], Reply] | None = None,
) -> Verb:
    if (route is Route.ASK) != (answer is not None):
        raise ValueError(f"{command.verb}: a read-only verb, and only one, has an answer")
    if does and len(usage) > 14:
        raise ValueError(f"{command.verb}: a usage this long leaves no room to say what it does")
    return Verb(command, parse, route, usage, does, client, origin, shown, answer)


DECLARED_VERBS: Final[tuple[Verb, ...]] = (
    _verb(
        Hello,
        _parse_hello,
        Route.SESSION,
        "HELLO [name]",
        "the gold you need to win; with a name, also sets your name",
        client="hello",
        origin=Origin.SPEC,
    ),
    _verb(
        Move,
        _parse_move,
        Route.GAME,
        "MOVE <dir>",
        "move one square; directions here: {directions}",
        client="move",
        origin=Origin.SPEC,
    ),
    _verb(
        Pickup,
        _no_arguments(Pickup()),
        Route.GAME,
        "PICKUP",
        "pick up what lies on your square (see the notes below)",
        client="pickup",
        origin=Origin.SPEC,
    ),
    _verb(
        Look,
        _no_arguments(Look()),
        Route.GAME,
        "LOOK",
        "the 5x5 view around you (X marks the corners, # is off the map)",
        client="look",
        origin=Origin.SPEC,
    ),
    _verb(
        Stay,
        _no_arguments(Stay()),
        Route.GAME,
        "STAY",
        "let one turn pass without moving",
        client="stay",
        shown=Shown.STAY,
    ),
    _verb(
        Attack,
        _parse_attack,
        Route.GAME,
        "ATTACK <dir>",
        "strike the player on the next square: SUCCESS a hit, FAIL a miss",
        client="attack",
        origin=Origin.TURNS,
        shown=Shown.TURNS,
    ),
    _verb(
        EndTurn,
        _no_arguments(EndTurn()),
        Route.GAME,
        "ENDTURN",
        "end your turn now (SUCCESS)",
        client="end_turn",
        origin=Origin.TURNS,
        shown=Shown.TURNS,
    ),
    _verb(
        ApGet,
        _no_arguments(ApGet()),
        Route.GAME,
        "APGET",
        "AP <n>: your action points left this turn (0 off your turn)",
        client="action_points",
        origin=Origin.TURNS,
        shown=Shown.TURNS,
    ),
    _verb(
        HpGet,
        _no_arguments(HpGet()),
        Route.GAME,
        "HPGET",
        "HP <n>: your hit points",
        client="hit_points",
        origin=Origin.TURNS,
        shown=Shown.TURNS,
    ),
    _verb(Map, _no_arguments(Map()), Route.GAME, "MAP", "the whole map", client="map"),
    _verb(
        Quit,
        _no_arguments(Quit()),
        Route.SESSION,
        "QUIT",
        "leave the game",
        client="quit",
        origin=Origin.SPEC,
    ),
    _verb(Help, _no_arguments(Help()), Route.SESSION, "HELP", "this list", client="help"),
    _verb(
        Extend,
        _parse_extend,
        Route.SESSION,
        "EXTEND [caps]",
        EXTEND_HELP,
        client="extend",
        shown=Shown.EXTENSION,
    ),
    _verb(
        Shout,
        _parse_shout,
        Route.GAME,
        "SHOUT <text>",
        "a message to everyone in your game",
        client="shout",
        shown=Shown.EXTENSION,
    ),
    _verb(
        Games,
        _no_arguments(Games()),
        Route.LOBBY,
        "GAMES",
        "list the games on this server",
        client="games",
        shown=Shown.EXTENSION,
    ),
    _verb(
        Create,
        _parse_create,
        Route.LOBBY,
        "CREATE <game> <world> [map=<m>] [seed=<n>] [players=<n>] [turn=<s>] [start=full]",
        client="create",
        shown=Shown.EXTENSION,
    ),
    _verb(
        Join,
        lambda args: Join(_game_name("JOIN", args)),
        Route.LOBBY,
        "JOIN <game>",
        "play in another game",
        client="join",
        shown=Shown.EXTENSION,
    ),
    _verb(
        Watch,
        lambda args: Watch(_game_name("WATCH", args)),
        Route.LOBBY,
        "WATCH <game>",
        "follow a game as a spectator",
        client="watch",
        shown=Shown.EXTENSION,
    ),
    _verb(
        WhoAmI,
        _no_arguments(WhoAmI()),
        Route.ASK,
        "WHOAMI",
        "your name here (#<n> without one) and your game",
        client="whoami",
        shown=Shown.EXTENSION,
        answer=lambda asker: Identity(asker.label, asker.game.name),
    ),
    _verb(
        Leaderboard,
        _parse_leaderboard,
        Route.LADDER,
        "LEADERBOARD",
        "[world] [best]: a world's ratings, or its best solo results per map",
        client=None,
        shown=Shown.EXTENSION,
    ),
    _verb(
        Register,
        _parse_register,
        Route.LADDER,
        "REGISTER <n>",
        "claim the name n; the answer holds its secret token, once",
        client=None,
        shown=Shown.EXTENSION,
    ),
    _verb(
        Login,
        _parse_login,
        Route.LADDER,
        "LOGIN <n> <t>",
        "play as the name n you claimed, with its token t",
        client=None,
        shown=Shown.EXTENSION,
    ),
)
"""Every verb, in the order ``HELP`` lists them (the 2013 ones and the game's first)."""

_PARSERS: Final[dict[str, Callable[[list[str]], Command]]] = {
    verb.word: verb.parse for verb in DECLARED_VERBS
}
VERBS: Final = frozenset(_PARSERS)
"""Every verb's word on the wire."""


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
