"""``python -m bench.login_flood``: one address floods ``REGISTER``/``LOGIN``; what others pay.

The reproduction of issue 28, item 3. A real server (a subprocess on a free loopback
port, with a SQLite store in a scratch folder) is measured quietly for ``--warmup``
seconds, then ``--connections`` connections from 127.0.0.1 send ``REGISTER`` of fresh
names and ``LOGIN`` with wrong tokens as fast as they are answered, for ``--duration``
seconds. Meanwhile another client sends ``LOOK`` every ``--interval`` seconds and
times each answer. Printed: the server's resident memory before, at its peak and
after; its CPU seconds; the other client's ``LOOK`` latency (median, p99, max) while
quiet and under the flood; and how the flood's commands were answered.

Extra server flags follow ``--``: ``python -m bench.login_flood -- --hash-threads 2``.
``--server-tree DIR`` runs the server of another checkout (``python -m
dungeon_of_doom.server`` there), to measure a version before a change.
"""

from __future__ import annotations

import argparse
import collections
import os
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

import trio

from .load import ServerProcess, percentile, start_server


def _looker(port: int, interval: float, stop: threading.Event, out: list[float]) -> None:
    """Send ``LOOK`` every ``interval`` seconds on a blocking socket; append each latency."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        reader = sock.makefile("rb")
        sock.sendall(b"HELLO looker\n")
        reader.readline()
        while not stop.is_set():
            start = time.perf_counter()
            sock.sendall(b"LOOK\n")
            first = reader.readline()
            assert first == b"LOOKREPLY\n", first
            for _ in range(5):
                reader.readline()
            out.append(time.perf_counter() - start)
            time.sleep(interval)


async def _flooder(port: int, index: int, until: float, answers: collections.Counter[str]) -> None:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    buffer = b""
    count = 0

    async def ask(line: str) -> str:
        nonlocal buffer
        await stream.send_all(line.encode() + b"\n")
        while b"\n" not in buffer:
            data = await stream.receive_some(4096)
            if not data:
                raise EOFError
            buffer += data
        reply, _, buffer = buffer.partition(b"\n")
        return reply.decode()

    try:
        while trio.current_time() < until:
            count += 1
            name = f"flood{index}x{count}"
            answer = await ask(f"REGISTER {name}")
            answers["REGISTER " + _kind(answer)] += 1
            answer = await ask(f"LOGIN flood{index}x1 {'A' * 43}")
            answers["LOGIN " + _kind(answer)] += 1
    except (EOFError, trio.BrokenResourceError, OSError):
        answers["connection closed"] += 1
    finally:
        await stream.aclose()


def _kind(answer: str) -> str:
    """The reply without names or tokens, so equal answers count together."""
    words = answer.split()
    if not words:
        return "(empty)"
    if words[0] == "ERROR":
        text = " ".join(w for w in words[1:] if not w.startswith(("'flood", "flood")))
        return "ERROR " + text[:70]
    return words[0]


async def _flood(port: int, connections: int, duration: float) -> collections.Counter[str]:
    answers: collections.Counter[str] = collections.Counter()
    until = trio.current_time() + duration
    async with trio.open_nursery() as nursery:
        for index in range(connections):
            nursery.start_soon(_flooder, port, index, until, answers)
    return answers


def _sample(server: ServerProcess, stop: threading.Event, peak: list[int]) -> None:
    while not stop.is_set():
        peak[0] = max(peak[0], server.rss_kib())
        time.sleep(0.05)


def _figures(latencies: list[float]) -> str:
    if not latencies:
        return "no answers"
    ordered = sorted(latencies)
    return (
        f"median {percentile(ordered, 0.5) * 1000:.1f} ms, "
        f"p99 {percentile(ordered, 0.99) * 1000:.1f} ms, "
        f"max {ordered[-1] * 1000:.1f} ms ({len(ordered)} LOOKs)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.login_flood", description=__doc__)
    parser.add_argument("--connections", type=int, default=40)
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--interval", type=float, default=0.02)
    parser.add_argument("--server-tree", metavar="DIR", help="run the server from this checkout")
    parser.add_argument("server_args", nargs="*", help="extra dod-server flags, after --")
    args = parser.parse_args(argv)
    if args.server_tree is not None:
        os.chdir(
            args.server_tree
        )  # ``python -m dungeon_of_doom.server`` finds the package there first
    with tempfile.TemporaryDirectory() as folder:
        server = start_server(
            "game",
            [
                sys.executable,
                "-m",
                "dungeon_of_doom.server",
                "--port",
                "0",
                "--no-http",
                "--log-level",
                "warning",
                "--idle-timeout",
                "0",
                "--max-connections-per-address",
                str(args.connections + 10),
                "--replay-dir",
                str(Path(folder) / "replays"),
                "--db",
                f"sqlite:///{Path(folder) / 'records.db'}",
                *args.server_args,
            ],
        )
        try:
            quiet: list[float] = []
            flooded: list[float] = []
            stop_quiet = threading.Event()
            looker = threading.Thread(
                target=_looker, args=(server.port, args.interval, stop_quiet, quiet)
            )
            looker.start()
            time.sleep(args.warmup)
            rss_before = server.rss_kib()
            cpu_before = server.cpu_seconds()
            stop_quiet.set()
            looker.join()
            stop = threading.Event()
            peak = [rss_before]
            threads = [
                threading.Thread(target=_looker, args=(server.port, args.interval, stop, flooded)),
                threading.Thread(target=_sample, args=(server, stop, peak)),
            ]
            for thread in threads:
                thread.start()
            began = time.monotonic()
            answers = trio.run(_flood, server.port, args.connections, args.duration)
            lasted = time.monotonic() - began
            stop.set()
            for thread in threads:
                thread.join()
            rss_after = server.rss_kib()
            cpu = server.cpu_seconds() - cpu_before
        finally:
            server.stop()
    print(
        f"flood: {args.connections} connections, {args.duration:g} s; "
        f"server flags: {args.server_args}"
    )
    print(
        f"server RSS: {rss_before / 1024:.0f} MiB before, {peak[0] / 1024:.0f} MiB at peak "
        f"(+{(peak[0] - rss_before) / 1024:.0f} MiB), {rss_after / 1024:.0f} MiB after"
    )
    print(f"server CPU during the flood: {cpu:.1f} s in {lasted:.1f} s (the last answers included)")
    print(f"another client's LOOK, quiet:   {_figures(quiet)}")
    print(f"another client's LOOK, flooded: {_figures(flooded)}")
    for kind, count in sorted(answers.items()):
        print(f"  {count:6d}  {kind}")


if __name__ == "__main__":
    main()
