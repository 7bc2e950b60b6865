"""``SIGTERM`` while games run: every client gets a goodbye line, every replay is
written to its end, and the server exits with status 0."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import trio

from ..helpers import Peer
from ..limits import process_limit
from ..server.test_cli import SCRIPT, _started

GOODBYE = b"BYE the server is shutting down; goodbye\n"


async def test_sigterm_says_goodbye_flushes_replays_and_exits_cleanly(tmp_path: Path) -> None:
    replays = tmp_path / "replays"
    process = await trio.lowlevel.open_process(
        [SCRIPT, "--port", "0", "--map", "tiny", "--seed", "1", "--replay-dir", str(replays)],
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    try:
        port, _ = await _started(process)
        alice, bob, carol = [await Peer.connect(port) for _ in range(3)]
        assert await alice.ask("HELLO") == ["GOLD 1"]
        assert await alice.ask("MOVE W") == ["FAIL"]
        assert (await bob.ask("CREATE side classic map=tiny"))[0].startswith("GAME side")
        assert (await bob.ask("JOIN side"))[0].startswith("GAME side")
        assert (await bob.ask("MOVE E"))[0] in ("SUCCESS", "FAIL")
        assert (await bob.ask("MOVE E"))[0] in ("SUCCESS", "FAIL")
        assert (await carol.ask("WATCH side"))[0].startswith("GAME side")

        async with trio.open_nursery() as nursery:
            endings: dict[str, bytes] = {}

            async def read_to_end(name: str, peer: Peer) -> None:
                endings[name] = await peer.read_to_end()

            for name, peer in (("alice", alice), ("bob", bob), ("carol", carol)):
                nursery.start_soon(read_to_end, name, peer)
            process.send_signal(signal.SIGTERM)
        assert endings["alice"] == GOODBYE
        assert endings["bob"] == GOODBYE
        assert endings["carol"].endswith(b"\n" + GOODBYE), "a spectator is told too"
        with trio.fail_after(process_limit()):
            assert await process.wait() == 0
    finally:
        process.kill()
    records = {
        path.name.split("-")[0]: [json.loads(line) for line in path.read_text().splitlines()]
        for path in replays.glob("*.jsonl")
    }
    assert sorted(records) == ["default", "side"]
    assert [r["actions"] for r in records["default"] if "actions" in r] == [[[1, "MOVE W"]]]
    assert [r["actions"] for r in records["side"] if "actions" in r] == [
        [[1, "MOVE E"]],
        [[1, "MOVE E"]],
    ]
    for game in records.values():
        assert game[-1]["end"] == "server stopped"
