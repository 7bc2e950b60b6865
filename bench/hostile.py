"""``python -m bench.hostile``: one address does its worst on every way in at once.

A real ``dod-server`` (classic world, the 2013 port and the 2015 and 2016 dialect
ports, the web face, replays and the SQLite store) is attacked from 127.0.0.1 for
``--duration`` seconds by every kind of client at once, each as many as one address
may open (``--per-kind``):

* TCP floods: connections that write commands and garbage as fast as they can, on
  every port (the 2013 one and each dialect's);
* slowloris: connections that send one byte of a line a second, never its end;
* non-readers: connections that pipeline ``LOOK`` and never read a reply;
* ``REGISTER`` floods: each connection claims names as fast as it is answered;
* big ``CREATE``\\ s: the largest generated worlds a client may ask for;
* HTTP keep-alive floods: connections that ask ``/api/games`` and ``/metrics`` again
  and again on one keep-alive connection, and some that never read the answers;
* WebSocket non-readers: ``/ws`` connections that send large messages of commands and
  never read.

Meanwhile another player, from another address (127.0.0.2), sends ``LOOK`` every
``--interval`` seconds and times each answer. The benchmark prints the server's peak
resident memory beside the figure docs/security.md states (:data:`STATED_PEAK_MIB`),
the other player's ``LOOK`` p50 and p99 (and how many went unanswered), the load
average and the hypervisor's steal over the run, and what each attacker achieved.
Exit status 1 if the peak passed the stated figure, or the player went unanswered or
had its connection closed under it.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Final

import trio

from commandline import lifeline

from .load import cpu_ticks, percentile

STATED_PEAK_MIB: Final = 512
"""The peak resident memory docs/security.md ("Every way in") states for this run."""
ATTACKER: Final = "127.0.0.1"
PLAYER: Final = "127.0.0.2"
"""Another address on the loopback network (Linux routes all of 127/8 to it)."""
LISTENING: Final = re.compile(r"listening on [\d.]+:(\d+)(?: \(dialect (\d+)\))?")
WEB_AT: Final = re.compile(r"web page at http://[\d.]+:(\d+)/")
PACE: Final = 0.01
"""Seconds a flooding connection waits between writes: with a hundred of them this
still sends far faster than the server answers, and leaves the benchmark's own
process enough of a 2-core machine that the server, not it, is what is measured."""


@dataclass
class Tally:
    """What one kind of attacker achieved: connections made, bytes sent and read, and
    how its connections ended (the server's own words when it said any)."""

    opened: int = 0
    sent: int = 0
    read: int = 0
    ended: Counter[str] = field(default_factory=Counter)

    def line(self, name: str) -> str:
        endings = ", ".join(f"{count} {why}" for why, count in self.ended.most_common(3))
        return (
            f"  {name:<16} {self.opened:>5} connections, {self.sent / 2**20:>8.1f} MiB sent, "
            f"{self.read / 2**20:>7.1f} MiB read; ended: {endings or '-'}"
        )


@dataclass
class Target:
    process: subprocess.Popen[bytes]
    ports: dict[str, int]
    """Dialect → TCP port."""
    http: int


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def start(folder: Path) -> Target:
    """A dod-server with every way in open, on free ports."""
    maps = folder / "maps"
    maps.mkdir()
    argv = [
        str(Path(sys.executable).with_name("dod-server")),
        "--listen",
        "0",
        "--listen",
        "0:2015",
        "--listen",
        "0:2016",
        "--http-port",
        "0",
        "--maps-dir",
        str(maps),
        "--replay-dir",
        str(folder / "replays"),
        "--log-level",
        "warning",
    ]
    process = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, **lifeline.child_options()
    )
    assert process.stderr is not None
    ports: dict[str, int] = {}
    http = None
    deadline = time.monotonic() + 60
    while http is None:
        line = process.stderr.readline().decode(errors="replace")
        if not line or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"dod-server did not start: {line}")
        if match := LISTENING.search(line):
            ports[match.group(2) or "2013"] = int(match.group(1))
        if match := WEB_AT.search(line):
            http = int(match.group(1))
    # Drain its standard error so that a chatty server never blocks on a full pipe.
    stderr = process.stderr

    def drain() -> None:
        while stderr.read(65536):
            pass

    import threading

    threading.Thread(target=drain, daemon=True).start()
    return Target(process, ports, http)


async def _connect(port: int, tally: Tally) -> trio.SocketStream | None:
    sock = trio.socket.socket()
    try:
        await sock.bind((ATTACKER, 0))
        await sock.connect((ATTACKER, port))
    except OSError as error:
        sock.close()
        tally.ended[f"connect: {error.strerror}"] += 1
        return None
    tally.opened += 1
    return trio.SocketStream(sock)


async def _reader(stream: trio.SocketStream, tally: Tally) -> None:
    last = b""
    try:
        while data := await stream.receive_some(65536):
            tally.read += len(data)
            last = (last + data)[-200:]
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        pass
    bye = [line for line in last.split(b"\n") if line.startswith(b"BYE")]
    tally.ended[bye[-1][:60].decode(errors="replace") if bye else "closed"] += 1


async def _writer(
    port: int, tally: Tally, chunks: Callable[[int], bytes], *, read: bool, pause: float = 0.0
) -> None:
    """One connection that writes ``chunks(n)`` until the server or the run ends it."""
    stream = await _connect(port, tally)
    if stream is None:
        return
    async with stream, trio.open_nursery() as nursery:
        if read:
            nursery.start_soon(_reader, stream, tally)
        count = 0
        try:
            while True:
                data = chunks(count)
                await stream.send_all(data)
                tally.sent += len(data)
                count += 1
                await trio.sleep(pause)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            if not read:
                tally.ended["reset while writing"] += 1
        nursery.cancel_scope.cancel()


def _flood(count: int) -> bytes:
    return b"LOOK\nMOVE N\nGAMES\nDANCE\n\xff\xfe%s\nHELP\n" % (b"x" * (count % 900))


def _http_request(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n".encode()


def _websocket_upgrade() -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    return (
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        "Origin: http://127.0.0.1\r\n\r\n"
    ).encode()


def _websocket_message(size: int) -> bytes:
    """One masked text frame (as a browser sends) of ``LOOK`` lines, ``size`` bytes."""
    from wsproto.frame_protocol import FrameProtocol

    client = FrameProtocol(client=True, extensions=[])
    return bytes(client.send_data(("LOOK\n" * (size // 5)), fin=True))


async def attack(
    target: Target, per_kind: int, tallies: dict[str, Tally], only: list[str] | None = None
) -> None:
    """Start every attacker (those whose name begins with one of ``only``, if given);
    they run until the caller cancels them."""
    async with trio.open_nursery() as nursery:

        def many(name: str, count: int, run: Callable[[Tally], Awaitable[None]]) -> None:
            if only and not any(name.startswith(prefix) for prefix in only):
                return
            tally = tallies.setdefault(name, Tally())
            for _ in range(count):
                nursery.start_soon(run, tally)

        for dialect, port in target.ports.items():
            many(
                f"tcp flood {dialect}",
                per_kind,
                partial(_writer, port, chunks=_flood, read=True, pause=PACE),
            )
        tcp = target.ports["2013"]
        many(
            "slowloris",
            per_kind,
            lambda tally: _writer(tcp, tally, lambda n: b"L", read=True, pause=1.0),
        )
        many(
            "non-reader",
            per_kind,
            lambda tally: _writer(tcp, tally, lambda n: b"LOOK\n" * 4096, read=False, pause=PACE),
        )
        many(
            "register flood",
            per_kind,
            lambda tally: _writer(
                tcp,
                tally,
                lambda n: f"REGISTER n{os.getpid()}x{n}x{id(tally)}\n".encode(),
                read=True,
            ),
        )
        many(
            "big create",
            per_kind // 4,
            lambda tally: _writer(
                tcp,
                tally,
                lambda n: f"CREATE g{n}x{os.urandom(3).hex()} knight map=1000x1000\n".encode(),
                read=True,
            ),
        )
        many(
            "http keep-alive",
            per_kind,
            lambda tally: _writer(
                target.http,
                tally,
                lambda n: _http_request("/metrics" if n % 2 else "/api/games"),
                read=True,
                pause=PACE,
            ),
        )
        many(
            "http non-reader",
            per_kind,
            lambda tally: _writer(
                target.http,
                tally,
                lambda n: _http_request("/api/replays") * 16,
                read=False,
                pause=PACE,
            ),
        )
        upgrade = _websocket_upgrade()
        message = _websocket_message(1 << 20)
        many(
            "ws non-reader",
            per_kind,
            lambda tally: _writer(
                target.http,
                tally,
                lambda n: upgrade if n == 0 else message,
                read=False,
                pause=PACE,
            ),
        )


@dataclass
class Witness:
    """What the other player saw: each ``LOOK``'s time, those never answered, and how
    often its connection was closed under it (it connects again each time)."""

    latencies: list[float] = field(default_factory=list)
    unanswered: int = 0
    dropped: int = 0


async def play_along(interval: float, witness: Witness) -> None:
    """Another player, from another address: ``LOOK`` every ``interval``, each timed."""
    while witness.unanswered == 0:
        try:
            await _play_once(interval, witness)
        except (trio.BrokenResourceError, OSError):
            witness.dropped += 1


async def _play_once(interval: float, witness: Witness) -> None:
    sock = trio.socket.socket()
    await sock.bind((PLAYER, 0))
    await sock.connect((ATTACKER, _PORT[0]))
    stream = trio.SocketStream(sock)
    buffer = b""

    async def lines(count: int) -> None:
        nonlocal buffer
        while buffer.count(b"\n") < count:
            data = await stream.receive_some(65536)
            if not data:
                raise trio.BrokenResourceError("the server closed the player's connection")
            buffer += data
        for _ in range(count):
            buffer = buffer.split(b"\n", 1)[1]

    async with stream:
        # In a game of its own: an attacker that happens to win the default game must
        # not end the player's with it.
        game = f"witness{os.urandom(4).hex()}".encode()
        await stream.send_all(b"CREATE %s classic\nJOIN %s\nHELLO\n" % (game, game))
        await lines(3)
        while True:
            began = time.perf_counter()
            await stream.send_all(b"LOOK\n")
            with trio.move_on_after(10) as waited:
                await lines(6)
            if waited.cancelled_caught:
                witness.unanswered += 1
                return
            witness.latencies.append(time.perf_counter() - began)
            await trio.sleep(interval)


_PORT: list[int] = [0]


async def run(args: argparse.Namespace, target: Target) -> dict[str, object]:
    tallies: dict[str, Tally] = {}
    witness = Witness()
    peak = 0
    _PORT[0] = target.ports["2013"]
    idle = _rss_kib(target.process.pid)
    steal_before, ticks_before = cpu_ticks(None)
    load_before = os.getloadavg()[0]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(attack, target, args.per_kind, tallies, args.only)
        nursery.start_soon(play_along, args.interval, witness)
        deadline = trio.current_time() + args.duration
        while trio.current_time() < deadline:
            peak = max(peak, _rss_kib(target.process.pid))
            await trio.sleep(0.1)
        nursery.cancel_scope.cancel()
    steal_after, ticks_after = cpu_ticks(None)
    ticks = ticks_after - ticks_before
    latencies = sorted(witness.latencies)
    return {
        "idle_rss_mib": idle / 1024,
        "peak_rss_mib": peak / 1024,
        "stated_mib": STATED_PEAK_MIB,
        "look_p50_ms": percentile(latencies, 0.5) * 1000,
        "look_p99_ms": percentile(latencies, 0.99) * 1000,
        "looks": len(latencies),
        "unanswered": witness.unanswered,
        "dropped": witness.dropped,
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
        "steal": (steal_after - steal_before) / ticks if ticks > 0 else 0.0,
        "attackers": {
            name: tally.__dict__ | {"ended": dict(tally.ended)} for name, tally in tallies.items()
        },
        "tallies": tallies,
    }


def _plain(tally: Tally) -> dict[str, object]:
    return {"opened": tally.opened, "sent": tally.sent, "read": tally.read, **tally.ended}


def report(figures: dict[str, object], duration: float) -> str:
    tallies = figures["tallies"]
    assert isinstance(tallies, dict)
    lines = [
        f"one address at its worst on every way in for {duration:g} s:",
        *(tally.line(name) for name, tally in sorted(tallies.items())),
        f"server peak RSS {figures['peak_rss_mib']:.0f} MiB, idle "
        f"{figures['idle_rss_mib']:.0f} MiB (docs/security.md states at most "
        f"{figures['stated_mib']} MiB)",
        f"another player's LOOK: p50 {figures['look_p50_ms']:.1f} ms, "
        f"p99 {figures['look_p99_ms']:.1f} ms over {figures['looks']} "
        f"({figures['unanswered']} unanswered within 10 s; its connection closed under it "
        f"{figures['dropped']} times)",
        f"load average {figures['load_before']:.2f} before, {figures['load_after']:.2f} after; "
        f"steal {figures['steal']:.1%}",
    ]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.hostile", description=__doc__)
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of attack")
    parser.add_argument(
        "--per-kind", type=int, default=16, help="connections of each kind of attacker"
    )
    parser.add_argument(
        "--interval", type=float, default=0.05, help="seconds between the player's LOOKs"
    )
    parser.add_argument(
        "--only",
        action="append",
        default=None,
        metavar="KIND",
        help="only the attackers whose name begins so (tcp, slowloris, non-reader, "
        "register, big, http, ws); repeatable",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="dod-hostile-") as folder:
        target = start(Path(folder))
        try:
            figures = trio.run(run, args, target)
        finally:
            target.process.send_signal(signal.SIGTERM)
            try:
                target.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                target.process.kill()
                target.process.wait()
    print(report(figures, args.duration))
    if args.json is not None:
        plain = {key: value for key, value in figures.items() if key != "tallies"}
        args.json.write_text(json.dumps(plain, indent=2))
    failed = (
        figures["peak_rss_mib"] > STATED_PEAK_MIB  # type: ignore[operator]
        or figures["unanswered"]
        or figures["dropped"]
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
