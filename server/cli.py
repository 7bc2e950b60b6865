"""``dod-server`` (and ``python -m dungeon_of_doom.server``): run a Dungeon of Doom server."""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import os
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Final, NoReturn

from dungeon_of_doom.worlds.errors import MapError
from dungeon_of_doom.worlds.registry import UnknownWorld, load_plugin, world_names

from .setup.config import DEFAULT_PORT, ConfigError, ServerConfig, add_arguments, load_config

# The rest of the server is imported where it is used: ``--help``, ``--print-config``
# and ``--list-worlds`` load none of it, and a server loads its store, its web face and
# its cluster only when its settings ask for them (tests/server/test_startup_imports.py).
if TYPE_CHECKING:
    import trio

    from .app import Server
    from .web import WebService


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, like every other start-up error."""

    def error(self, message: str) -> NoReturn:
        _fail(message)


def _fail(message: str) -> NoReturn:
    from .setup.logs import announce

    announce("dod-server", f"error: {message}", level="error")
    sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    """The ``dod-server`` flags: one per setting of :mod:`server.setup.config`, and the commands."""
    parser = _Parser(
        prog="dod-server",
        description="A multiplayer Dungeon of Doom server. Play it with "
        f"`nc 127.0.0.1 {DEFAULT_PORT}` and type HELP.",
    )
    parser.add_argument(
        "--list-worlds", action="store_true", help="list the installed worlds and exit"
    )
    parser.add_argument(
        "--list-maps", action="store_true", help="list the shipped maps of --world and exit"
    )
    parser.add_argument(
        "--cluster-status",
        action="store_true",
        help="list the live nodes of --cluster's cluster and their games, and exit "
        "(unix:PATH: the directory of --workers)",
    )
    parser.add_argument(
        "--print-config",
        action="store_true",
        help="print every setting, its value and where it came from (as TOML), and exit",
    )
    # Given by the parent of --workers to each worker it starts: which worker it is.
    parser.add_argument("--worker-number", type=int, default=None, help=argparse.SUPPRESS)
    add_arguments(parser)
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


async def _run(server: Server, worker: int | None = None) -> None:
    """Serve until SIGINT or SIGTERM, then shut down cleanly (draining first with
    ``--drain-timeout``), or until the parent that gave this process its lifeline ends
    (:mod:`commandline.lifeline`), then shut down at once. Told either before the
    server listens, it stops at once: nothing has been served. ``worker``: this is that
    worker of ``--workers``."""
    import trio

    from dungeon_of_doom.commandline import lifeline

    from .setup.logs import announce

    parent_gone = trio.Event()
    lifeline.hold(on_cut=partial(_set_from_thread, parent_gone, trio.lowlevel.current_trio_token()))
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def serve_then_stop(task_status: trio.TaskStatus[Server]) -> None:
                try:
                    await server.run(task_status=task_status)
                finally:
                    nursery.cancel_scope.cancel()

            started = trio.Event()
            nursery.start_soon(_stop_when_told, server, signals, parent_gone, started, nursery)
            await nursery.start(serve_then_stop)
            started.set()
            # Of --workers, the first alone says where they listen (they share the port);
            # each other says it serves there too.
            host = server.config.host
            for listen in server.listening if not worker else ():
                announce(
                    "dod-server",
                    f"listening on {listen.on(host)}",
                    port=listen.port,
                    dialect=listen.dialect,
                )
            if worker:
                ports = ", ".join(listen.on(host) for listen in server.listening)
                announce("dod-server", f"also serving {ports}")
            # What serving will want is loaded now, in a worker thread: a server without
            # its web face needs none of HTTP's libraries, and the clients of one that
            # has it are served while they load.
            web_face = await _load_deferred(server.config.http_port is not None)
            if web_face is not None:
                web: WebService = await nursery.start(web_face, server)
                announce("dod-server", f"web page at {web.url}", url=web.url)
            await trio.sleep_forever()  # until serve_then_stop cancels us


LOAD_RETRY: Final = (0.1, 5.0)
"""Seconds between two tries of a deferred load the process could not make (no file
descriptor left, every one a client's), doubling from the first to the second."""


async def _load_deferred(web: bool) -> Callable[..., Awaitable[object]] | None:
    """Load, once the server listens, what serving will want: ICU and argon2 (the first
    names compared, the first token hashed) and, if ``web``, the web face, whose
    ``serve_web`` it returns. A load the process cannot make now (every file descriptor
    taken by clients: ``EMFILE``) is tried again, never the end of the server."""
    import trio

    from .setup.logs import announce

    delay, longest = LOAD_RETRY
    while True:
        try:
            return await trio.to_thread.run_sync(_load, web)
        except (OSError, ImportError) as error:  # a library's file could not be opened
            announce("dod-server", f"cannot load yet ({error}); retrying", level="warning")
            await trio.sleep(delay)
            delay = min(delay * 2, longest)


def _load(web: bool) -> Callable[..., Awaitable[object]] | None:
    from dungeon_of_doom.records.names import load_libraries

    load_libraries()
    if not web:
        return None
    from .web import serve_web

    return serve_web


def _set_from_thread(event: trio.Event, token: trio.lowlevel.TrioToken) -> None:
    import trio

    with contextlib.suppress(trio.RunFinishedError):
        trio.from_thread.run_sync(event.set, trio_token=token)


async def _stop_when_told(
    server: Server,
    signals: AsyncIterator[int],
    parent_gone: trio.Event,
    started: trio.Event,
    everything: trio.Nursery,
) -> None:
    """Stop ``server`` at the first signal or once its parent is gone."""
    import trio

    from .setup.logs import announce

    told: list[str] = []

    async def on_signal(waiting: trio.CancelScope) -> None:
        async for _ in signals:
            told.append("signal")
            break
        waiting.cancel()

    async def on_parent_gone(waiting: trio.CancelScope) -> None:
        await parent_gone.wait()
        told.append("parent")
        waiting.cancel()

    async with trio.open_nursery() as waiting:
        waiting.start_soon(on_signal, waiting.cancel_scope)
        waiting.start_soon(on_parent_gone, waiting.cancel_scope)
    if not started.is_set():
        everything.cancel_scope.cancel()
    elif told[0] == "parent":
        announce("dod-server", "its parent process has ended: stopping", level="warning")
        server.shutdown()
    else:
        if server.config.drain_timeout is not None:
            await server.drain(server.config.drain_timeout)
        server.shutdown()


def _check_writable(directory: Path) -> None:
    """Refuse to start when replays could not be written (said at once, not per game)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        if not directory.is_dir() or not os.access(directory, os.W_OK | os.X_OK):
            raise PermissionError(errno.EACCES, "not a folder the server may write in")
    except OSError as error:
        reason = error.strerror or str(error)
        raise ConfigError(f"cannot write replays to {directory}: {reason}") from None


def _check_store(config: ServerConfig) -> None:
    """Refuse at start-up a store URL that can never work (``bogus://x``, a driver that
    is not installed): only a store that may come up later is retried while serving."""
    from dungeon_of_doom.records.urls import is_sqlite, safe_url, sqlite_file

    from .lobby.recording import records_url

    url = records_url(config)
    if url is None:
        return
    if is_sqlite(url):
        # SQLite's driver ships with Python: nothing to load before listening (the store,
        # SQLAlchemy and Alembic, loads once the server serves); its folder is made now.
        database = sqlite_file(url)
        try:
            if database is not None:
                database.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ConfigError(f"--db: {safe_url(url)}: {error.strerror or error}") from None
        return
    from dungeon_of_doom.records.store import Store, StoreError

    try:
        Store(url).close()  # parses the URL and loads its driver; connects to nothing
    except StoreError as error:
        raise ConfigError(f"--db: {error}") from None
    except Exception as error:  # sqlalchemy's own: no such dialect, a malformed URL
        first = str(error).strip().splitlines()
        reason = first[0] if first else type(error).__name__
        raise ConfigError(f"--db: {safe_url(url)}: {reason}") from None


def _startup_error(error: BaseException) -> str | None:
    """The one line to print for an error that stops the server starting, if it is one.

    Errors raised inside trio's nurseries arrive wrapped in exception groups; a
    group holding exactly one such error is that error.
    """
    from .setup.listening import ListenError

    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    if isinstance(error, ListenError | ConfigError | UnknownWorld | MapError | OSError):
        return str(error)
    return None


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    list_worlds, list_maps, print_config = args.list_worlds, args.list_maps, args.print_config
    cluster_status, worker = args.cluster_status, args.worker_number
    del args.list_worlds, args.list_maps, args.print_config, args.cluster_status
    del args.worker_number
    try:
        loaded = load_config(args)
        if print_config:
            print(loaded.describe())
            return 0
        config = loaded.config
        if cluster_status:
            if config.cluster is None:
                raise ConfigError(
                    "--cluster-status needs --cluster postgresql://... or unix:PATH "
                    "(the path --workers logs)"
                )
            if config.cluster.startswith("unix:"):
                from .cluster.embedded import cluster_status as embedded_status

                print(embedded_status(config.cluster.removeprefix("unix:")))
                return 0
            from .cluster.postgres_calls import cluster_status as status

            print(status(config.cluster))
            return 0
        if list_worlds:
            for name in world_names():
                try:
                    summary = load_plugin(name).summary
                except Exception as error:
                    summary = f"(cannot be loaded: {error})"
                print(f"{name:10} {summary}")
            return 0
        plugin = load_plugin(config.world)
        if list_maps:
            print("\n".join(plugin.maps()))
            return 0
        if config.replay_dir is not None:
            _check_writable(Path(config.replay_dir))
        _check_store(config)
        from .setup.logs import configure_logging

        if config.workers > 1:
            from .cluster.workers import run_workers
            from .setup.listening import ports_to_listen

            configure_logging(config.log_format, config.log_level)
            return run_workers(
                config.workers,
                config.host,
                ports_to_listen(config.listen, config.port, config.dialect),
                sys.argv[1:] if argv is None else argv,
                http=config.http_port is not None,
                embedded=config.cluster is None,
                drain_timeout=config.drain_timeout or 0.0,
            )
        configure_logging(config.log_format, config.log_level, worker=worker)
        from .app import Server

        server = Server(config)
    except (ConfigError, UnknownWorld, MapError, OSError) as error:
        _fail(str(error))
    _raise_file_limit()
    _tune_garbage_collector()
    import trio

    try:
        trio.run(_run, server, worker)
    except BaseException as error:
        message = _startup_error(error)
        if message is None:
            raise
        _fail(message)
    return 0


if __name__ == "__main__":
    sys.exit(main())
