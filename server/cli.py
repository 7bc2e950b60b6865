"""``dod-server`` (and ``python -m server``): run a Dungeon of Doom server."""

from __future__ import annotations

import argparse
import contextlib
import gc
import signal
import sys

import trio

from protocol.dialects import DEFAULT_DIALECT, DIALECTS
from worlds.errors import MapError
from worlds.registry import DEFAULT_WORLD, UnknownWorld, load_plugin, world_names

from .app import Server
from .config import DEFAULT_PORT, ServerConfig
from .dialects import parse_listen
from .logs import configure_logging


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dod-server",
        description="A multiplayer Dungeon of Doom server. Play it with "
        f"`nc 127.0.0.1 {DEFAULT_PORT}` and type HELP.",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: %(default)s)"
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help="TCP port; 0 picks a free one (default: %(default)s)",
    )
    parser.add_argument(
        "--dialect",
        default=DEFAULT_DIALECT,
        choices=tuple(DIALECTS),
        help="what clients on --port (and on --listen ports without one) speak: "
        + "; ".join(f"{name}: {cls.summary}" for name, cls in DIALECTS.items())
        + " (default: %(default)s; see docs/dialects.md)",
    )
    parser.add_argument(
        "--listen",
        action="append",
        default=[],
        metavar="PORT[:DIALECT]",
        help="listen on PORT, whose clients speak DIALECT (default: --dialect); repeat to "
        "listen on several ports (--listen 40004 --listen 40005:2015); replaces --port",
    )
    parser.add_argument(
        "--world",
        default=DEFAULT_WORLD,
        help="world rules to play (default: %(default)s; see --list-worlds)",
    )
    parser.add_argument(
        "--map",
        default=None,
        help="map file, or the name of a shipped map (default: the world's own)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="random seed: same map, seed and moves give the same game (default: %(default)s)",
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        default=10_000,
        help="connections served at once (default: %(default)s)",
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=600.0,
        help="seconds of silence before a client is dropped; 0: never (default: %(default)s)",
    )
    parser.add_argument(
        "--replay-dir",
        default="replays",
        help="folder for the replay of every game (default: %(default)s)",
    )
    parser.add_argument("--no-replays", action="store_true", help="write no replays")
    parser.add_argument(
        "--turn-timeout",
        type=float,
        default=30.0,
        help="seconds a round waits for every player's action, in worlds with rounds "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--max-missed-turns",
        type=int,
        default=3,
        help="rounds in a row a player may miss before being removed (default: %(default)s)",
    )
    parser.add_argument(
        "--max-players",
        type=int,
        default=0,
        help="players at once in the default game; 0: as many as the map holds "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--max-games",
        type=int,
        default=64,
        help="games at once, created by clients or not (default: %(default)s)",
    )
    parser.add_argument(
        "--log-format",
        choices=("console", "json"),
        default="console",
        help="log output on standard error (default: %(default)s)",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=("debug", "info", "warning", "error"),
        help="(default: %(default)s)",
    )
    parser.add_argument(
        "--list-worlds", action="store_true", help="list the installed worlds and exit"
    )
    parser.add_argument(
        "--list-maps", action="store_true", help="list the shipped maps of --world and exit"
    )
    return parser


def _raise_file_limit() -> None:
    """Let the process hold as many sockets as the system allows it."""
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY or soft < hard:
            target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def _tune_garbage_collector() -> None:
    """Collect young objects less often.

    With a thousand connections the default thresholds start a full collection every
    few seconds, each a pause of 15-50 ms for every player at once (measured with the
    load benchmark's latency scenario); commands make few reference cycles, so the
    young generation can be far larger at little cost in memory.
    """
    gc.set_threshold(50_000, 20, 100)


async def _run(server: Server) -> None:
    """Serve until SIGINT or SIGTERM, then shut down cleanly."""
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def serve_then_stop(task_status: trio.TaskStatus[None]) -> None:
                try:
                    await server.run(task_status=task_status)
                finally:
                    nursery.cancel_scope.cancel()

            await nursery.start(serve_then_stop)
            for listen in server.listening:
                speaks = "" if listen.dialect == DEFAULT_DIALECT else f" (dialect {listen.dialect})"
                print(
                    f"dod-server: listening on {server.config.host}:{listen.port}{speaks}",
                    file=sys.stderr,
                    flush=True,
                )
            async for _ in signals:
                server.shutdown()
                break
            await trio.sleep_forever()  # until serve_then_stop cancels us


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.turn_timeout <= 0:
        parser.error("--turn-timeout must be more than 0 seconds")
    if args.max_missed_turns < 1 or args.max_games < 1 or args.max_players < 0:
        parser.error(
            "--max-missed-turns and --max-games must be at least 1, --max-players 0 or more"
        )
    for text in args.listen:
        try:
            parse_listen(text, args.dialect)
        except ValueError as error:
            parser.error(f"--listen: {error}")
    try:
        if args.list_worlds:
            for name in world_names():
                try:
                    summary = load_plugin(name).summary
                except Exception as error:
                    summary = f"(cannot be loaded: {error})"
                print(f"{name:10} {summary}")
            return 0
        plugin = load_plugin(args.world)
        if args.list_maps:
            print("\n".join(plugin.maps()))
            return 0
        config = ServerConfig(
            host=args.host,
            port=args.port,
            world=args.world,
            map=args.map,
            seed=args.seed,
            max_connections=args.max_connections,
            idle_timeout=args.idle_timeout or None,
            replay_dir=None if args.no_replays else args.replay_dir,
            turn_timeout=args.turn_timeout,
            max_missed_turns=args.max_missed_turns,
            max_players=args.max_players or None,
            max_games=args.max_games,
            dialect=args.dialect,
            listen=tuple(args.listen),
        )
        configure_logging(args.log_format, args.log_level)
        server = Server(config)
    except (UnknownWorld, MapError, OSError) as error:
        print(f"dod-server: error: {error}", file=sys.stderr)
        return 2
    _raise_file_limit()
    _tune_garbage_collector()
    try:
        trio.run(_run, server)
    except OSError as error:
        print(f"dod-server: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
