"""``python -m bench.web_hostile``: one hostile address against the web face, measured.

Starts a real ``dod-server`` (game and web port on free ports, no replays, no records)
and runs the scenarios of issue 28 against it, printing one line each:

* ``ws-flood``: ``--sockets`` WebSockets (6) that never read, each sending messages of
  ``--message-bytes`` (16 MiB) of ``LOOK`` lines for ``--seconds`` (10); the server's
  resident memory before, and its peak meanwhile (``/proc/PID/status``);
* ``sigterm``: a WebSocket that never reads fills the server's output (with
  ``--send-timeout 600``, so only shutdown can end it); seconds from ``SIGTERM`` to exit;
* ``keep-alive``: one address keeps up to ``--http-connections`` (1,100) HTTP
  connections alive for ``--seconds``, the server under a 1,024-descriptor limit; how
  many it held at once, refused (``503``) or failed, and what a player from another
  address is answered then.

``--server-path DIR`` runs the server package found in ``DIR`` (an older checkout's,
for the figure before a change): the server runs there, with it first on its path.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

from wsproto import ConnectionType, WSConnection
from wsproto.events import Request
from wsproto.frame_protocol import FrameProtocol

from commandline import lifeline

WEB_AT = re.compile(r"web page at http://[\d.]+:(\d+)/")
LISTENING = re.compile(r"listening on [\d.]+:(\d+)")
SERVER = [sys.executable, "-m", "server", "--port", "0", "--http-port", "0", "--no-replays"]
SERVER += ["--no-db", "--log-level", "error"]


@dataclass
class Running:
    process: subprocess.Popen[str]
    port: int
    web_port: int

    def rss(self) -> int:
        """The server's resident memory now, in bytes."""
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0


@contextlib.contextmanager
def server(*args: str, server_path: str | None, nofile: int | None = None) -> Iterator[Running]:
    env = dict(os.environ)
    if server_path:
        env["PYTHONPATH"] = server_path + os.pathsep + env.get("PYTHONPATH", "")

    def limit() -> None:
        if nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    process = subprocess.Popen(
        [*SERVER, *args],
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        cwd=server_path,  # ``-m`` puts the working folder first on the path
        preexec_fn=limit,
        **lifeline.child_options(env=env),
    )
    assert process.stderr is not None
    port = web = None
    while web is None or port is None:
        line = process.stderr.readline()
        if not line:
            raise SystemExit("the server did not start")
        if match := LISTENING.search(line):
            port = int(match.group(1))
        if match := WEB_AT.search(line):
            web = int(match.group(1))
    threading.Thread(target=process.stderr.read, daemon=True).start()
    try:
        yield Running(process, port, web)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


def open_websocket(port: int, receive_buffer: int | None = None) -> socket.socket:
    sock = socket.socket()
    if receive_buffer is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.connect(("127.0.0.1", port))
    ws = WSConnection(ConnectionType.CLIENT)
    sock.sendall(ws.send(Request(host=f"127.0.0.1:{port}", target="/ws")))
    head = sock.recv(4096)
    if b" 101 " not in head:
        raise SystemExit(f"no WebSocket: {head[:80]!r}")
    return sock


def frame(size: int) -> bytes:
    text = ("LOOK\n" * (size // 5 + 1))[: size - 1]
    return bytes(FrameProtocol(client=True, extensions=[]).send_data(text, fin=True))


def ws_flood(args: argparse.Namespace) -> None:
    with server(server_path=args.server_path) as running:
        before = running.rss()
        data = frame(args.message_bytes)
        stop = time.monotonic() + args.seconds
        closed = [0]
        ended: list[str] = []

        def flood() -> None:
            try:
                sock = open_websocket(running.web_port, receive_buffer=4096)
                while time.monotonic() < stop:  # blocks while the server reads nothing
                    sock.sendall(data)
            except OSError as error:
                closed[0] += 1
                ended.append(type(error).__name__)

        threads = [threading.Thread(target=flood, daemon=True) for _ in range(args.sockets)]
        for thread in threads:
            thread.start()
        peak = before
        while time.monotonic() < stop:
            peak = max(peak, running.rss())
            time.sleep(0.05)
        print(
            f"ws-flood: {args.sockets} WebSockets sending {args.message_bytes} B messages, "
            f"never reading, {args.seconds:g} s: server RSS {before / 2**20:.0f} MiB before, "
            f"peak {peak / 2**20:.0f} MiB; {closed[0]} sockets ended by the server "
            f"{sorted(set(ended))}"
        )


def sigterm(args: argparse.Namespace) -> None:
    with server("--send-timeout", "600", server_path=args.server_path) as running:
        sock = open_websocket(running.web_port, receive_buffer=4096)
        sock.settimeout(3)
        data = frame(15000)
        with contextlib.suppress(OSError):
            while True:  # until the server stops reading: it is stuck writing to us
                sock.sendall(data)
        began = time.monotonic()
        running.process.send_signal(signal.SIGTERM)
        try:
            running.process.wait(timeout=args.seconds * 6)
            print(f"sigterm: the server exited {time.monotonic() - began:.1f} s after SIGTERM")
        except subprocess.TimeoutExpired:
            print(f"sigterm: the server had not exited {args.seconds * 6:g} s after SIGTERM")
        sock.close()


def keep_alive(args: argparse.Namespace) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))
    with server(server_path=args.server_path, nofile=1024) as running:
        request = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{running.web_port}\r\n\r\n".encode()
        held: list[socket.socket] = []
        refused = dropped = most = 0

        def ask(sock: socket.socket) -> bytes:
            sock.sendall(request)
            return sock.recv(4096)

        stop = time.monotonic() + args.seconds
        while time.monotonic() < stop:
            # Top the pool up to the target, then ask again on every connection held
            # (inside the keep-alive time), dropping those the server closed.
            while len(held) < args.http_connections and time.monotonic() < stop:
                try:
                    sock = socket.create_connection(("127.0.0.1", running.web_port), timeout=5)
                    answer = ask(sock)
                except OSError:
                    dropped += 1
                    continue
                if b" 200 " in answer[:20]:
                    held.append(sock)
                else:
                    refused += b" 503 " in answer[:20]
                    dropped += b" 503 " not in answer[:20]
                    sock.close()
                    break  # the server refuses: hold what we have
            most = max(most, len(held))
            alive = []
            for sock in held:
                try:
                    if b" 200 " in ask(sock)[:20]:
                        alive.append(sock)
                        continue
                except OSError:
                    pass
                sock.close()
            held = alive
        try:  # a player from another address (127.0.0.2: loopback too)
            player = socket.create_connection(
                ("127.0.0.1", running.port), timeout=5, source_address=("127.0.0.2", 0)
            )
            player.sendall(b"HELLO\n")
            hello = player.recv(100).decode(errors="replace").strip() or "(closed)"
        except OSError as error:
            hello = f"({error})"
        print(
            f"keep-alive: one address keeping up to {args.http_connections} HTTP connections "
            f"alive for {args.seconds:g} s, the server limited to 1024 descriptors: at most "
            f"{most} held at once, {refused} refused (503), {dropped} failed; then a player "
            f"from another address is answered {hello!r}"
        )
        for sock in held:
            sock.close()


SCENARIOS = {"ws-flood": ws_flood, "sigterm": sigterm, "keep-alive": keep_alive}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=sorted(SCENARIOS))
    parser.add_argument("--sockets", type=int, default=6)
    parser.add_argument("--message-bytes", type=int, default=16 * 2**20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--http-connections", type=int, default=1100)
    parser.add_argument("--server-path")
    args = parser.parse_args()
    for name, scenario in SCENARIOS.items():
        if args.only in (None, name):
            scenario(args)


if __name__ == "__main__":
    main()
