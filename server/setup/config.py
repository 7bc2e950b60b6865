"""Server settings, each declared once, read from flags, the environment and a TOML file.

Every setting is a field of :class:`ServerConfig` made with :func:`setting`, which
holds its default, its help, and its range or choices. From that one declaration come

* the ``dod-server`` flag (``idle_timeout`` → ``--idle-timeout``),
* the environment variable (``DOD_IDLE_TIMEOUT``),
* the key of a TOML file given with ``--config server.toml`` (``idle_timeout = 60``),
* its line in ``dod-server --print-config``, and the check of every value, however
  it arrived (a :class:`ServerConfig` built in code is checked too).

One precedence order holds for every setting: **flags > environment > file >
defaults**. :func:`load_config` applies it and says where each value came from.

To add a setting, add one field; nothing else needs to know::

    max_widgets: int = setting(8, "widgets per game", ge=1, le=1000)

A setting that can be turned off has ``off``: the value that means ``None``
(``--idle-timeout 0`` is no idle time-out). Fields without :func:`setting` metadata
(``worlds``) are for programs that build a server in code and have no flag.

How a setting is read and checked is :mod:`server.setup.settings`; this module declares
the settings, and keeps every name its callers import.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from dungeon_of_doom.protocol.dialects import DEFAULT_DIALECT, DIALECTS
from dungeon_of_doom.protocol.framing import LONGEST_MAX_LINE_LENGTH as LONGEST_LINE
from dungeon_of_doom.worlds.api import WorldPlugin
from dungeon_of_doom.worlds.limits import CLIENT_LIMITS, OPERATOR_LIMITS
from dungeon_of_doom.worlds.registry import DEFAULT_WORLD

from . import settings as _reading
from .access import parse_names, parse_networks
from .listening import parse_listens
from .settings import CONFIG_ENV, ENV_PREFIX, ConfigError, LoadedConfig, Setting, setting
from .values import advertised_address, cluster_url, utf8_name

__all__ = [
    "BY_NAME",
    "CONFIG_ENV",
    "DEFAULT_PORT",
    "ENV_PREFIX",
    "SETTINGS",
    "ConfigError",
    "LoadedConfig",
    "ServerConfig",
    "Setting",
    "add_arguments",
    "load_config",
    "read_config_file",
    "setting",
]

DEFAULT_PORT: Final = 40004
"""The port the 2016 Dungeon of Doom clients connect to."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Everything a :class:`~server.app.Server` needs to know; every value is checked."""

    host: str = setting("127.0.0.1", "address to listen on", metavar="ADDRESS")
    port: int = setting(DEFAULT_PORT, "TCP port; 0 picks a free one", ge=0, le=65535)
    dialect: str = setting(
        DEFAULT_DIALECT,
        "what clients on --port (and --listen ports without one) speak: 2013, the "
        "specification; 2015, the Bath skeleton's clients; 2016, lib's clients "
        "(docs/dialects.md)",
        choices=tuple(DIALECTS),
    )
    listen: str = setting(
        "",
        "ports to listen on instead of --port, each PORT or PORT:DIALECT; repeat the "
        "flag (--listen 40004 --listen 40005:2015) or separate them with commas",
        metavar="PORT[:DIALECT]",
        repeat=True,
        validate=lambda text: parse_listens(text, DEFAULT_DIALECT),
    )
    world: str = setting(DEFAULT_WORLD, "world rules to play (see --list-worlds)")
    map: str | None = setting(
        None,
        "map file, shipped map's name or generated spec; unset: the world's own",
        validate=utf8_name,
    )
    """A map for the world: a path or a shipped map's name; ``None`` is the world's default."""
    seed: int = setting(
        0, "random seed: same map, seed and moves give the same game", ge=0, le=2**63 - 1
    )
    max_connections: int = setting(10_000, "connections served at once", ge=1, le=1_000_000)
    max_connections_per_address: int = setting(
        64, "connections at once from one IP address", ge=1, le=1_000_000
    )
    idle_timeout: float | None = setting(
        600.0,
        "seconds without a command before a client is dropped; 0: never",
        ge=0.01,
        le=7 * 86400,
        off=0,
    )
    """Seconds a client may send no whole command before it is disconnected; ``None``: forever."""
    max_line_length: int = setting(1024, "bytes in one command line", ge=16, le=LONGEST_LINE)
    max_pending_output: int = setting(
        256 * 1024,
        "bytes of replies queued for a client before it is cut off",
        ge=4096,
        le=1 << 30,
    )
    """Bytes queued for a client that is not reading before it is cut off."""
    send_timeout: float = setting(
        30.0,
        "seconds a client may leave its replies unread before it is cut off",
        gt=0,
        le=86400,
    )
    """Seconds a client may leave our replies unread (its socket full) before it is cut off."""
    linger: float = setting(
        2.0, "seconds a closing connection is given to take its last lines", ge=0, le=600
    )
    replay_dir: str | Path | None = setting(
        None,
        "folder for every game's replay; '': no replays",
        off="",
        command_default="replays",
        off_flag="--no-replays",
        metavar="DIR",
    )
    """Where every game writes its replay; ``None``: no replays (``dod-server`` writes
    them to ``replays/`` unless told otherwise)."""
    turn_timeout: float = setting(
        30.0,
        "seconds a round waits for every player's action, in worlds with rounds; "
        "seconds a turn may last while others wait, in turn-based worlds (battle)",
        gt=0,
        le=86400,
    )
    max_missed_turns: int = setting(
        3,
        "rounds (or turns) in a row a player may miss before being removed",
        ge=1,
        le=1_000_000,
    )
    max_players: int | None = setting(
        None,
        "players at once in the default game; 0: as many as the map holds",
        ge=1,
        le=1_000_000,
        off=0,
    )
    """Players at once in the default game; ``None``: as many as the map holds."""
    max_games: int = setting(64, "games at once, the default one included", ge=1, le=100_000)
    maps_dir: str | Path | None = setting(
        None, "folder of map files clients may name in CREATE; unset: none", metavar="DIR"
    )
    """Clients' ``CREATE … map=`` may name files under this folder only (worlds.limits)."""
    max_map_cells: int = setting(
        CLIENT_LIMITS.cells,
        "squares of one map, level, board or grid a client's CREATE may open",
        ge=1,
        le=OPERATOR_LIMITS.cells,
    )
    max_generated_cells: int = setting(
        CLIENT_LIMITS.generated_cells,
        "squares of one dungeon a client's CREATE may generate",
        ge=1,
        le=OPERATOR_LIMITS.generated_cells,
    )
    max_games_per_client: int = setting(
        4, "games one connection may have created and not yet ended", ge=1, le=100_000
    )
    max_games_per_address: int = setting(
        16,
        "games one IP address may hold at once: created by its connections and not yet "
        "ended, or played in or watched by them",
        ge=1,
        le=100_000,
    )
    unjoined_game_timeout: float | None = setting(
        300.0,
        "seconds a created game may wait for its first player before it is removed; 0: never",
        ge=0.01,
        le=7 * 86400,
        off=0,
    )
    max_world_builds: int = setting(
        2, "worlds built at once (CREATE, restarts); further CREATEs are refused", ge=1, le=64
    )
    world_build_timeout: float = setting(
        60.0, "seconds a world may take to build before its CREATE is refused", gt=0, le=3600
    )
    max_players_per_game: int = setting(
        100, "players at once in a created game (CREATE ... players=)", ge=1, le=1000
    )
    min_turn_timeout: float = setting(
        0.1, "the shortest round a created game may ask for (CREATE ... turn=)", gt=0, le=3600
    )
    max_turn_timeout: float = setting(
        600.0, "the longest round a created game may ask for (CREATE ... turn=)", gt=0, le=86400
    )
    max_map_bytes: int = setting(
        1 << 20,
        "bytes of the largest whole map sent (MAP, a spectator's VIEW, a replay's header)",
        ge=1024,
        le=1 << 30,
    )
    chat_rate: float = setting(
        2.0, "SHOUT messages a second one client may send, on average", gt=0, le=1e6
    )
    chat_burst: int = setting(10, "SHOUT messages one client may send at once", ge=1, le=1e6)
    replay_keep: int | None = setting(
        1000, "replay files kept, the oldest deleted first; 0: all", ge=1, le=10**9, off=0
    )
    replay_keep_bytes: int | None = setting(
        1 << 30,
        "bytes of replay files kept, the oldest deleted first; 0: no limit",
        ge=1,
        le=1 << 50,
        off=0,
    )
    replay_rate: float = setting(
        1.0,
        "new replay files a second, on average; games beyond it are not recorded",
        gt=0,
        le=1e6,
    )
    replay_burst: int = setting(30, "new replay files at once", ge=1, le=10**6)
    max_replay_bytes: int = setting(
        16 << 20,
        "bytes one replay file may hold (at most replay_keep_bytes); a longer game's "
        "replay is cut short with a truncated line and the game plays on",
        ge=4096,
        le=1 << 50,
    )
    client_log_rate: float = setting(
        2.0, "log events a second about one client address, after a burst", gt=0, le=1e6
    )
    client_log_burst: int = setting(
        50,
        "log events about one client address at once before the rate applies",
        ge=1,
        le=1_000_000,
    )
    db: str | None = setting(
        None,
        "database of game records and ratings: sqlite:///FILE, postgresql://USER@HOST/DB, "
        "or auto (records.db beside the replays; with --cluster, the cluster's database); "
        "'': none",
        off="",
        command_default="auto",
        off_flag="--no-db",
        metavar="URL",
    )
    """Where finished games and ratings are kept (:mod:`server.lobby.ladder`); ``None``: nowhere."""
    records_journal: str | None = setting(
        "auto",
        "folder where finished games wait on disk until the database has them (a crash "
        "loses none; the next start writes them): a path, or auto (beside an SQLite "
        "database, else beside the replays); '': none",
        off="",
        metavar="DIR",
    )
    max_unwritten_games: int | None = setting(
        1000,
        "finished games that may wait for the database; while as many wait, new games "
        "are refused; 0: no limit",
        ge=1,
        le=10**7,
        off=0,
    )
    store_busy_timeout: float = setting(
        1.0,
        "seconds one database statement waits for a lock another program holds before "
        "it fails (writes are retried; LEADERBOARD answers ERROR)",
        gt=0,
        le=600,
    )
    cluster: str | None = setting(
        None,
        "join the cluster whose directory of games is this PostgreSQL database "
        "(postgresql://USER@HOST/DB; docs/cluster.md); '': no cluster",
        off="",
        metavar="URL",
        validate=cluster_url,
    )
    advertise: str | None = setting(
        None,
        "HOST:PORT the other nodes of the cluster and redirected clients reach this "
        "node on; '': the listening address",
        off="",
        metavar="HOST:PORT",
        validate=advertised_address,
    )
    workers: int = setting(
        1,
        "processes serving --port together as one cluster, each on a core of its own "
        "(docs/cluster.md)",
        ge=1,
        le=256,
    )
    reuse_port: bool = setting(
        False, "listen with SO_REUSEPORT, so that several processes share the port"
    )
    drain_timeout: float | None = setting(
        0.0,
        "seconds a server told to stop (SIGTERM, SIGINT) lets its created games run to "
        "their end, taking no new clients or games; 0: stop at once",
        ge=0,
        le=86400,
        off=0,
    )
    heartbeat: float = setting(
        1.0,
        "seconds between a cluster node's heartbeats; a node silent for three is gone, "
        "and its games with it",
        ge=0.05,
        le=3600,
    )
    relay_timeout: float = setting(
        10.0,
        "seconds a link between two nodes of a cluster may leave a carried client's "
        "command unacknowledged, or an idle link its keepalive probes unanswered, before "
        "the client is told BYE (docs/cluster.md)",
        ge=1,
        le=3600,
    )
    relay_cert: str | None = setting(
        None,
        "certificate (PEM) this node shows on its links to other nodes; with --relay-key "
        "and --relay-ca the links run over mutual TLS (docs/security.md); '': plain TCP",
        off="",
        metavar="FILE",
    )
    relay_key: str | None = setting(
        None, "private key (PEM) of --relay-cert; '': none", off="", metavar="FILE"
    )
    relay_ca: str | None = setting(
        None,
        "CA certificate(s) (PEM) that sign every node's --relay-cert; a node accepts "
        "links only from nodes it signed; '': none",
        off="",
        metavar="FILE",
    )
    http_host: str = setting(
        "127.0.0.1", "address the web page and its API listen on", metavar="HOST"
    )
    http_port: int | None = setting(
        None,
        "port of the web page, its API and /metrics; 0 picks a free one",
        ge=0,
        le=65535,
        off=-1,
        command_default=8004,
        off_flag="--no-http",
    )
    """The web face's port; ``None``: none (``dod-server`` serves it on 8004 unless told
    ``--no-http``; a server built in code has none unless asked)."""
    # The web face's own limits (docs/security.md, "The web face").
    http_max_connections: int = setting(
        1024,
        "HTTP and WebSocket connections at once (each also counts against "
        "--max-connections and, per address, --max-connections-per-address)",
        ge=1,
        le=1_000_000,
    )
    http_keep_alive_timeout: float = setting(
        5.0, "seconds an HTTP connection may wait between requests", gt=0, le=3600
    )
    websocket_max_message: int = setting(
        16384,
        "bytes in one WebSocket message; a larger one ends the WebSocket",
        ge=256,
        le=1 << 24,
    )
    http_allowed_hosts: str = setting(
        "",
        "host names the web face answers to (the Host header), comma-separated, '*' for "
        "any; empty: --http-host, localhost, 127.0.0.1 and ::1",
        metavar="NAMES",
        repeat=True,
        validate=parse_names,
    )
    http_allowed_origins: str = setting(
        "",
        "origins of other sites whose pages may open /ws (https://example.org), "
        "comma-separated, '*' for any; the web face's own pages always may",
        metavar="ORIGINS",
        repeat=True,
        validate=parse_names,
    )
    metrics_from: str = setting(
        "127.0.0.0/8,::1",
        "client networks (CIDR) that may read /metrics; empty: none",
        metavar="CIDRS",
        repeat=True,
        validate=parse_networks,
    )
    trusted_proxies: str = setting(
        "",
        "reverse proxies (CIDR) whose X-Forwarded-For or Forwarded header names the "
        "web client; empty: trust none",
        metavar="CIDRS",
        repeat=True,
        validate=parse_networks,
    )
    reconnect_grace: float | None = setting(
        30.0,
        "seconds a logged-in player whose connection dropped may take to LOGIN again "
        "and resume its game; 0: never",
        ge=0.01,
        le=86400,
        off=0,
    )
    """How long a claimed, logged-in player is kept in its game after losing its
    connection (:mod:`server.lobby.ladder`); ``None``: not at all."""
    hash_threads: int = setting(
        1,
        "argon2 hashes (REGISTER, LOGIN) computed at once, each in a worker thread "
        "with 64 MiB of memory",
        ge=1,
        le=64,
    )
    max_hash_queue: int = setting(
        8,
        "REGISTERs and LOGINs that may wait for a hashing thread; more are refused",
        ge=0,
        le=10_000,
    )
    login_rate: float = setting(
        1.0, "REGISTERs and LOGINs a second from one IP address, on average", gt=0, le=1e6
    )
    login_burst: int = setting(
        10, "REGISTERs and LOGINs from one IP address at once", ge=1, le=1_000_000
    )
    register_per_hour: float = setting(
        20.0, "names one IP address may claim an hour, on average", gt=0, le=1e9
    )
    register_burst: int = setting(5, "names one IP address may claim at once", ge=1, le=1_000_000)
    log_format: str = setting(
        "console", "log output on standard error", choices=("console", "json")
    )
    log_level: str = setting(
        "info",
        "least important log events written",
        choices=("debug", "info", "warning", "error"),
    )
    worlds: tuple[WorldPlugin, ...] = ()
    """World plugins offered besides the installed ones (found by their ``name``)."""

    def __post_init__(self) -> None:
        for spec in SETTINGS:
            value = getattr(self, spec.name)
            try:
                final = spec.check(value)
            except ValueError as error:
                raise ConfigError(f"{spec.name}: {error}") from None
            if final is not value:
                object.__setattr__(self, spec.name, final)
        tls = (self.relay_cert, self.relay_key, self.relay_ca)
        if any(path is not None for path in tls) and None in tls:
            raise ConfigError(
                "relay_cert, relay_key and relay_ca go together: give all three for TLS "
                "between nodes, or none"
            )


SETTINGS: Final[tuple[Setting, ...]] = _reading.settings_of(ServerConfig)
"""Every setting, in the order ``--help`` and ``--print-config`` show them."""
BY_NAME: Final = {spec.name: spec for spec in SETTINGS}


def add_arguments(
    parser: argparse.ArgumentParser, settings: Sequence[Setting] | None = None
) -> None:
    """Add a flag for every setting (and ``--config``) to ``parser``
    (:func:`server.setup.settings.add_arguments`)."""
    _reading.add_arguments(parser, SETTINGS if settings is None else settings)


def read_config_file(path: str | Path) -> dict[str, Any]:
    """The settings in a TOML file; unknown keys and unreadable files raise ``ConfigError``."""
    return _reading.read_config_file(path, BY_NAME)


def load_config(
    flags: argparse.Namespace | Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
    **fixed: Any,
) -> LoadedConfig[ServerConfig]:
    """A :class:`ServerConfig` from ``flags``, ``environ``, the ``--config`` file and the
    defaults, in that order (:func:`server.setup.settings.load_config`)."""
    return _reading.load_config(ServerConfig, SETTINGS, flags, environ, **fixed)
