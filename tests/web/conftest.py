"""Fixtures for the web face: a real ``dod-server`` process and a real headless Chromium.

The browser is Debian's ``chromium`` (``/usr/bin/chromium``, or ``$DOD_CHROMIUM``)
driven by Playwright's Python package; Playwright never downloads a browser here.
Without that executable, or without the ``playwright`` package, the browser tests skip
and say why (``.ci/run`` installs Chromium when it is missing).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ..limits import contention

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""Headless Chromium as root on a machine with no outside network (see docs/operating.md)."""
TIMEOUT = 20.0
"""Seconds a page or the server may take on a quiet machine; :func:`web_limit` scales it."""


def web_limit() -> float:
    """Seconds to wait now: :data:`TIMEOUT` times the machine's contention (tests/limits.py)."""
    return TIMEOUT * contention()


LISTENING = re.compile(r"listening on [\d.]+:(\d+)")
WEB_AT = re.compile(r"web page at (http://[\d.]+:\d+/)")


@dataclass
class WebServer:
    process: subprocess.Popen[str]
    port: int
    url: str
    replay_dir: Path

    def player(self) -> LinePlayer:
        return LinePlayer(self.port)


class LinePlayer:
    """A TCP client as ``nc`` is one: lines out, lines in."""

    def __init__(self, port: int) -> None:
        self.socket = socket.create_connection(("127.0.0.1", port), timeout=web_limit())
        self.file = self.socket.makefile("r", encoding="utf-8", newline="\n")

    def send(self, line: str) -> None:
        self.socket.sendall(line.encode() + b"\n")

    def read_line(self) -> str:
        line = self.file.readline()
        assert line, "the server closed the connection"
        return line.rstrip("\n")

    def look(self) -> list[str]:
        self.send("LOOK")
        while self.read_line() != "LOOKREPLY":
            pass
        return [self.read_line() for _ in range(5)]

    def close(self) -> None:
        self.file.close()
        self.socket.close()


def start_web_server(tmp_path: Path, *args: str) -> Generator[WebServer, None, None]:
    replay_dir = tmp_path / "replays"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server",
            "--port",
            "0",
            "--http-port",
            "0",
            "--replay-dir",
            str(replay_dir),
            "--replay-rate",
            "1000",
            "--log-level",
            "warning",
            *args,
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    port = url = None
    seen: list[str] = []
    while url is None:
        line = process.stderr.readline()
        if not line:
            process.wait(timeout=web_limit())
            pytest.fail("dod-server did not start:\n" + "".join(seen))
        seen.append(line)
        if match := LISTENING.search(line):
            port = int(match.group(1))
        if match := WEB_AT.search(line):
            url = match.group(1)
    assert port is not None
    try:
        yield WebServer(process, port, url, replay_dir)
    finally:
        process.terminate()
        try:
            process.wait(timeout=web_limit())
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


SPRINT = "name Sprint\nwin 1\n####\n#GE#\n####\n"
"""Two squares: from either, LEFT, PICKUP, RIGHT wins (the gold is west of the exit)."""


@pytest.fixture
def web_server(tmp_path: Path) -> Iterator[WebServer]:
    """``dod-server`` on free ports (game and web), the classic world's default map."""
    yield from start_web_server(tmp_path)


@pytest.fixture
def sprint_server(tmp_path: Path) -> Iterator[WebServer]:
    """``dod-server`` on a two-square map a player wins in three keys."""
    path = tmp_path / "sprint.map"
    path.write_text(SPRINT)
    yield from start_web_server(tmp_path, "--map", str(path))


def _chromium() -> str | None:
    configured = os.environ.get("DOD_CHROMIUM")
    if configured:
        return configured
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module (pages are opened per test)."""
    executable = _chromium()
    if executable is None:
        pytest.skip("no Chromium: install Debian's chromium package (.ci/run does)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install -e '.[test]')")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_FLAGS
        )
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    opened = context.new_page()
    opened.set_default_timeout(web_limit() * 1000)
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield opened
    finally:
        context.close()
    assert not errors, f"the page raised: {errors}"


def wait_for_text(page: Any, selector: str, text: str | re.Pattern[str]) -> None:
    """Wait (up to :func:`web_limit`) until the first element ``selector`` finds holds
    ``text`` (a pattern: matches its whole text). An element that does not exist yet
    is waited for, never read: on a loaded machine the page may draw it late."""
    from playwright.sync_api import expect

    found = expect(page.locator(selector).first)
    if isinstance(text, re.Pattern):
        found.to_have_text(text, timeout=web_limit() * 1000)
    else:
        found.to_contain_text(text, timeout=web_limit() * 1000)
