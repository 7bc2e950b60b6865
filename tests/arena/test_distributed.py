"""A tournament played by two workers sharing PostgreSQL gives, field by field, the same
records and table as the same tournament played on one machine."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena import cli as arena
from records.compare import compare
from records.store import Store

from .test_arena import DETERMINISTIC
from .test_hostile import _running
from .test_signals import IDLE, _wait_for


def _arena(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "arena", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_workers_play_a_tournament_as_one_machine_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], postgres_url: str
) -> None:
    assert arena.main(["submit", *DETERMINISTIC, "--db", postgres_url]) == 0
    workers = [
        _arena("worker", "--db", postgres_url, "--exit-when-idle", "--dir", str(tmp_path / f"w{n}"))
        for n in range(2)
    ]
    said = ""
    for worker in workers:
        _, err = worker.communicate(timeout=600)
        assert worker.returncode == 0, err
        assert "no more matches" in err
        said += err
    # A line for each match as it ends (before: nothing while the matches played).
    ended = re.findall(
        r"^dod-arena worker: (same-\d+) \(battle, map .+\): .+; \d+ played$", said, re.M
    )
    assert sorted(ended) == ["same-00000", "same-00001", "same-00002"], said
    capsys.readouterr()
    assert arena.main(["status", "--db", postgres_url, "--tournament", "same", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["games"], status["done"], status["recorded"], status["claims"]) == (3, 3, 3, 3)
    one = f"sqlite:///{tmp_path / 'one.db'}"
    assert arena.main([*DETERMINISTIC, "--dir", str(tmp_path / "one"), "--db", one]) == 0
    alone = json.loads(capsys.readouterr().out)
    found = compare(Store(one).games(), Store(postgres_url).games(), prefix="same-")
    assert found.identical and found.same == 3, found.as_dict()
    assert status["table"] == alone["table"]


def test_a_worker_killed_mid_match_leaves_it_to_another_and_it_is_stored_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], postgres_url: str
) -> None:
    idle = tmp_path / "idle.py"
    idle.write_text(IDLE)
    flag = tmp_path / "started"
    bot = f"{sys.executable} {idle} {{port}} {{game}} {{name}} {flag}"
    submitted = [
        "random",
        f"idle={bot}",
        "--map",
        "tiny",
        "--games",
        "1",
        "--max-moves",
        "40",
        "--game-time",
        "300",
        "--join-time",
        "60",
        "--tournament",
        "killed",
        "--db",
        postgres_url,
    ]
    assert arena.main(["submit", *submitted]) == 0
    first_dir = tmp_path / "first-worker"
    first = _arena("worker", "--db", postgres_url, "--lease", "3", "--dir", str(first_dir))
    _wait_for(flag, 1, first)  # its match is being played: the idle bot is in
    started = _running(str(first_dir)) + _running(str(flag))
    assert started, "the worker's server and bots are found by their command lines"
    first.kill()  # SIGKILL: no chance to release its match or stop its server and bots
    first.wait(timeout=60)
    # What it started ends with it (before: its server and bots ran on until their own
    # limits): each holds its lifeline, and its server's records stay in its own store.
    deadline = time.monotonic() + 60
    while _running(str(first_dir)) or _running(str(flag)):
        assert time.monotonic() < deadline, "the killed worker's server or bots run on"
        time.sleep(0.05)
    first.communicate(timeout=60)
    # The idle bot quits at once when played again, so the second play ends.
    Path(f"{flag}.quit").write_text("")
    second = _arena(
        "worker",
        "--db",
        postgres_url,
        "--lease",
        "3",
        "--exit-when-idle",
        "--dir",
        str(tmp_path / "w2"),
    )
    _, err = second.communicate(timeout=600)
    assert second.returncode == 0, err
    capsys.readouterr()
    assert arena.main(["status", "--db", postgres_url, "--tournament", "killed", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["games"], status["done"], status["recorded"], status["claims"]) == (1, 1, 1, 2)
    stored = [row for row in Store(postgres_url).games() if row.game["game"].startswith("killed-")]
    assert len(stored) == 1
    assert sorted(p["name"] for p in stored[0].players) == ["idle", "random"]


def test_a_worker_drains_on_sigterm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], postgres_url: str
) -> None:
    """It finishes the match it is playing, stores it, claims no more, exits 143."""
    idle = tmp_path / "idle.py"
    idle.write_text(IDLE)
    flag = tmp_path / "started"
    bot = f"{sys.executable} {idle} {{port}} {{game}} {{name}} {flag}"
    submitted = ["random", f"idle={bot}", "--map", "tiny", "--games", "3", "--max-moves", "40"]
    submitted += ["--game-time", "300", "--tournament", "drain", "--db", postgres_url]
    assert arena.main(["submit", *submitted]) == 0
    worker = _arena("worker", "--db", postgres_url, "--dir", str(tmp_path / "w"))
    _wait_for(flag, 1, worker)
    worker.send_signal(signal.SIGTERM)
    assert worker.stderr is not None
    seen: list[str] = []
    while not (line := worker.stderr.readline()).startswith("dod-arena worker: SIGTERM"):
        assert line, seen
        seen.append(line)
    Path(f"{flag}.quit").write_text("")  # now the match may end
    _, err = worker.communicate(timeout=300)
    assert worker.returncode == 143, err
    assert "stopped by SIGTERM after 1 matches" in err
    capsys.readouterr()
    assert arena.main(["status", "--db", postgres_url, "--tournament", "drain", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["done"], status["waiting"], status["claims"], status["recorded"]) == (1, 2, 1, 1)


def test_ctrl_c_gives_a_workers_match_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], postgres_url: str
) -> None:
    idle = tmp_path / "idle.py"
    idle.write_text(IDLE)
    flag = tmp_path / "started"
    bot = f"{sys.executable} {idle} {{port}} {{game}} {{name}} {flag}"
    submitted = ["random", f"idle={bot}", "--map", "tiny", "--games", "2"]
    submitted += ["--game-time", "300", "--tournament", "back", "--db", postgres_url]
    assert arena.main(["submit", *submitted]) == 0
    worker = _arena("worker", "--db", postgres_url, "--dir", str(tmp_path / "w"))
    _wait_for(flag, 1, worker)
    worker.send_signal(signal.SIGINT)
    _, err = worker.communicate(timeout=120)
    assert worker.returncode == 130, err
    assert "Traceback" not in err and "interrupted after 0 matches" in err
    capsys.readouterr()
    assert arena.main(["status", "--db", postgres_url, "--tournament", "back", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["done"], status["playing"], status["waiting"], status["claims"]) == (0, 0, 2, 1)


SWISS = [
    "battle:2",
    "random",
    "explorer",
    "--world",
    "battle",
    "--format",
    "swiss",
    "--rounds",
    "2",
    "--max-moves",
    "40",
    "--turn-timeout",
    "30",
    "--game-time",
    "60",
    "--seeds",
    "3",
    "--tournament",
    "swiss",
]


def test_swiss_rounds_are_paired_from_stored_results_as_on_one_machine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], postgres_url: str
) -> None:
    assert arena.main(["submit", *SWISS, "--db", postgres_url]) == 0
    workers = [
        _arena("worker", "--db", postgres_url, "--exit-when-idle", "--dir", str(tmp_path / f"w{n}"))
        for n in range(2)
    ]
    for worker in workers:
        _, err = worker.communicate(timeout=600)
        assert worker.returncode == 0, err
    capsys.readouterr()
    assert arena.main(["status", "--db", postgres_url, "--tournament", "swiss", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["games"], status["done"], status["recorded"]) == (4, 4, 4)
    one = f"sqlite:///{tmp_path / 'one.db'}"
    assert (
        arena.main(
            [*SWISS, "--servers", "2", "--dir", str(tmp_path / "one"), "--db", one, "--json"]
        )
        == 0
    )
    alone = json.loads(capsys.readouterr().out)
    found = compare(Store(one).games(), Store(postgres_url).games(), prefix="swiss-")
    assert found.identical and found.same == 4, found.as_dict()
    assert status["table"] == alone["table"]


def test_a_database_out_of_reach_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    unreachable = "postgresql://nobody@127.0.0.1:1/none"
    assert arena.main(["status", "--db", unreachable, "--tournament", "x"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("dod-arena status: cannot use the database: ") and "Traceback" not in err
    assert len(err.splitlines()) == 1
