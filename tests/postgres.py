"""A real PostgreSQL server for the tests that need one (records, cluster, arena, web),
started from Debian's binaries.

One server runs from a temporary folder on a free loopback port for the whole test
session (``initdb`` and ``pg_ctl``, as the ``postgres`` user when the tests run as
root, since PostgreSQL refuses to run as root); each test gets a database of its own.
The fixtures are registered once, in ``tests/conftest.py``: a conftest that imported
them again would define fixtures of its own, and so start a server of its own.
Where the binaries are absent the tests that need it are skipped, saying why
(``.ci/run`` installs the ``postgresql`` package).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.faults.postgres import binary

_databases = itertools.count(1)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def running_postgres() -> Iterator[str]:
    """A PostgreSQL server started for the ``with`` block (and deleted after it): the
    URL of its maintenance database (``postgres``). Skips the test where it cannot run."""
    initdb, pg_ctl = binary("initdb"), binary("pg_ctl")
    if initdb is None or pg_ctl is None:
        pytest.skip(
            "PostgreSQL server binaries (initdb, pg_ctl) not found: apt-get install postgresql"
        )
    as_user: list[str] = []
    if os.geteuid() == 0:
        runuser = shutil.which("runuser")
        try:
            import pwd

            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root, and there is no postgres user to run PostgreSQL as")
        if runuser is None:
            pytest.skip("running as root, and runuser is missing to run PostgreSQL as postgres")
        as_user = [runuser, "-u", "postgres", "--"]
    folder = Path(tempfile.mkdtemp(prefix="dod-pg-"))
    data, sockets = folder / "data", folder / "run"
    sockets.mkdir()
    if as_user:
        for path in (folder, sockets):
            os.chown(path, owner.pw_uid, owner.pw_gid)
    subprocess.run(
        [*as_user, initdb, "-D", str(data), "-U", "postgres", "-A", "trust", "--no-sync"],
        check=True,
        capture_output=True,
    )
    log = folder / "log"
    # PostgreSQL cannot be told to take any free port, so one found free a moment
    # before may be taken by another process (another worker, another run) before it
    # binds it: then, and only then, it is started again on another.
    for _ in range(5):
        port = _free_port()
        options = (
            f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=100"
        )
        log.unlink(missing_ok=True)
        started = subprocess.run(
            [*as_user, pg_ctl, "-D", str(data), "-o", options, "-l", str(log), "-w", "start"],
            capture_output=True,
            text=True,
        )
        said = log.read_text() if log.exists() else ""
        if started.returncode == 0 or "Address already in use" not in said:
            break
    if started.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        pytest.fail(f"PostgreSQL did not start: {started.stderr}{said[-2000:]}")
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*as_user, pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"],
            capture_output=True,
        )
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of the session's PostgreSQL server's maintenance database (``postgres``)."""
    with running_postgres() as url:
        yield url


@contextlib.contextmanager
def fresh_database(server: str) -> Iterator[str]:
    """A new, empty database on ``server`` (the URL of its maintenance database) for the
    ``with`` block: its URL. It is dropped after the block, connections left open or not."""
    import psycopg

    name = f"dod_test_{os.getpid()}_{next(_databases)}"
    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    yield server.rsplit("/", 1)[0] + f"/{name}"
    # Each database is a copy of the template (several MB): kept, they made the server's
    # folder hundreds of MB by the session's end, and deleting it took seconds (under
    # load, tens of seconds) in the last test's teardown. One still in use (a backend
    # slow to end) is left for the session's end instead.
    with (
        psycopg.connect(server, autocommit=True) as connection,
        contextlib.suppress(psycopg.errors.ObjectInUse),
    ):
        connection.execute(f"DROP DATABASE {name} WITH (FORCE)")


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A fresh, empty database on the session's PostgreSQL server, dropped after the test."""
    with fresh_database(postgres_server) as url:
        yield url
