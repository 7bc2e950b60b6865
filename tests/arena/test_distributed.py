"""A tournament played by two workers sharing PostgreSQL gives, field by field, the same
records and table as the same tournament played on one machine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena import cli as arena
from records.compare import compare
from records.store import Store

from .test_arena import DETERMINISTIC


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
    for worker in workers:
        _, err = worker.communicate(timeout=600)
        assert worker.returncode == 0, err
        assert "no more matches" in err
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
