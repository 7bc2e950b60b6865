"""The ``dod-server`` processes an arena plays on: starting one, reading its port, stopping it."""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import trio

from commandline import lifeline

__all__ = ["ServerProcess", "run_server", "stop_process", "stop_servers"]

LISTENING: Final = re.compile(rb"listening on [^\s:]+:(\d+)")
SERVER_GRACE: Final = 15.0
"""Seconds a server has to write its records and exit after SIGTERM."""


@dataclass(slots=True)
class ServerProcess:
    """One ``dod-server`` the arena started, and where it listens."""

    process: trio.Process
    port: int
    log: Path
    busy: int = 0


def server_command(options: argparse.Namespace) -> list[str]:
    return [
        sys.executable,
        "-m",
        "server",
        "--port",
        "0",
        "--db",
        options.db,
        "--replay-dir",
        str(Path(options.dir) / "replays"),
        "--turn-timeout",
        str(options.turn_timeout),
        "--max-missed-turns",
        str(options.max_missed_turns),
        "--max-games",
        "100000",
        "--no-http",
        "--idle-timeout",
        str(options.game_time + 60),
        "--log-format",
        "json",
        "--log-level",
        "warning",
    ]


async def run_server(
    options: argparse.Namespace, index: int, task_status: trio.TaskStatus[ServerProcess]
) -> None:
    """Start a server, report it once it listens, copy its log to ``DIR/server-N.log``
    until it exits; stop it (SIGTERM, then SIGKILL) when cancelled. It holds this
    process's lifeline: should the arena end without stopping it (``kill -9``), it
    stops by itself."""
    log_path = Path(options.dir) / f"server-{index}.log"
    process = await trio.lowlevel.open_process(
        server_command(options),
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
        **lifeline.child_options(),
    )
    try:
        with log_path.open("wb") as log:
            seen = b""
            port = None
            assert process.stderr is not None
            with trio.fail_after(30):
                while port is None:
                    chunk = await process.stderr.receive_some(4096)
                    if not chunk:
                        raise RuntimeError(
                            f"dod-server exited before listening: {seen.decode()[-500:]}"
                        )
                    seen += chunk
                    log.write(chunk)
                    if (found := LISTENING.search(seen)) is not None:
                        port = int(found.group(1))
            task_status.started(ServerProcess(process, port, log_path))
            async for chunk in process.stderr:
                log.write(chunk)
                log.flush()
    finally:
        with trio.CancelScope(shield=True):
            await stop_process(process, grace=SERVER_GRACE, terminate=True)


async def stop_servers(servers: list[ServerProcess]) -> None:
    """SIGTERM every server at once: each flushes its records and exits."""
    for server in servers:
        if server.process.returncode is None:
            server.process.send_signal(signal.SIGTERM)
    with trio.move_on_after(SERVER_GRACE * 2):
        for server in servers:
            await server.process.wait()


async def stop_process(process: trio.Process, *, grace: float, terminate: bool = False) -> None:
    """End ``process`` and its group: ``grace`` seconds to exit by itself (after a SIGTERM
    at once if ``terminate``), then SIGTERM to its group, then SIGKILL."""
    if terminate and process.returncode is None:
        process.send_signal(signal.SIGTERM)
    if process.returncode is None and grace > 0:
        with trio.move_on_after(grace):
            await process.wait()
    if process.returncode is None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                break
            with trio.move_on_after(1.0 if sig == signal.SIGTERM else 10.0):
                await process.wait()
            if process.returncode is not None:
                break
    await process.wait()
