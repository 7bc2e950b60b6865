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
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import tomllib
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from protocol.dialects import DEFAULT_DIALECT, DIALECTS
from worlds.api import WorldPlugin
from worlds.limits import CLIENT_LIMITS, OPERATOR_LIMITS
from worlds.registry import DEFAULT_WORLD

from .listening import parse_listens

DEFAULT_PORT: Final = 40004
"""The port the 2016 Dungeon of Doom clients connect to."""

ENV_PREFIX: Final = "DOD_"
CONFIG_ENV: Final = "DOD_CONFIG"
"""The environment variable naming a TOML settings file (``--config`` wins over it)."""

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


class ConfigError(ValueError):
    """A setting's value is refused; the message names the setting and where it came from."""


@dataclass(frozen=True, slots=True)
class Setting:
    """How one :class:`ServerConfig` field is read from outside, checked and described."""

    name: str
    kind: type
    """``int``, ``float``, ``str`` or ``bool``: what a flag's or variable's text becomes."""
    default: Any
    help: str
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    choices: tuple[str, ...] = ()
    off: Any = None
    """The value that means ``None`` ("no limit", "never"); ``None`` if there is none."""
    command_default: Any = None
    """What ``dod-server`` uses when nothing says otherwise, where that differs from
    the default of a :class:`ServerConfig` built in code (``replay_dir``)."""
    metavar: str | None = None
    off_flag: str | None = None
    """A value-less flag that sets ``off`` (``--no-replays``)."""
    repeat: bool = False
    """The flag may be given several times; the values are joined with commas (as the
    environment and the file write them)."""
    validate: Callable[[Any], object] | None = None
    """Checks a value further, raising ``ValueError`` with a message (``--listen``)."""

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper()

    @property
    def program_default(self) -> Any:
        return self.default if self.command_default is None else self.command_default

    def parse(self, text: str) -> Any:
        """The value a flag's or an environment variable's ``text`` stands for."""
        text = text.strip()
        if self.kind is bool:
            if text.lower() in _TRUE:
                return True
            if text.lower() in _FALSE:
                return False
            raise ValueError(f"expected true or false, not {text!r}")
        if self.kind is int:
            try:
                return int(text)
            except ValueError:
                raise ValueError(f"expected a whole number, not {text!r}") from None
        if self.kind is float:
            try:
                return float(text)
            except ValueError:
                raise ValueError(f"expected a number, not {text!r}") from None
        return text

    def coerce(self, value: Any) -> Any:
        """A value from a TOML file, checked for its type (an integer is a valid float)."""
        kind = self.kind
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            raise ValueError(f"expected {_KIND_NAMES[kind]}, not {value!r}")
        return value

    def check(self, value: Any) -> Any:
        """``value`` made final: ``off`` becomes ``None``; out of range raises ``ValueError``."""
        if value is None or (self.off is not None and value == self.off):
            return None
        if self.kind in (int, float):
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"must be a finite number, not {value}")
            if self.gt is not None and not value > self.gt:
                raise ValueError(f"must be more than {self.gt:g}{self._off_note()}, not {value}")
            if self.ge is not None and not value >= self.ge:
                raise ValueError(f"must be at least {self.ge:g}{self._off_note()}, not {value}")
            if self.le is not None and not value <= self.le:
                raise ValueError(f"must be at most {self.le:g}, not {value}")
        if self.choices and value not in self.choices:
            raise ValueError(f"must be one of {', '.join(self.choices)}, not {value!r}")
        if self.validate is not None:
            self.validate(value)
        return value

    def _off_note(self) -> str:
        return "" if self.off is None else f" (or {self.show(self.off)} to turn it off)"

    def show(self, value: Any) -> str:
        """``value`` as it would be written in a TOML file (``None`` as the ``off`` value)."""
        if value is None:
            value = self.off
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str | Path):
            return _toml_string(str(value))
        return repr(value)


_KIND_NAMES: Final = {
    int: "a whole number",
    float: "a number",
    str: "a string",
    bool: "true or false",
}


def _toml_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def setting(
    default: Any,
    help: str,
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    choices: Sequence[str] = (),
    off: Any = None,
    command_default: Any = None,
    metavar: str | None = None,
    off_flag: str | None = None,
    repeat: bool = False,
    validate: Callable[[Any], object] | None = None,
) -> Any:
    """A :class:`ServerConfig` field that is a setting; see the module docstring.

    ``help`` is a short phrase; where the setting has an ``off`` value, end it with
    ``; <off>: <what it means>`` (``"...; 0: never"``), which the messages quote.
    """
    spec = {
        "help": help,
        "ge": ge,
        "gt": gt,
        "le": le,
        "choices": tuple(choices),
        "off": off,
        "command_default": command_default,
        "metavar": metavar,
        "off_flag": off_flag,
        "repeat": repeat,
        "validate": validate,
    }
    return field(default=default, metadata={"setting": spec})


def _check_cluster_url(url: str) -> None:
    # unix:PATH is the directory a --workers parent keeps for its workers.
    if not url.startswith(("postgresql://", "postgres://", "unix:")):
        raise ValueError(f"must be a postgresql:// URL, not {url!r}")


def _check_advertise(address: str) -> None:
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"must be HOST:PORT with a port from 1 to 65535, not {address!r}")


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
        None, "map file, shipped map's name or generated spec; unset: the world's own"
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
    max_line_length: int = setting(1024, "bytes in one command line", ge=16, le=1 << 20)
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
    """Where finished games and ratings are kept (:mod:`server.ladder`); ``None``: nowhere."""
    cluster: str | None = setting(
        None,
        "join the cluster whose directory of games is this PostgreSQL database "
        "(postgresql://USER@HOST/DB; docs/cluster.md); '': no cluster",
        off="",
        metavar="URL",
        validate=_check_cluster_url,
    )
    advertise: str | None = setting(
        None,
        "HOST:PORT the other nodes of the cluster and redirected clients reach this "
        "node on; '': the listening address",
        off="",
        metavar="HOST:PORT",
        validate=_check_advertise,
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
    reconnect_grace: float | None = setting(
        30.0,
        "seconds a logged-in player whose connection dropped may take to LOGIN again "
        "and resume its game; 0: never",
        ge=0.01,
        le=86400,
        off=0,
    )
    """How long a claimed, logged-in player is kept in its game after losing its
    connection (:mod:`server.ladder`); ``None``: not at all."""
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


def _settings() -> tuple[Setting, ...]:
    hints = typing.get_type_hints(ServerConfig)
    table = []
    for item in dataclasses.fields(ServerConfig):
        spec = item.metadata.get("setting")
        if spec is None:
            continue
        kinds = [k for k in typing.get_args(hints[item.name]) or (hints[item.name],)]
        kind = next(k for k in kinds if k is not type(None))
        table.append(Setting(name=item.name, kind=kind, default=item.default, **spec))
    return tuple(table)


SETTINGS: Final[tuple[Setting, ...]] = _settings()
"""Every setting, in the order ``--help`` and ``--print-config`` show them."""
BY_NAME: Final = {spec.name: spec for spec in SETTINGS}


# -- reading settings from outside -------------------------------------------------------


def add_arguments(
    parser: argparse.ArgumentParser, settings: Sequence[Setting] | None = None
) -> None:
    """Add a flag for every setting (and ``--config``) to ``parser``.

    Flags default to *absent* (nothing in the namespace), so :func:`load_config`
    can tell a flag given from a default. A ``bool`` setting ``x`` gets ``--x`` and
    ``--no-x``; the others take a value.
    """
    parser.add_argument(
        "--config",
        metavar="FILE",
        default=argparse.SUPPRESS,
        help=f"TOML file of settings (keys as in --print-config; also ${CONFIG_ENV})",
    )
    group = parser.add_argument_group(
        "settings",
        "each also read from $DOD_<NAME> and the --config file; "
        "flags win over the environment, the environment over the file",
    )
    for spec in SETTINGS if settings is None else settings:
        facts = [f"choices: {', '.join(spec.choices)}"] if spec.choices else []
        if spec.program_default is not None:
            facts.append(f"default: {spec.show(spec.program_default)}")
        facts.append(f"${spec.env}")
        if spec.kind is bool:
            group.add_argument(
                spec.flag,
                dest=spec.name,
                action=argparse.BooleanOptionalAction,
                default=argparse.SUPPRESS,
                help=f"{spec.help} ({'; '.join(facts)})".replace("%", "%%"),
            )
            continue
        group.add_argument(
            spec.flag,
            dest=spec.name,
            default=argparse.SUPPRESS,
            action="append" if spec.repeat else "store",
            metavar=spec.metavar or _metavar(spec),
            help=f"{spec.help} ({'; '.join(facts)})".replace("%", "%%"),
        )
        if spec.off_flag is not None:
            group.add_argument(
                spec.off_flag,
                dest=spec.name,
                action="store_const",
                const=spec.off,
                default=argparse.SUPPRESS,
                help=f"the same as {spec.flag} {spec.show(spec.off)}",
            )


def _metavar(spec: Setting) -> str:
    return (spec.name if spec.kind is str else spec.kind.__name__).upper()


def read_config_file(path: str | Path) -> dict[str, Any]:
    """The settings in a TOML file; unknown keys and unreadable files raise ``ConfigError``."""
    try:
        with open(path, "rb") as file:
            data = tomllib.load(file)
    except OSError as error:
        raise ConfigError(f"cannot read config file {path}: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"config file {path} is not valid TOML: {error}") from None
    unknown = sorted(set(data) - set(BY_NAME))
    if unknown:
        raise ConfigError(
            f"config file {path}: unknown setting {unknown[0]!r} "
            f"(dod-server --print-config lists them all)"
        )
    return data


@dataclass(frozen=True, slots=True)
class LoadedConfig:
    """A :class:`ServerConfig` and, for each setting, where its value came from."""

    config: ServerConfig
    sources: dict[str, str]
    """Setting name → ``"default"``, ``"flag --port"``, ``"env DOD_PORT"`` or ``"file x.toml"``."""

    def describe(self) -> str:
        """Every setting with its value and source, as a TOML file ``--config`` accepts."""
        lines = []
        width = max(len(spec.name) for spec in SETTINGS)
        for spec in SETTINGS:
            value = getattr(self.config, spec.name)
            source = self.sources[spec.name]
            if value is None and spec.off is None:
                lines.append(f"# {spec.name} is not set  # {source}")
                continue
            assignment = f"{spec.name:<{width}} = {spec.show(value)}"
            lines.append(f"{assignment:<{width + 16}} # {source}")
        return "\n".join(lines)


def _place(spec: Setting, source: str) -> str:
    kind, _, where = source.partition(" ")
    if kind == "flag":
        return spec.flag
    if kind == "env":
        return f"${spec.env}"
    if kind == "file":
        return f"{spec.name} in {where}"
    return spec.name


def load_config(
    flags: argparse.Namespace | Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
    **fixed: Any,
) -> LoadedConfig:
    """Settings from ``flags`` (parsed by a parser :func:`add_arguments` built), then
    ``environ`` (``os.environ`` by default), then the ``--config``/``$DOD_CONFIG`` file,
    then the defaults ``dod-server`` uses; ``fixed`` are fields with no setting.

    Raises :class:`ConfigError` naming the first bad setting and where it came from.
    """
    given = dict(vars(flags) if isinstance(flags, argparse.Namespace) else flags)
    environ = os.environ if environ is None else environ
    path = given.get("config") or environ.get(CONFIG_ENV) or None
    from_file = read_config_file(path) if path else {}
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for spec in SETTINGS:
        try:
            if spec.name in given:
                source = f"flag {spec.flag}"
                raw = given[spec.name]
                if spec.repeat and isinstance(raw, list):
                    raw = ",".join(raw)
                value = spec.parse(raw) if isinstance(raw, str) else raw
            elif spec.env in environ:
                source = f"env {spec.env}"
                value = spec.parse(environ[spec.env])
            elif spec.name in from_file:
                source = f"file {path}"
                value = spec.coerce(from_file[spec.name])
            else:
                source = "default"
                value = spec.program_default
            values[spec.name] = spec.check(value)
        except ValueError as error:
            raise ConfigError(f"{_place(spec, source)}: {error}") from None
        sources[spec.name] = source
    return LoadedConfig(ServerConfig(**values, **fixed), sources)
