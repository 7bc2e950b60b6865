"""``dod-server --workers 2`` under faults: many clients at once, a worker paused and
killed, its parent killed. Real processes, real signals, raw sockets."""

from __future__ import annotations

import os
import signal
import socket
import threading
from pathlib import Path

import pytest

from .conftest import WAIT, Client, Node, eventually
from .processes import alive, children_of, holder_of


def _workers(tmp_path: Path, *more: str) -> Node:
    node = Node("--no-replays", "--workers", "2", *more, cwd=tmp_path)
    node.wait_for(r"(?s)cluster joined.*cluster joined")  # both workers are in the directory
    return node


def test_thirty_creates_at_once_each_get_their_game_and_no_worker_dies(tmp_path: Path) -> None:
    # Before: a worker wrote to its socket to the parent from two tasks at once (a claim
    # and the background sync); trio refused the second with BusyResourceError, which
    # answered a CREATE "(a server bug)" or killed the worker.
    node = _workers(tmp_path, "--max-world-builds", "30", "--max-games-per-address", "64")
    try:
        clients = [node.client() for _ in range(30)]
        ready = threading.Barrier(len(clients))
        answers: dict[int, str] = {}

        def create(number: int, client: Client) -> None:
            ready.wait()  # every connection sends at the same moment
            answers[number] = client.ask(f"CREATE free{number} classic")

        threads = [
            threading.Thread(target=create, args=(number, client))
            for number, client in enumerate(clients)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for number in range(len(clients)):
            assert answers.get(number, "").startswith(f"GAME free{number} "), answers
        # Every game is listed on both workers once their syncs ran: a worker the
        # sync killed would have taken its games with it.
        wanted = {f"free{number}" for number in range(len(clients))}
        for _ in range(4):  # new connections, spread by the kernel over both workers
            looker = node.client()
            eventually(lambda: wanted <= set(looker.games()), "every game is listed")  # noqa: B023
            looker.close()
        assert "worker exited" not in node.output
        assert "BusyResourceError" not in node.output
    finally:
        node.stop()


def test_a_worker_paused_then_killed_leaves_the_directory_serving(tmp_path: Path) -> None:
    # Before: the directory's connection to the killed worker was reset (it died with
    # lines unread); trio wrapped the error in an ExceptionGroup, the directory's handler
    # missed it, and the directory died for good while the parent served on.
    node = _workers(tmp_path, "--max-games-per-address", "64")
    try:
        workers = children_of(node.process.pid)
        assert len(workers) == 2
        clients = [node.client() for _ in range(16)]
        for number, client in enumerate(clients):
            # Answered: the connection is held by a worker, which /proc then shows.
            assert client.ask(f"HELLO P{number}") == "GOLD 3"
        paused, serving = workers
        ours = [client for client in clients if holder_of(client, workers) == serving]
        assert ours, "the kernel gave every connection to one worker; run again"
        creator = ours[0]
        os.kill(paused, signal.SIGSTOP)
        try:
            # Each game is told to the paused worker, whose socket fills, unread.
            for number in range(3):
                assert creator.ask(f"CREATE p{number} classic").startswith(f"GAME p{number} ")
        finally:
            os.kill(paused, signal.SIGKILL)
        # The directory meets the reset on its next line to the dead worker, or on reading.
        assert creator.ask("CREATE after classic").startswith("GAME after ")
        node.wait_for(r"worker exited")
        node.wait_for(r"(?s)worker exited.*(cluster joined|cluster directory unreachable)")
        assert "cluster directory unreachable" not in node.output
        fresh = node.client()
        assert fresh.ask("CREATE fresh classic").startswith("GAME fresh ")
    finally:
        node.stop()


def test_a_parent_killed_with_sigkill_takes_its_workers_and_port_with_it(tmp_path: Path) -> None:
    # Before: both workers served the dead parent's port for as long as they lived.
    node = _workers(tmp_path)
    workers = children_of(node.process.pid)
    assert len(workers) == 2
    player = node.client()
    assert player.ask("HELLO Ada") == "GOLD 3"
    node.kill()  # SIGKILL: the parent does nothing more
    assert player.line() == "BYE the server is shutting down; goodbye"  # its worker stopped
    eventually(lambda: not any(alive(worker) for worker in workers), "the workers have ended")
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", node.port), timeout=WAIT)


def test_a_parent_told_to_stop_kills_a_worker_that_does_not(tmp_path: Path) -> None:
    # Before: the parent waited for ever for a worker that did not exit on SIGTERM.
    node = _workers(tmp_path)
    stuck, other = children_of(node.process.pid)
    os.kill(stuck, signal.SIGSTOP)  # it cannot act on the SIGTERM it will be sent
    node.process.send_signal(signal.SIGTERM)
    assert node.process.wait(timeout=WAIT) == 0
    assert not alive(stuck) and not alive(other)
    node.wait_for(r"worker did not stop, killed")


def test_a_worker_told_to_stop_before_it_listens_stops_at_once(tmp_path: Path) -> None:
    # A directory that takes the worker's connection and never answers (a parent wedged):
    # before, the worker waited for its answer for ever and left SIGTERM unread, so its
    # parent, stopping, waited for ever too.
    path = str(tmp_path / "directory")
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.bind(path)
    silent.listen(1)
    worker = Node("--no-replays", "--cluster", f"unix:{path}", cwd=tmp_path, listening=False)
    try:
        silent.settimeout(WAIT)
        joining, _ = silent.accept()
        assert joining.makefile("rb").readline().startswith(b'{"op": "hello"')
        worker.process.send_signal(signal.SIGTERM)
        assert worker.process.wait(timeout=WAIT) == 0
        worker.wait_for(r"\(exited\)")
        assert "listening on" not in worker.output  # stopped before serving, not after joining
        joining.close()
    finally:
        silent.close()
        worker.stop()
