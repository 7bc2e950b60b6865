from __future__ import annotations

import os
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Final, Protocol

import pytest
import trio

from dungeon_of_doom.server.app import Server
from dungeon_of_doom.server.setup.config import ServerConfig

from .helpers import COMPAT, REPO
from .limits import start_cost
from .postgres import postgres_server, postgres_url

__all__ = ["postgres_server", "postgres_url"]

StartServer = Callable[..., Awaitable[Server]]


class WriteMap(Protocol):
    """The ``write_map`` fixture: writes ``text`` to a new file and returns its path."""

    def __call__(self, text: str, suffix: str = ".map") -> str: ...


# A dod-server a test starts serves its web page on a free port, never on the default
# 8004, so that servers started side by side (and a developer's own) never collide.
os.environ.setdefault("DOD_HTTP_PORT", "0")

# Tests send SIGINT (Ctrl-C) to programs they start, which must start with its default
# action. A run started as a background job of a non-interactive shell (`make test &` in
# a script) ignores SIGINT, and an ignored signal stays ignored across exec, so those
# programs never saw the Ctrl-C. A handler is not inherited: they start with the default.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_configure(config: pytest.Config) -> None:
    # What one start costs here is measured once, before pytest-xdist starts its
    # workers, which inherit it (tests/limits.py): every limit on a process is derived
    # from it.
    if not hasattr(config, "workerinput"):
        start_cost()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the files marked ``long_file`` first, then the others, most tests first.

    ``make test`` hands pytest-xdist whole files in this order (``--dist loadfile
    --no-loadscope-reorder``), and a worker takes the next file as it finishes one. A
    long file taken last would run alone while the other workers sit idle; taken first,
    it runs beside everything else."""
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.partition("::")[0], []).append(item)
    order = sorted(
        files.values(),
        key=lambda tests: (tests[0].get_closest_marker("long_file") is None, -len(tests)),
    )
    items[:] = [item for tests in order for item in tests]


BARE_NAMES: Final = frozenset(
    path.name for path in (REPO / "dungeon_of_doom").iterdir() if path.is_symlink()
)
"""The checkout's folders, each installed as ``dungeon_of_doom.X``."""


@pytest.fixture(autouse=True, scope="module")
def no_module_imported_by_a_bare_folder_name() -> Iterator[None]:
    """After each test file: the checkout's root is on sys.path here, so a test that
    imported ``server`` (a string, ``import_module``) would load a second copy of every
    module it reaches, which no installed copy could; the file's last test fails."""
    yield
    bare = sorted(name for name in sys.modules if name.partition(".")[0] in BARE_NAMES)
    assert not bare, f"imported by a bare folder name, not as dungeon_of_doom.X: {bare[:5]}"


@pytest.fixture
async def start_server(nursery: trio.Nursery) -> AsyncIterator[StartServer]:
    """Start real servers on port 0 over loopback; each is shut down after the test."""
    servers: list[Server] = []

    async def start(**settings: object) -> Server:
        settings.setdefault("port", 0)
        server = Server(ServerConfig(**settings))  # type: ignore[arg-type]
        await nursery.start(server.run)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()


@pytest.fixture
def write_map(tmp_path: Path) -> WriteMap:
    """Write a map file and return its path."""
    count = 0

    def write(text: str, suffix: str = ".map") -> str:
        nonlocal count
        count += 1
        path = tmp_path / f"map{count}{suffix}"
        path.write_text(text)
        return str(path)

    return write


@pytest.fixture
def compat() -> Path:
    if not COMPAT.is_dir():
        pytest.skip("../shared/compat is not present")
    return COMPAT
