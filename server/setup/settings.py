"""How a setting is declared, read from outside and checked: the machinery of
:mod:`server.setup.config`, which declares the settings themselves.

A :class:`Setting` is made from a dataclass field declared with :func:`setting`
(:func:`settings_of`). From it come the flag, the ``DOD_`` environment variable, the
TOML key, the ``--print-config`` line and the check of every value; :func:`load_config`
applies one precedence order to them all: flags > environment > file > defaults.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import tomllib
import typing
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Generic, TypeVar

ENV_PREFIX: Final = "DOD_"
CONFIG_ENV: Final = "DOD_CONFIG"
"""The environment variable naming a TOML settings file (``--config`` wins over it)."""

Config = TypeVar("Config")

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


class ConfigError(ValueError):
    """A setting's value is refused; the message names the setting and where it came from."""


@dataclass(frozen=True, slots=True)
class Setting:
    """How one field of :class:`~server.setup.config.ServerConfig` is read, checked and
    described."""

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
    the default of a configuration built in code (``replay_dir``)."""
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
    """A :class:`~server.setup.config.ServerConfig` field that is a setting
    (:mod:`server.setup.config`).

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


def settings_of(config: type) -> tuple[Setting, ...]:
    """The settings of a dataclass whose fields were made with :func:`setting`, in order."""
    hints = typing.get_type_hints(config)
    table = []
    for item in dataclasses.fields(config):
        spec = item.metadata.get("setting")
        if spec is None:
            continue
        kinds = [k for k in typing.get_args(hints[item.name]) or (hints[item.name],)]
        kind = next(k for k in kinds if k is not type(None))
        table.append(Setting(name=item.name, kind=kind, default=item.default, **spec))
    return tuple(table)


# -- reading settings from outside -------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser, settings: Sequence[Setting]) -> None:
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
    for spec in settings:
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


def read_config_file(path: str | Path, known: Collection[str]) -> dict[str, Any]:
    """The settings in a TOML file; unknown keys and unreadable files raise ``ConfigError``."""
    try:
        with open(path, "rb") as file:
            data = tomllib.load(file)
    except OSError as error:
        raise ConfigError(f"cannot read config file {path}: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"config file {path} is not valid TOML: {error}") from None
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ConfigError(
            f"config file {path}: unknown setting {unknown[0]!r} "
            f"(dod-server --print-config lists them all)"
        )
    return data


@dataclass(frozen=True, slots=True)
class LoadedConfig(Generic[Config]):
    """A configuration and, for each setting, where its value came from."""

    config: Config
    sources: dict[str, str]
    """Setting name → ``"default"``, ``"flag --port"``, ``"env DOD_PORT"`` or ``"file x.toml"``."""
    settings: tuple[Setting, ...]

    def describe(self) -> str:
        """Every setting with its value and source, as a TOML file ``--config`` accepts."""
        lines = []
        width = max(len(spec.name) for spec in self.settings)
        for spec in self.settings:
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
    make: Callable[..., Config],
    settings: tuple[Setting, ...],
    flags: argparse.Namespace | Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
    **fixed: Any,
) -> LoadedConfig[Config]:
    """``make(**values, **fixed)`` from ``settings``: from ``flags`` (parsed by a parser
    :func:`add_arguments` built), then ``environ`` (``os.environ`` by default), then the
    ``--config``/``$DOD_CONFIG`` file, then the defaults ``dod-server`` uses; ``fixed``
    are fields with no setting.

    Raises :class:`ConfigError` naming the first bad setting and where it came from.
    """
    given = dict(vars(flags) if isinstance(flags, argparse.Namespace) else flags)
    environ = os.environ if environ is None else environ
    path = given.get("config") or environ.get(CONFIG_ENV) or None
    from_file = read_config_file(path, [spec.name for spec in settings]) if path else {}
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for spec in settings:
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
    return LoadedConfig(make(**values, **fixed), sources, settings)
