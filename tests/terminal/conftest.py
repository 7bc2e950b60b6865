"""Drive ``dod-play`` headlessly: Textual's own harness, against real servers over loopback.

The server runs on trio in the test's thread; the app runs in a worker thread on
its own asyncio loop (with the client's trio as a guest inside it), exactly as
``dod-play`` runs it. Waiting is event-driven: :func:`until` wakes on each
redraw of the app, never on a timer.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Awaitable, Callable, Iterator

import pytest
import trio
from textual.pilot import Pilot
from textual.widgets import RichLog, Static

from dungeon_of_doom.clients.terminal.app import MapView, PlayApp
from dungeon_of_doom.clients.terminal.session import Ending

Scenario = Callable[[PlayApp, Pilot[Ending]], Awaitable[None]]
RunApp = Callable[..., Awaitable[PlayApp]]
WAIT = 10.0
SIZE = (200, 40)


@pytest.fixture
def run_app() -> RunApp:
    """Run a ``PlayApp`` headlessly through ``scenario(app, pilot)``; returns the app after."""

    async def run(app: PlayApp, scenario: Scenario) -> PlayApp:
        async def drive() -> None:
            async with asyncio.timeout(3 * WAIT), app.run_test(size=SIZE) as pilot:
                await scenario(app, pilot)

        await trio.to_thread.run_sync(asyncio.run, drive())
        return app

    return run


async def until(app: PlayApp, condition: Callable[[], bool], timeout: float = WAIT) -> None:
    """Wait, redraw by redraw, until ``condition()`` holds."""
    async with asyncio.timeout(timeout):
        while not condition():
            await app.wait_redraw()


def map_text(app: PlayApp) -> str:
    return str(app.query_one(MapView).content)


def status_text(app: PlayApp) -> str:
    return str(app.query_one("#status", Static).content)


def log_text(app: PlayApp) -> str:
    return "\n".join(strip.text for strip in app.query_one(RichLog).lines)


@contextlib.contextmanager
def closed_port() -> Iterator[int]:
    """A loopback port nobody listens on, for the ``with`` block. It stays bound (never
    listening) meanwhile, so connecting is refused: a port merely free a moment before
    could be taken by a server of another test process, and a client told to connect to
    it waited on that server instead of being refused."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        port: int = holder.getsockname()[1]
        yield port
