"""The links between nodes of a cluster: TCP sockets that notice a silent peer, over
mutual TLS where the operator gives certificates.

What a caller may rely on:

* every link (:meth:`Links.connect` and :meth:`Links.accept`) has TCP keepalive and
  ``TCP_USER_TIMEOUT`` set from :attr:`Links.timeout`: bytes the other node has not
  acknowledged for that long, or keepalive probes unanswered for about that long on
  an idle link, end the link with an error (``TimeoutError``), where a cut link would
  otherwise stay silent for some 15 minutes of retransmissions;
* with a certificate, key and CA (``--relay-cert``, ``--relay-key``, ``--relay-ca``)
  every link is TLS (1.2 at least) in both directions: each node shows its
  certificate and accepts only the other's signed by that CA, and the node connecting
  checks that the certificate names the host it dialled (the host part of the relay
  address the other node publishes: give each node a certificate whose
  subjectAltName holds that name or IP address);
* without them, links are plain TCP: the relay's signed handshake still proves who
  may be carried, but anyone on the network between two nodes reads and can cut what
  they say (docs/security.md).
"""

from __future__ import annotations

import contextlib
import math
import socket
import ssl
from dataclasses import dataclass
from typing import Final, Protocol

import trio

from ..setup.settings import ConfigError

KEEPALIVE_PROBES: Final = 3
"""Keepalive probes unanswered before an idle link is given up."""
RECEIVE_SIZE: Final = 65536
"""Bytes read off a link at once at most."""
GONE: Final = (trio.BrokenResourceError, trio.ClosedResourceError, OSError)
"""What a link that failed raises (a TLS link's errors come as BrokenResourceError)."""


class RelaySettings(Protocol):
    """The settings links are made by (a :class:`~server.setup.config.ServerConfig` has them)."""

    @property
    def relay_timeout(self) -> float: ...
    @property
    def relay_cert(self) -> str | None: ...
    @property
    def relay_key(self) -> str | None: ...
    @property
    def relay_ca(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class Links:
    """How this node opens and takes links to other nodes; see the module docstring."""

    timeout: float = 10.0
    """Seconds a link may leave bytes unacknowledged, or its probes unanswered."""
    serving: ssl.SSLContext | None = None
    """TLS for links other nodes open to this one, if any."""
    dialling: ssl.SSLContext | None = None
    """TLS for links this node opens, if any."""

    @classmethod
    def from_config(cls, config: RelaySettings) -> Links:
        """The links ``config`` asks for; raises :class:`ConfigError` for files that
        cannot be read as a certificate, key or CA."""
        if config.relay_cert is None or config.relay_key is None or config.relay_ca is None:
            return cls(config.relay_timeout)
        contexts = []
        for purpose in (ssl.Purpose.CLIENT_AUTH, ssl.Purpose.SERVER_AUTH):
            try:
                context = ssl.create_default_context(purpose, cafile=config.relay_ca)
                context.load_cert_chain(config.relay_cert, config.relay_key)
            except (OSError, ValueError) as error:  # ssl.SSLError is an OSError
                reason = getattr(error, "strerror", None) or str(error)
                raise ConfigError(
                    f"relay_cert, relay_key, relay_ca: cannot load {config.relay_cert}, "
                    f"{config.relay_key} and {config.relay_ca}: {reason}"
                ) from None
            context.minimum_version = ssl.TLSVersion.TLSv1_2
            context.verify_mode = ssl.CERT_REQUIRED  # both ways: mutual TLS
            contexts.append(context)
        return cls(config.relay_timeout, *contexts)

    @property
    def tls(self) -> bool:
        return self.serving is not None

    def tune(self, sock: trio.socket.SocketType) -> None:
        """Make ``sock`` notice a silent peer within :attr:`timeout` (module docstring)."""
        idle = max(1, math.ceil(self.timeout / 2))
        interval = max(1, math.ceil(self.timeout / (2 * KEEPALIVE_PROBES)))
        options = [
            (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1),
            (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPIDLE", None), idle),
            (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPINTVL", None), interval),
            (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPCNT", None), KEEPALIVE_PROBES),
            (
                socket.IPPROTO_TCP,
                getattr(socket, "TCP_USER_TIMEOUT", None),
                round(self.timeout * 1000),
            ),
        ]
        for level, option, value in options:
            if option is not None:  # each is Linux's; elsewhere the system's defaults hold
                with contextlib.suppress(OSError):
                    sock.setsockopt(level, option, value)

    async def connect(self, address: str) -> trio.abc.Stream:
        """A link to ``HOST:PORT`` (TLS done, if any)."""
        host, _, port = address.rpartition(":")
        host = host.strip("[]")
        stream = await trio.open_tcp_stream(host, int(port))
        self.tune(stream.socket)
        if self.dialling is None:
            return stream
        secured = trio.SSLStream(stream, self.dialling, server_hostname=host)
        try:
            await secured.do_handshake()
        except BaseException:
            await trio.aclose_forcefully(stream)
            raise
        return secured

    async def accept(self, stream: trio.SocketStream) -> trio.abc.Stream:
        """The link another node opened as ``stream`` (TLS done, if any)."""
        self.tune(stream.socket)
        if self.serving is None:
            return stream
        secured = trio.SSLStream(stream, self.serving, server_side=True)
        await secured.do_handshake()
        return secured


class LineReader:
    """Reads the handshake's lines off a link, one at a time, keeping what follows."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self.stream = stream
        self.rest = b""
        """Bytes read past the last line returned."""

    async def line(self, limit: int) -> bytes:
        """The next line with its end; what came before the end of the link (or
        ``limit`` bytes without an end), as it is."""
        data = self.rest
        while b"\n" not in data and len(data) <= limit:
            chunk = await self.stream.receive_some(limit + 1)
            if not chunk:
                break
            data += chunk
        line, end, self.rest = data.partition(b"\n")
        return line + end
