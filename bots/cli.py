"""The command line and process life that every sample bot shares.

A bot module writes only its strategy, a function ``play(bot: Bot) -> str | None``,
and gets its entry point from :func:`bot_main`::

    def play(bot: Bot) -> str | None:
        while bot.may_move():
            ...                      # bot.client is a connected clients.Client
        return "move limit reached"

    main = bot_main("mybot", play, description="What it does.")

    if __name__ == "__main__":
        sys.exit(main())

What the runner does, so that a strategy need not:

* parses the shared options (``--host``, ``--port``, ``--game``, ``--seed``,
  ``--name``, ``--timeout``, ``--max-moves``, ``--progress``) plus any the bot adds;
* connects, declares itself a bot (``EXTEND bot``, so others see ``B``; a
  server without extensions refuses it and the bot plays on), sends
  ``JOIN <game>`` when ``--game`` names one, and ``HELLO [name]``, all before
  calling ``play`` (so ``bot.client.goal`` is known);
* ``play`` returns ``None`` when it believes the game is over (the runner waits
  for the final line), or a reason to stop (the runner sends ``QUIT``). In a
  game joined with ``--game`` whose actions are paced (``turn=`` a limit), a
  bot without events first sends ``LOOK``, which the server answers on the
  bot's turn, so that it leaves on its own turn: one who leaves on another's
  turn vanishes from their view at a moment set by how fast each connection
  is, and the same tournament would not give the same games. A bot with
  events leaves on its turn by its own strategy (:mod:`bots.battle`). A
  :class:`~clients.errors.ServerClosed` raised inside ``play`` (the game ended
  under it) is a normal end;
* an action the server refused a few times on an unchanged state is not sent again
  (:mod:`bots.guard`): the bot says ``QUIT`` and reports ``quit``, the detail saying
  ``stuck:`` and which action;
* ``SIGINT`` and ``SIGTERM`` stop the bot: it says ``QUIT`` and reports
  ``interrupted``;
* a bot that plays only some worlds (``worlds=``) asks the server which world
  its game is of (``JOIN``'s answer, or ``GAMES``) before playing, and ends as
  ``error`` naming the world it needs when it is pointed at another; a strategy
  that fails on a game it was not written for anyway (a server without
  ``GAMES``) ends as ``error`` too, its detail saying why and which world it
  needs, never with a traceback in place of the result line;
* prints one result line (:mod:`bots.result`) and returns the exit status: 0
  for a played game, 1 when the bot could not play, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import signal
import time
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Final, Protocol

from clients import (
    DEFAULT_PORT,
    Client,
    ClientError,
    CommandError,
    GameInfo,
    Lose,
    ServerClosed,
    Win,
)
from commandline import lifeline

from .guard import GuardedClient, Stuck
from .result import BotResult, Progress

__all__ = ["Bot", "PlayFunction", "bot_main", "build_parser"]

DEFAULT_GAME: Final = "default"
"""The game a client plays in until it ``JOIN``s another (the server's own name for it)."""
PROGRESS_INTERVAL: Final = 0.25
"""Seconds between two progress lines."""
QUIT_TIMEOUT: Final = 2.0
"""Seconds an interrupted bot waits for the answer to its ``QUIT``."""


class Bot:
    """What ``play`` receives: the connected client, the options, a seeded random source."""

    def __init__(self, kind: str, client: Client, options: argparse.Namespace) -> None:
        self.kind = kind
        self.client = client
        self.options = options
        self.rng = random.Random(options.seed)
        self._next_progress = 0.0
        #: Gold the bot counted itself, where the world hands it over without a
        #: ``PICKUP`` (crawler treasure is taken on entry); ``None``: the client's count.
        self.gold: int | None = None
        #: Whether the bot plays unnamed: the server refused the name it made up.
        self.unnamed = False

    @property
    def held(self) -> int:
        """Gold held, as the bot's result and progress lines report it."""
        return self.client.gold if self.gold is None else self.gold

    @property
    def name(self) -> str:
        """The name the bot plays under, as its lines report it ("" if unnamed)."""
        return "" if self.unnamed else _name(self.kind, self.options)

    def may_move(self) -> bool:
        """False once the bot has made ``--max-moves`` moves; reports progress as it goes."""
        self.progress()
        limit = self.options.max_moves
        return limit is None or self.client.moves < limit

    def progress(self) -> None:
        """Print a progress line if ``--progress`` asked for them and one is due."""
        if not self.options.progress:
            return
        now = time.monotonic()
        if now >= self._next_progress:
            self._next_progress = now + PROGRESS_INTERVAL
            client = self.client
            print(Progress(self.name, client.moves, self.held).to_line(), flush=True)


PlayFunction = Callable[[Bot], "str | None"]


def build_parser(
    kind: str, description: str, *, default_max_moves: int | None = None
) -> argparse.ArgumentParser:
    """The options every bot takes; a bot may add its own.

    ``default_max_moves`` is the move limit when ``--max-moves`` is not given: a bot
    that may never end on its own (one that wanders) needs one.
    """
    parser = argparse.ArgumentParser(prog=f"dod-bot-{kind}", description=description)
    parser.add_argument("--host", default="127.0.0.1", help="server address (default: %(default)s)")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help="server port (default: %(default)s)"
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="seed of the bot's own random choices"
    )
    parser.add_argument(
        "--name", default=None, help="player name to ask for with HELLO (default: KIND-PID)"
    )
    parser.add_argument(
        "--game",
        default=None,
        help="JOIN this game on the server first (default: the default game)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        help="seconds to wait for each answer (default: %(default)s)",
    )
    limit = "no limit" if default_max_moves is None else "%(default)s"
    parser.add_argument(
        "--max-moves",
        type=_move_limit,
        default=default_max_moves,
        help=f"stop (QUIT) after this many moves (default: {limit})",
    )
    parser.add_argument(
        "--progress",
        action="store_true",
        help="print a JSON progress line every quarter second while playing",
    )
    return parser


class BotMain(Protocol):
    """A bot's console entry point: ``main(argv=None)``, the exit status."""

    def __call__(self, argv: Sequence[str] | None = None) -> int: ...


def bot_main(
    kind: str,
    play: PlayFunction,
    *,
    description: str,
    add_arguments: Callable[[argparse.ArgumentParser], None] | None = None,
    default_max_moves: int | None = None,
    worlds: tuple[str, ...] = (),
) -> BotMain:
    """The ``main(argv=None) -> exit status`` of a bot; see the module docstring.

    ``worlds``: the worlds the bot plays; ``()``, any world."""

    def main(argv: Sequence[str] | None = None) -> int:
        parser = build_parser(kind, description, default_max_moves=default_max_moves)
        if add_arguments is not None:
            add_arguments(parser)
        options = parser.parse_args(argv)
        previous = signal.signal(signal.SIGTERM, _interrupt)
        lifeline.hold()  # started by a launcher or an arena that ended: stop as if SIGTERMed
        try:
            result = _run(kind, play, options, worlds)
        finally:
            signal.signal(signal.SIGTERM, previous)
        print(result.to_line(), flush=True)
        if result.outcome == "interrupted":
            return 130
        return 0 if result.played else 1

    return main


def _move_limit(text: str) -> int:
    try:
        limit = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if limit < 0:
        raise argparse.ArgumentTypeError("the move limit cannot be negative")
    return limit


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _hello(client: Client, bot: Bot) -> None:
    """``HELLO`` with the name the bot's lines report, so that its games are recorded
    (and rated) under it. A name the bot made up (no ``--name``) that the server
    refuses (ch739's takes eight characters at most) gives way to a plain ``HELLO``,
    and the bot reports that it played unnamed."""
    try:
        client.hello(bot.name)
    except CommandError:
        if bot.options.name is not None:
            raise
        client.hello()
        bot.unnamed = True


def _name(kind: str, options: argparse.Namespace) -> str:
    """The name a bot plays under: ``--name``, else its kind and process id."""
    return str(options.name or f"{kind}-{os.getpid()}")


def _needs(worlds: tuple[str, ...]) -> str:
    return " or ".join(worlds) + (" world" if len(worlds) == 1 else " worlds")


def _plays_in_turns(joined: GameInfo | None) -> bool:
    """Whether the game joined paces its actions (``turn=`` a time limit, not ``none``)."""
    return joined is not None and joined.turn is not None


def _world_of(client: Client, game: str, joined: GameInfo | None) -> str | None:
    """The world of the game the bot plays in; ``None`` if the server does not say."""
    if joined is not None:
        return joined.world
    try:
        games = client.games()
    except CommandError:  # a server without extensions: the strategy will find out
        return None
    return next((info.world for info in games if info.name == game), None)


def _run(
    kind: str, play: PlayFunction, options: argparse.Namespace, worlds: tuple[str, ...] = ()
) -> BotResult:
    started = time.monotonic()
    client: Client | None = None
    bot: Bot | None = None

    def result(outcome: str, detail: str) -> BotResult:
        return BotResult(
            bot=kind,
            name=bot.name if bot else _name(kind, options),
            outcome=outcome,
            gold=bot.held if bot else client.gold if client else 0,
            moves=client.moves if client else 0,
            seconds=round(time.monotonic() - started, 3),
            detail=detail,
            pid=os.getpid(),
        )

    try:
        client = GuardedClient.connect(options.host, options.port, timeout=options.timeout)
    except OSError as error:
        return result("error", f"cannot connect to {options.host}:{options.port}: {error}")
    except KeyboardInterrupt:
        return result("interrupted", "stopped before connecting")
    with client:
        bot = Bot(kind, client, options)
        try:
            with contextlib.suppress(CommandError):  # a server without extensions
                client.extend("bot")
            joined = None if options.game is None else client.join(options.game)
            if worlds:
                game = options.game or DEFAULT_GAME
                world = _world_of(client, game, joined)
                if world is not None and world not in worlds:
                    _say_quit(client)
                    return result(
                        "error",
                        f"this bot plays the {_needs(worlds)}; the game {game!r} on "
                        f"{options.host}:{options.port} is of the {world} world",
                    )
            _hello(client, bot)
            try:
                reason = play(bot)
            except Stuck as stuck:  # the strategy would repeat a refused action for ever
                reason = f"stuck: {stuck}"
            if reason is None:
                client.wait_closed()
            else:
                if _plays_in_turns(joined) and "events" not in client.capabilities:
                    client.look()  # answered on our turn: we leave on it (module docstring)
                client.quit()
                return result("quit", reason)
        except ServerClosed:
            pass
        except KeyboardInterrupt:
            _quit_quietly(client)
            return result("interrupted", "stopped by a signal")
        except (ClientError, OSError) as error:
            return result("error", str(error))
        except Exception as error:  # the strategy met a game it was not written for
            _say_quit(client)
            needs = f" (it plays the {_needs(worlds)})" if worlds else ""
            return result("error", f"this bot cannot play this game{needs}: {error}")
        final = client.final
        if isinstance(final, Win):
            return result("win", final.text)
        if isinstance(final, Lose):
            return result("lose", final.text)
        return result("closed", final.text if final else "the connection dropped")


def _quit_quietly(client: Client) -> None:
    """Say ``QUIT`` on the way out of an interrupt, ignoring a second signal and any failure."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _say_quit(client)


def _say_quit(client: Client) -> None:
    """``QUIT``, waiting a little for its answer; any failure is ignored (we are leaving)."""
    client.timeout = QUIT_TIMEOUT
    try:
        client.quit()
    except (ClientError, OSError):
        return
