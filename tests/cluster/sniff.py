"""What crosses a link, copied off it as anyone on the network could: a packet socket.

:class:`Sniffer` reads every IPv4 TCP segment on one interface of the test's own
namespace (loopback, say) from a thread, and keeps the payloads sent to one port. It
needs root (a packet socket); :func:`skip_unless_root` skips saying why otherwise.
"""

from __future__ import annotations

import os
import socket
import struct
import threading

import pytest

ETH_P_ALL = 0x0003
ETHERNET_HEADER = 14


def skip_unless_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("reading packets off a link needs root (CI runs as root)")


class Sniffer:
    """The TCP payloads sent to ``port`` on ``interface``, as they pass."""

    def __init__(self, interface: str, port: int) -> None:
        self.port = port
        self.payloads: list[bytes] = []
        self._changed = threading.Condition()
        self._socket = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        self._socket.bind((interface, 0))
        self._socket.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            try:
                frame = self._socket.recv(1 << 17)
            except TimeoutError:
                continue
            except OSError:
                return
            payload = self._tcp_payload(frame[ETHERNET_HEADER:])
            if payload:
                with self._changed:
                    self.payloads.append(payload)
                    self._changed.notify_all()

    def _tcp_payload(self, packet: bytes) -> bytes | None:
        if len(packet) < 20 or packet[0] >> 4 != 4 or packet[9] != socket.IPPROTO_TCP:
            return None
        total = struct.unpack("!H", packet[2:4])[0]
        segment = packet[(packet[0] & 0x0F) * 4 : total]
        if len(segment) < 20 or struct.unpack("!H", segment[2:4])[0] != self.port:
            return None
        return segment[(segment[12] >> 4) * 4 :]

    def first(self, starting: bytes, timeout: float) -> bytes:
        """The first payload seen that starts with ``starting`` (waiting for it)."""
        with self._changed:
            found: list[bytes] = []

            def seen() -> bool:
                found[:] = [p for p in self.payloads if p.startswith(starting)][:1]
                return bool(found)

            assert self._changed.wait_for(seen, timeout), f"no {starting!r} crossed the link"
            return found[0]

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self._socket.close()
