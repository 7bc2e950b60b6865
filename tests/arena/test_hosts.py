"""Workers on separate network-namespace hosts, sharing a real PostgreSQL on a host of
its own: they play a tournament submitted from a third host as one machine would, and a
worker cut off from the database mid-match loses its lease to another that finishes the
match, stored once (the cut worker's own result, sent after its link heals, is refused);
a ``dod-server`` on yet another host shows the tournament's progress to a fourth."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bench.faults.postgres import PostgresOnHost
from dungeon_of_doom.arena import cli as arena
from dungeon_of_doom.records.compare import compare
from dungeon_of_doom.records.store import Store

from ..cluster.hosts import Hosts, skip_unless_possible
from ..web.conftest import WEB_AT
from .test_arena import DETERMINISTIC
from .test_signals import IDLE, _wait_for


@dataclass
class Network:
    hosts: Hosts
    server: str
    """The URL of the maintenance database, on the database host's address."""

    def database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.server, autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {name}")
        return self.server.rsplit("/", 1)[0] + f"/{name}"


@pytest.fixture(scope="module")
def network() -> Iterator[Network]:
    """Hosts on one switch, PostgreSQL listening only on the database host's address."""
    skip_unless_possible()
    hosts = Hosts()
    try:
        on_db_host, address = hosts.host(1)
        try:
            postgres = PostgresOnHost(on_db_host, address, hosts.subnet)
        except RuntimeError as why:
            pytest.skip(str(why))
        try:
            postgres.start()
            yield Network(hosts, postgres.url)
        finally:
            postgres.close()
    finally:
        hosts.close()


def _arena(on_host: list[str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*on_host, sys.executable, "-m", "dungeon_of_doom.arena", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _status(capsys: pytest.CaptureFixture[str], url: str, tournament: str) -> dict[str, int]:
    capsys.readouterr()
    assert arena.main(["status", "--db", url, "--tournament", tournament, "--json"]) == 0
    status: dict[str, int] = json.loads(capsys.readouterr().out)
    return status


def test_workers_on_two_hosts_play_a_tournament_submitted_from_a_third_as_one_machine(
    network: Network, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = network.database(f"dod_hosts_{network.hosts.tag}_play")
    on_worker_hosts = [network.hosts.host(n)[0] for n in (2, 3)]
    on_submitter = network.hosts.host(4)[0]
    submitted = _arena(on_submitter, "submit", *DETERMINISTIC, "--db", url)
    _, err = submitted.communicate(timeout=300)
    assert submitted.returncode == 0, err
    workers = [
        _arena(on_host, "worker", "--db", url, "--exit-when-idle", "--dir", str(tmp_path / f"w{n}"))
        for n, on_host in enumerate(on_worker_hosts)
    ]
    for worker in workers:
        _, err = worker.communicate(timeout=600)
        assert worker.returncode == 0, err
    status = _status(capsys, url, "same")
    assert (status["games"], status["done"], status["recorded"], status["claims"]) == (3, 3, 3, 3)
    one = f"sqlite:///{tmp_path / 'one.db'}"
    assert arena.main([*DETERMINISTIC, "--dir", str(tmp_path / "one"), "--db", one]) == 0
    alone = json.loads(capsys.readouterr().out)
    found = compare(Store(one).games(), Store(url).games(), prefix="same-")
    assert found.identical and found.same == 3, found.as_dict()
    assert status["table"] == alone["table"]


def test_a_worker_cut_off_mid_match_loses_it_to_another_and_it_is_stored_once(
    network: Network, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = network.database(f"dod_hosts_{network.hosts.tag}_cut")
    (on_cut, cut_address), (on_other, _) = network.hosts.host(5), network.hosts.host(6)
    idle = tmp_path / "idle.py"
    idle.write_text(IDLE)
    flag = tmp_path / "started"
    bot = f"{sys.executable} {idle} {{port}} {{game}} {{name}} {flag}"
    submitted = ["random", f"idle={bot}", "--map", "tiny", "--games", "1", "--max-moves", "40"]
    submitted += ["--game-time", "300", "--join-time", "60", "--tournament", "cut"]
    assert arena.main(["submit", *submitted, "--db", url]) == 0
    worker = ["worker", "--db", url, "--lease", "3", "--exit-when-idle"]
    cut = _arena(on_cut, *worker, "--name", "cut", "--dir", str(tmp_path / "cut"))
    try:
        _wait_for(flag, 1, cut)  # its match is being played: the idle bot is in
        network.hosts.cut(cut_address)
        # Both plays of the match may end now; the cut worker's result cannot reach the
        # database until its link heals.
        Path(f"{flag}.quit").write_text("")
        other = _arena(on_other, *worker, "--name", "other", "--dir", str(tmp_path / "other"))
        _, err = other.communicate(timeout=300)
        assert other.returncode == 0, err
        assert "no more matches, 1 played" in err
        status = _status(capsys, url, "cut")
        assert (status["games"], status["done"], status["recorded"], status["claims"]) == (
            1,
            1,
            1,
            2,
        )
        assert cut.poll() is None  # still waiting on its database
    finally:
        network.hosts.heal(cut_address)
    _, err = cut.communicate(timeout=300)
    assert cut.returncode == 0, err
    assert "no more matches, 1 played" in err  # it finished its play, which was refused
    status = _status(capsys, url, "cut")
    assert (status["done"], status["recorded"], status["claims"]) == (1, 1, 2)
    stored = [row for row in Store(url).games() if row.game["game"].startswith("cut-")]
    assert len(stored) == 1
    assert sorted(p["name"] for p in stored[0].players) == ["idle", "random"]


def test_a_tournament_is_watched_from_another_host_on_a_servers_web_page(
    network: Network, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The database on one host, a worker on another, a ``dod-server`` recording into the
    database on a third, and whoever looks at its page on a fourth."""
    url = network.database(f"dod_hosts_{network.hosts.tag}_watch")
    (on_web, web_address), (on_viewer, _) = network.hosts.host(7), network.hosts.host(8)
    on_worker = network.hosts.host(9)[0]
    assert arena.main(["submit", *DETERMINISTIC, "--db", url]) == 0
    served = ["--port", "0", "--http-port", "0", "--http-host", web_address, "--db", url]
    server = subprocess.Popen(
        [
            *on_web,
            sys.executable,
            "-m",
            "dungeon_of_doom.server",
            *served,
            "--no-replays",
            "--log-level",
            "warning",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        page = None
        while page is None:
            line = server.stderr.readline()
            assert line, f"dod-server did not start (exit {server.wait(timeout=30)})"
            if found := WEB_AT.search(line):
                page = found.group(1)

        def look() -> dict[str, Any]:
            fetch = "import sys, urllib.request as u; print(u.urlopen(sys.argv[1]).read().decode())"
            seen = subprocess.run(
                [*on_viewer, sys.executable, "-c", fetch, f"{page}api/tournaments/same"],
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert seen.returncode == 0, seen.stderr
            body: dict[str, Any] = json.loads(seen.stdout)
            return body

        before = look()["tournament"]
        assert (before["waiting"], before["done"], before["finished"]) == (3, 0, None)
        worker = _arena(
            on_worker, "worker", "--db", url, "--exit-when-idle", "--dir", str(tmp_path / "w")
        )
        _, err = worker.communicate(timeout=600)
        assert worker.returncode == 0, err
        after = look()
        assert (after["tournament"]["done"], after["tournament"]["recorded"]) == (3, 3)
        assert after["tournament"]["finished"] is not None
        assert after["table"] == _status(capsys, url, "same")["table"]
    finally:
        server.terminate()
        server.wait(timeout=60)
