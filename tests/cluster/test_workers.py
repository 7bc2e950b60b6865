"""``dod-server --workers N``: one port, N processes, one cluster."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import ROOT, WAIT, Cluster, Node, eventually


@pytest.fixture(params=["embedded", "postgresql"])
def workers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Node]:
    """``dod-server --workers 2``, with the parent's directory or a PostgreSQL."""
    if request.param == "embedded":
        node = Node("--no-replays", "--workers", "2", cwd=tmp_path)
    else:
        node = request.getfixturevalue("cluster").node("--workers", "2")
    try:
        yield node
    finally:
        node.stop()


def test_workers_share_one_port_and_every_client_reaches_every_game(workers: Node) -> None:
    node = workers
    node.wait_for(r"(?s)cluster joined.*cluster joined")  # both workers are in the cluster
    clients = [node.client() for _ in range(12)]
    for number, client in enumerate(clients):
        assert client.ask(f"CREATE g{number} classic").startswith(f"GAME g{number} ")
    for number in range(len(clients)):
        # Wherever the kernel puts this connection, the game is listed and joined.
        joiner, name = node.client(), f"g{number}"
        eventually(lambda: name in joiner.games(), f"{name} is listed")  # noqa: B023
        assert joiner.ask(f"JOIN g{number}").startswith(f"GAME g{number} "), number
        joiner.close()


def test_workers_say_once_where_they_listen_and_each_line_names_its_worker(
    tmp_path: Path,
) -> None:
    # Before: two identical "listening on" lines, and nothing said which worker logged what.
    node = Node("--no-replays", "--workers", "2", "--log-format", "json", cwd=tmp_path)
    try:
        # Each line of its own, in any order: a worker may say where it listens after
        # both have joined the cluster.
        node.wait_for(
            r"(?s)(?=.*cluster joined.*cluster joined)(?=.*listening on)(?=.*also serving)"
        )
    finally:
        node.stop()
    lines = [line for line in node.output.splitlines() if line not in ("", "(exited)")]
    records = [json.loads(line) for line in lines]  # every line JSON, the parent's too
    listening = [r for r in records if str(r["event"]).startswith("listening on")]
    assert [r.get("worker") for r in listening] == [0], listening
    # Every line a worker wrote names it; the parent's (the port, its directory) do not.
    parents = ("workers share", "the workers' directory", "worker left the directory")
    own = [r for r in records if not any(part in str(r["event"]) for part in parents)]
    assert own and all(r.get("worker") in (0, 1) for r in own), own
    assert {r["worker"] for r in own if r["event"] == "cluster joined"} == {0, 1}


def test_workers_carry_a_client_that_asked_for_redirect(workers: Node) -> None:
    # The workers share one address: a REDIRECT there could land on the same worker again.
    node = workers
    node.wait_for(r"(?s)cluster joined.*cluster joined")
    creators = [node.client() for _ in range(8)]
    for number, creator in enumerate(creators):
        assert creator.ask(f"CREATE r{number} classic").startswith(f"GAME r{number} ")
    for number in range(len(creators)):
        joiner, name = node.client(), f"r{number}"
        assert joiner.ask("EXTEND redirect") == "EXTENDED redirect"
        eventually(lambda: name in joiner.games(), f"{name} is listed")  # noqa: B023
        assert joiner.ask(f"JOIN {name}").startswith(f"GAME {name} "), number
        joiner.close()


def test_a_killed_worker_is_started_again(workers: Node) -> None:
    node = workers
    node.wait_for(r"(?s)cluster joined.*cluster joined")
    children = subprocess.run(
        ["pgrep", "-P", str(node.process.pid)], capture_output=True, text=True, check=True
    ).stdout.split()
    assert len(children) == 2
    os.kill(int(children[0]), signal.SIGKILL)
    node.wait_for(r"worker exited")
    node.wait_for(r"(?s)worker exited.*cluster joined")  # its successor joined
    assert node.client().ask("HELLO Ada") == "GOLD 3"


def test_the_cluster_benchmark_prints_its_figures(cluster: Cluster) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.cluster",
            "--cluster",
            cluster.url,
            "--duration",
            "0.5",
            "--warmup",
            "0.2",
            "--connections",
            "4",
            "--samples",
            "20",
            "--repeat",
            "1",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert re.search(r"throughput, 1 worker\(s\): [\d,]+ replies/s", result.stdout)
    assert re.search(r"throughput, 2 worker\(s\): [\d,]+ replies/s", result.stdout)
    # The generator's CPU beside the servers', and how the kernel spread the connections.
    assert re.search(r"servers \d+% of a core, generator \d+%", result.stdout)
    assert re.search(r"2 worker\(s\): .*connections per worker \d+/\d+;", result.stdout)
    assert re.search(r"listed by another's GAMES: p50 \d+\.\d+ ms", result.stdout)
    assert re.search(r"the relay adds -?\d+\.\d+ ms", result.stdout)


def test_cluster_status_reads_the_embedded_directory_of_workers(tmp_path: Path) -> None:
    node = Node("--no-replays", "--workers", "2", cwd=tmp_path)
    try:
        node.wait_for(r"(?s)cluster joined.*cluster joined")
        path = node.wait_for(r"the workers' directory is (unix:\S+)").group(1)
        creator = node.client()  # kept: a game whose creator leaves before anyone joins goes
        assert creator.ask("CREATE shown classic").startswith("GAME shown ")
        shown = "  GAME shown world=classic map=default seed=0 players=0 limit=100 watchers=0"
        lines: list[str] = []

        def described() -> bool:
            lines[:] = _status(path)
            return any(line.startswith(shown) for line in lines)

        eventually(described, "the game is described (its world built and published)")
        assert lines[0] == "2 node(s)"
        workers = [line for line in lines if line.startswith("node ")]
        assert len(workers) == 2
        assert all(f"at 127.0.0.1:{node.port} (relay 127.0.0.1:" in line for line in workers)
        assert sorted("1 game(s)" in line for line in workers) == [False, True]
    finally:
        node.stop()


def test_cluster_status_says_why_when_no_directory_answers(tmp_path: Path) -> None:
    status = subprocess.run(
        [
            sys.executable,
            "-m",
            "dungeon_of_doom.server",
            "--cluster",
            f"unix:{tmp_path}/none",
            "--cluster-status",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=WAIT,
    )
    assert status.returncode != 0
    assert "No such file or directory" in status.stderr and status.stdout == ""


def _status(path: str) -> list[str]:
    status = subprocess.run(
        [sys.executable, "-m", "dungeon_of_doom.server", "--cluster", path, "--cluster-status"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=WAIT,
    )
    assert status.returncode == 0, status.stderr
    return status.stdout.splitlines()
