"""Starting an untrusted bot: shut in its own namespaces where Linux lets us, and always
playing through :mod:`arena.relay` under its entrant's name.

Two ways, chosen once per arena (``--isolation``):

* ``namespaces``: the bot runs under :mod:`arena.jail` in new user, network and PID
  namespaces (``unshare``, util-linux). Its only connection is the one the arena relays;
  when its match ends, every process it started is gone (the PID namespace dies with its
  first process, ``setsid`` or not).
* ``none`` (where ``unshare`` is missing or refused): the bot connects to a port of the
  arena's own, once, and is relayed the same way; but it could also reach the server
  directly, and a process it detached into a session of its own (``setsid``) can
  outlive its match. The arena checks every record's players against the match's
  entrants afterwards and counts a game with a stranger in it as not recorded.

``auto`` (the default) takes ``namespaces`` when a probe shows it works.

Either way the bot runs in the folder ``dod-arena`` was started from, with its
environment less the ``DOD_*`` variables (the server's settings, ``$DOD_DB`` with a
database's password among them; the arena's lifeline, ``DOD_LIFELINE_FD``, is added for
the jail, which takes it out before the bot starts) and with ``PYTHONUNBUFFERED=1`` (so
that a Python bot stopped at its match's end loses no line it printed); its standard
output and error go, interleaved, to one pipe that the arena keeps within a bound
(:mod:`arena.botlog`).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Final

import trio

from commandline import lifeline

__all__ = ["CommandFor", "Sandbox", "StartedBot", "bot_environment", "choose_isolation"]

CommandFor = Callable[[int], Sequence[str]]
"""A bot's command line for the port (on 127.0.0.1) it must connect to."""

UNSHARE: Final = (
    "--user",
    "--map-root-user",
    "--net",
    "--pid",
    "--fork",
    "--kill-child",
)


def bot_environment() -> dict[str, str]:
    """The environment a bot runs with (see the module docstring)."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith("DOD_")}
    return {**kept, "PYTHONUNBUFFERED": "1"}


def probe_namespaces() -> str | None:
    """``None`` if bots can be shut in namespaces here, else why not."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return "unshare (util-linux) is not installed"
    try:
        done = subprocess.run(
            [unshare, *UNSHARE, sys.executable, "-c", "import arena.jail as j; j.loopback_up()"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"unshare failed: {error}"
    if done.returncode != 0:
        return f"unshare refused: {done.stderr.strip()[-300:]}"
    return None


def choose_isolation(wanted: str) -> tuple[str, str | None]:
    """``(isolation, why not namespaces)`` for ``--isolation auto|namespaces|none``;
    raises :class:`RuntimeError` when ``namespaces`` was asked for and cannot be had."""
    if wanted == "none":
        return "none", "--isolation none"
    reason = probe_namespaces()
    if reason is None:
        return "namespaces", None
    if wanted == "namespaces":
        raise RuntimeError(f"--isolation namespaces: {reason}")
    return "none", reason


@dataclass(slots=True)
class StartedBot:
    """A bot's process (``unshare`` or the bot itself) and its end of the relay."""

    process: trio.Process
    """Its standard output is the bot's output (and error), to read to its end."""
    stream: trio.abc.Stream | None
    """The jail's socket; ``None`` until the bot connects, for an unjailed bot."""
    listener: trio.SocketListener | None = None
    """Where an unjailed bot connects, once."""

    async def connection(self) -> trio.abc.Stream:
        """The bot's connection (for an unjailed bot, the first to reach its port)."""
        if self.stream is None:
            assert self.listener is not None
            try:
                self.stream = await self.listener.accept()
            finally:
                await self.listener.aclose()
        return self.stream


class Sandbox:
    """Starts bots the chosen way (see the module docstring)."""

    def __init__(self, isolation: str) -> None:
        self.isolation = isolation
        self.unshare = shutil.which("unshare") or "unshare"

    async def start(self, command_for: CommandFor) -> StartedBot:
        """Start the bot ``command_for(port)`` gives, where ``port`` is where it must
        connect (on 127.0.0.1); it runs in a session of its own, its output (and error)
        to the pipe ``process.stdout``, which the caller must read."""
        quiet = partial(
            trio.lowlevel.open_process,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        if self.isolation == "namespaces":
            port = 4000  # the jail's own loopback: any port is free there
            ours, theirs = socket.socketpair()
            try:
                command = [
                    self.unshare,
                    *UNSHARE,
                    sys.executable,
                    "-m",
                    "arena.jail",
                    "--fd",
                    str(theirs.fileno()),
                    "--port",
                    str(port),
                    "--",
                    *command_for(port),
                ]
                # The jail holds the arena's lifeline: its namespace ends with the arena.
                held = lifeline.child_options(pass_fds=(theirs.fileno(),), env=bot_environment())
                process = await quiet(command, **held)
            except BaseException:
                ours.close()
                raise
            finally:
                theirs.close()
            return StartedBot(process, trio.SocketStream(trio.socket.from_stdlib_socket(ours)))
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        listener = listeners[0]
        port = listener.socket.getsockname()[1]
        try:
            # A bot of ours holds the arena's lifeline (bots.cli); another ends when its
            # connection to the arena does, if it minds it.
            held = lifeline.child_options(env=bot_environment())
            process = await quiet(list(command_for(port)), **held)
        except BaseException:
            await listener.aclose()
            raise
        return StartedBot(process, None, listener)
