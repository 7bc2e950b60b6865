"""``python -m bench.replay_fetch``: another player's ``LOOK`` while a big replay is fetched.

Writes a replay of ``--moves`` moves (480,000 by default: about 17 MB, the size of the
issue 28 report) into a fresh replay folder, starts ``dod-server`` on it (with the
source tree ``--tree``, so that an older checkout can be measured the same way), and
fetches the replay from ``/api/replays/<file>`` as the web page's viewer does, following
``next`` when the answer is paged, while a player sends ``LOOK`` after ``LOOK``. Prints
the player's ``LOOK`` latency (median, p99, max) during the fetch, the fetch's time and
bytes, and the server's peak resident memory (``VmHWM``) before and after.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from commandline import lifeline


def write_replay(folder: Path, moves: int) -> Path:
    """A replay of one player walking west and east on the tiny map."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "default-20260101T000000Z.jsonl"
    header = {
        "replay": 1,
        "game": "default",
        "world": "classic",
        "map": "tiny",
        "seed": 1,
        "turn": None,
        "rules": {"server": "bench", "world": None},
        "started": "2026-01-01T00:00:00Z",
    }
    with path.open("w") as file:
        file.write(json.dumps(header) + "\n")
        file.write('{"round":0,"join":1,"kind":"P"}\n{"round":0,"name":1,"as":"Ada"}\n')
        for number in range(1, moves + 1):
            move = "MOVE E" if number % 2 else "MOVE W"
            file.write(f'{{"round":{number},"actions":[[1,"{move}"]]}}\n')
        file.write(f'{{"round":{moves},"leave":1,"why":"quit"}}\n')
        file.write(f'{{"round":{moves},"end":"all players left"}}\n')
    return path


def peak_memory(pid: int) -> int:
    text = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"VmHWM:\s+(\d+) kB", text)
    return int(match.group(1)) * 1024 if match else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", default=str(Path(__file__).parents[1]), help="source tree")
    parser.add_argument("--moves", type=int, default=480_000)
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="dod-replay-bench-"))
    replay = write_replay(folder / "replays", options.moves)
    print(f"replay: {replay.stat().st_size / 1e6:.1f} MB, {options.moves} moves")
    command = [sys.executable, "-m", "server", "--port", "0", "--http-port", "0", "--map", "tiny"]
    command += ["--replay-dir", str(folder / "replays"), "--no-db", "--log-level", "warning"]
    server = subprocess.Popen(
        command,
        cwd=folder,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        **lifeline.child_options(env={**os.environ, "PYTHONPATH": options.tree}),
    )
    # The default buffering makes the pipe a BufferedReader, which can return what is there.
    assert isinstance(server.stderr, io.BufferedReader)
    seen = b""
    while not (
        (port := re.search(rb"listening on [^\s:]+:(\d+)", seen))
        and (web := re.search(rb"(http://[^\s/]+/)", seen))
    ):
        chunk = server.stderr.read1(4096)
        assert chunk, seen.decode()
        seen += chunk
    threading.Thread(target=lambda: server.stderr.read(), daemon=True).start()  # type: ignore[union-attr]
    try:
        player = socket.create_connection(("127.0.0.1", int(port.group(1))))
        reader = player.makefile("rb")
        player.sendall(b"HELLO\n")
        reader.readline()
        before = peak_memory(server.pid)
        done = threading.Event()
        latencies: list[float] = []

        def look() -> None:
            while not done.is_set():
                started = time.perf_counter()
                player.sendall(b"LOOK\n")
                for _ in range(6):
                    reader.readline()
                latencies.append(time.perf_counter() - started)

        looker = threading.Thread(target=look)
        looker.start()
        url = f"{web.group(1).decode()}api/replays/{replay.name}"
        started = time.perf_counter()
        fetched = pages = 0
        address = url
        while True:
            with urllib.request.urlopen(address, timeout=600) as response:
                body = response.read()
            fetched += len(body)
            pages += 1
            following = json.loads(body).get("next")
            if following is None:
                break
            address = f"{url}?from={following}&count=500"
        seconds = time.perf_counter() - started
        done.set()
        looker.join()
        after = peak_memory(server.pid)
        ordered = sorted(latencies)
        p99 = ordered[int(len(ordered) * 0.99)]
        print(
            f"fetch: {seconds:.1f} s, {fetched / 1e6:.1f} MB in {pages} answers; "
            f"LOOK during it: {len(ordered)} answered, median "
            f"{statistics.median(ordered) * 1e3:.2f} ms, p99 {p99 * 1e3:.2f} ms, "
            f"max {ordered[-1] * 1e3:.1f} ms; server peak memory "
            f"{before / 2**20:.0f} MiB before, {after / 2**20:.0f} MiB after"
        )
    finally:
        server.terminate()
        server.wait(timeout=60)


if __name__ == "__main__":
    main()
