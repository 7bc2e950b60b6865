"""The process survives what the system does to it: a dead log pipe, no file descriptors."""

from __future__ import annotations

import json
import resource
import signal
import subprocess

import trio

from ..helpers import Peer
from ..limits import process_limit
from ..server.test_cli import SCRIPT, _started


async def test_the_server_plays_on_when_standard_error_is_closed() -> None:
    process = await trio.lowlevel.open_process(
        [SCRIPT, "--port", "0", "--map", "tiny", "--no-replays"],
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    try:
        port, _ = await _started(process)
        await process.stderr.aclose()  # type: ignore[union-attr]  # the log pipe is gone
        peers = [await Peer.connect(port) for _ in range(3)]  # each connect is logged
        for peer in peers:
            await peer.send("DANCE\nHELLO\n")  # a protocol error is logged too
            assert (await peer.read_line()).startswith("ERROR unknown command")
            assert await peer.read_line() == "GOLD 1"
        await peers[0].send("QUIT\n")
        assert await peers[0].read_to_end() == b"BYE Thanks for playing.\n"
        assert await peers[1].ask("HELLO") == ["GOLD 1"]
        process.send_signal(signal.SIGTERM)
        with trio.fail_after(process_limit()):
            assert await process.wait() == 0
    finally:
        process.kill()


def _few_descriptors(limit: int = 48) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))


async def test_running_out_of_file_descriptors_only_delays_new_clients() -> None:
    limit = 48
    process = await trio.lowlevel.open_process(
        [SCRIPT, "--port", "0", "--map", "tiny", "--no-replays", "--log-format", "json"],
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        preexec_fn=_few_descriptors,
    )
    try:
        port, seen = await _started(process)
        peers = []
        for _ in range(limit):  # more than the server can hold: the rest wait to be accepted
            peer = await Peer.connect(port)
            await peer.send("EXTEND\n")  # answered without taking a square of the map
            peers.append(peer)
        with trio.fail_after(process_limit()):
            while b"EMFILE" not in seen:
                seen += await process.stderr.receive_some(65536)  # type: ignore[union-attr]
        record = next(json.loads(line) for line in seen.splitlines() if b"EMFILE" in line)
        assert record["event"].startswith("accept returned EMFILE")
        assert "exception" not in record, "an operating-system condition, not a traceback"
        assert await peers[0].read_line() == "EXTENDED events chat", "the first are served"
        for peer in peers[: limit // 2]:
            await peer.stream.aclose()
        for peer in peers[limit // 2 :]:  # the waiting ones are accepted as descriptors free
            assert await peer.read_line() == "EXTENDED events chat"
        process.send_signal(signal.SIGTERM)
        with trio.fail_after(process_limit()):
            while await process.stderr.receive_some(65536):  # type: ignore[union-attr]
                pass
            assert await process.wait() == 0
    finally:
        process.kill()
