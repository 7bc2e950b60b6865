"""A TCP forwarder the test can cut, stall, slow and make lossy: a link that goes away.

:class:`Link` forwards ``host:port`` to a target. :meth:`Link.cut` drops every
connection (each end sees a reset or an end) and refuses new ones until
:meth:`Link.heal`; :meth:`Link.stall` is a silent cut (connections stay open and new
ones are taken, but nothing crosses, as when packets vanish on a black-hole route).
``delay`` holds every chunk that long before it goes on, each way; ``loss`` holds
that share of chunks for a retransmission time (:data:`RETRANSMIT`) more, which is
what a lost segment costs a TCP connection. Chunks keep their order.
"""

from __future__ import annotations

import contextlib
import random
import socket
import threading
import time
from collections import deque

RETRANSMIT = 0.3
"""Seconds a chunk "lost" on a lossy link is held (about Linux's first TCP retransmission)."""


class Link:
    """Forwards ``host:port`` to ``target``; see the module docstring."""

    def __init__(
        self,
        target: tuple[str, int],
        host: str = "127.0.0.1",
        *,
        delay: float = 0.0,
        loss: float = 0.0,
        seed: int | None = None,
    ) -> None:
        self.target = target
        self.host = host
        self.port = 0
        self.delay = delay
        self.loss = loss
        self.stalled = False
        self._random = random.Random(seed)
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self.heal()

    def heal(self) -> None:
        """Carry connections again (new ones, after a cut; every one, after a stall)."""
        self.stalled = False
        if self._listener is not None:
            return
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((self.host, self.port))
        listener.listen(64)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def stall(self) -> None:
        """Carry nothing more, silently, until :meth:`heal` or :meth:`cut`."""
        self.stalled = True

    def cut(self) -> None:
        with self._lock:
            listener, self._listener = self._listener, None
            doomed = list(self._sockets)
            self._sockets.clear()
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        for sock in doomed:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self._lock:
                if self._listener is not listener:
                    client.close()
                    server.close()
                    return
                self._sockets |= {client, server}
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _hold(self) -> float:
        """Seconds the next chunk is held before it may go on."""
        held = self.delay
        if self.loss and self._random.random() < self.loss:
            held += RETRANSMIT
        return held

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        queue: deque[tuple[float, bytes]] = deque()
        ready = threading.Condition()
        ended = [False]

        def send() -> None:
            with contextlib.suppress(OSError):
                while True:
                    with ready:
                        ready.wait_for(lambda: queue or ended[0])
                        if not queue:
                            break
                        due, data = queue[0]
                    pause = due - time.monotonic()
                    if pause > 0:
                        time.sleep(pause)
                    while self.stalled:
                        time.sleep(0.05)
                    with ready:
                        queue.popleft()
                    sink.sendall(data)
            with contextlib.suppress(OSError):
                sink.shutdown(socket.SHUT_WR)

        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                with ready:
                    last = queue[-1][0] if queue else 0.0
                    queue.append((max(last, time.monotonic() + self._hold()), data))
                    ready.notify()
        with ready:
            ended[0] = True
            ready.notify()
