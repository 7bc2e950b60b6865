"""Who may connect: the connection limits every way in shares (TCP, HTTP, WebSocket).

A :class:`Admission` counts the server's open connections, in total and by client
address, and says why a new one is refused, if it is. Every socket the server holds
counts against ``max_connections`` (a game port's, the web face's), and HTTP sockets
also against ``http_max_connections``; each client address may hold at most
``max_connections_per_address``, whichever ways in it uses. The address is the
client's own: a web client behind a trusted reverse proxy is counted by the address
the proxy forwards (``trusted_proxies``), never by the proxy's, so the proxy's own
sockets count in the totals only.
"""

from __future__ import annotations

import collections
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol


class AdmissionLimits(Protocol):
    """The settings admission reads (a :class:`~server.setup.config.ServerConfig` has them)."""

    @property
    def max_connections(self) -> int: ...
    @property
    def max_connections_per_address(self) -> int: ...
    @property
    def http_max_connections(self) -> int: ...


class Admission:
    """The server's open connections, counted; see the module docstring."""

    def __init__(self, limits: AdmissionLimits) -> None:
        self.limits = limits
        self.sockets = 0
        """Sockets held now, every way in together."""
        self.web_sockets = 0
        """HTTP (and WebSocket) sockets held now."""
        self.per_address: collections.Counter[str] = collections.Counter()
        """Connections held now by each client address."""

    def refusal(
        self, host: str, *, socket: bool = True, address: bool = True, web: bool = False
    ) -> str | None:
        """Why a new connection from ``host`` is refused, or ``None`` if it may come in.

        ``socket``: it is a new socket (counted in the totals); ``address``: it counts
        against ``host``'s share; ``web``: an HTTP socket (``http_max_connections``)."""
        limits = self.limits
        if socket and self.sockets >= limits.max_connections:
            return f"the server is full ({limits.max_connections} connections); try again later"
        if socket and web and self.web_sockets >= limits.http_max_connections:
            return (
                f"the web face is full ({limits.http_max_connections} connections); try again later"
            )
        if address and self.per_address[host] >= limits.max_connections_per_address:
            return (
                f"too many connections from your address "
                f"({limits.max_connections_per_address}); try again later"
            )
        return None

    @contextmanager
    def held(
        self, host: str, *, socket: bool = True, address: bool = True, web: bool = False
    ) -> Iterator[None]:
        """Count a connection (as :meth:`refusal` judged it) while the block runs."""
        self.take(host, socket=socket, address=address, web=web)
        try:
            yield
        finally:
            self.release(host, socket=socket, address=address, web=web)

    def take(
        self, host: str, *, socket: bool = True, address: bool = True, web: bool = False
    ) -> None:
        """Count a connection until :meth:`release` with the same arguments (what
        :meth:`held` does, for a caller that keeps no context manager a connection)."""
        if socket:
            self.sockets += 1
            if web:
                self.web_sockets += 1
        if address:
            self.per_address[host] += 1

    def release(
        self, host: str, *, socket: bool = True, address: bool = True, web: bool = False
    ) -> None:
        """Stop counting a connection :meth:`take` counted."""
        if socket:
            self.sockets -= 1
            if web:
                self.web_sockets -= 1
        if address:
            self.per_address[host] -= 1
            if not self.per_address[host]:
                del self.per_address[host]

    def __contains__(self, host: str) -> bool:
        """Whether ``host`` holds a connection now."""
        return host in self.per_address
