"""``python -m arena.jail``: one bot, shut in; run as the first process of new PID and
network namespaces (``unshare --net --pid --fork``).

The arena starts it as::

    unshare --user --map-root-user --net --pid --fork --kill-child \\
        python -m arena.jail --fd N --port P -- BOT COMMAND...

It brings up the namespace's own loopback, listens on ``127.0.0.1:P`` for exactly one
connection, starts the bot, and copies bytes between that connection and the inherited
socket ``N`` (whose other end the arena holds, and relays to the server under the
entrant's name). So:

* the bot's one connection is the only way out: the namespace has no other network, and
  the listener is closed once the bot has connected;
* when the bot exits, or the jail is stopped (SIGTERM, SIGKILL through ``unshare
  --kill-child``, or the arena's lifeline ending: :mod:`commandline.lifeline`), the
  jail exits, and the kernel kills every process left in the PID
  namespace, however detached (``setsid``, double forks): nothing a bot started outlives
  its match.

The bot's standard output and error are the jail's (the arena reads them, within a
bound: :mod:`arena.botlog`). The jail's exit status is the bot's (128 + N for a signal N).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
from typing import Final

from commandline import lifeline

SIOCGIFFLAGS: Final = 0x8913
SIOCSIFFLAGS: Final = 0x8914
IFF_UP: Final = 0x1
DRAIN_TIME: Final = 2.0
"""Seconds the bot's last bytes have to reach the arena after the bot exited."""


def loopback_up() -> None:
    """A new network namespace's ``lo`` is down: bring it up (``ip link set lo up``)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack("16sH", b"lo", 0)
        flags = struct.unpack("16sH", fcntl.ioctl(probe, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(probe, SIOCSIFFLAGS, struct.pack("16sH", b"lo", flags | IFF_UP))


def copy(source: socket.socket, target: socket.socket) -> None:
    """Bytes from ``source`` to ``target`` until either side ends, then end ``target``'s
    writing half."""
    try:
        while chunk := source.recv(65536):
            target.sendall(chunk)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_WR)


def serve(listener: socket.socket, outside: socket.socket, connected: threading.Event) -> None:
    """Take the bot's one connection, close the door behind it, and relay."""
    try:
        bot, _ = listener.accept()
    except OSError:
        return
    finally:
        listener.close()
    connected.set()
    threading.Thread(target=copy, args=(outside, bot), daemon=True).start()
    copy(bot, outside)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.jail")
    parser.add_argument("--fd", type=int, required=True, help="the socket to the arena")
    parser.add_argument("--port", type=int, required=True, help="where the bot connects")
    parser.add_argument("command", nargs="+")
    options = parser.parse_args(argv)
    # The first process of a PID namespace gets no signal it does not handle: stopped
    # from outside, end at once (taking every process in the namespace with it).
    signal.signal(signal.SIGTERM, lambda *_: os._exit(128 + signal.SIGTERM))
    signal.signal(signal.SIGINT, lambda *_: os._exit(128 + signal.SIGINT))
    # The arena ended without stopping us (kill -9): end at once, and the namespace too.
    lifeline.hold(on_cut=lambda: os._exit(lifeline.PARENT_GONE_STATUS))
    outside = socket.socket(fileno=options.fd)
    loopback_up()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", options.port))
    listener.listen(1)
    connected = threading.Event()
    relay = threading.Thread(target=serve, args=(listener, outside, connected), daemon=True)
    relay.start()
    try:
        bot = subprocess.Popen(options.command, stdin=subprocess.DEVNULL)
    except OSError as error:
        print(f"arena.jail: cannot start {options.command[0]}: {error}", file=sys.stderr)
        return 127
    status = bot.wait()
    if connected.is_set():  # (a bot that never connected has nothing on its way)
        relay.join(DRAIN_TIME)
    sys.stdout.flush()
    # Exit without waiting for anything else: the kernel ends the namespace's other processes.
    os._exit(status if status >= 0 else 128 - status)


if __name__ == "__main__":
    sys.exit(main())
