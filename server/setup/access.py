"""Lists of networks and names in settings: who may reach the web face, and as whom.

The web face's settings name client networks (``metrics_from``, ``trusted_proxies``:
CIDR blocks such as ``10.0.0.0/8`` or single addresses) and host names or origins
(``http_allowed_hosts``, ``http_allowed_origins``), comma-separated. The parsers here
check them (a bad entry is a :class:`ValueError` naming it) and the matchers answer
questions about one address or one header value.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

ANY = "*"


def _entries(text: str) -> list[str]:
    return [entry.strip() for entry in text.split(",") if entry.strip()]


def parse_networks(text: str) -> tuple[Network, ...]:
    """The networks of a comma-separated CIDR list (``""``: none)."""
    networks = []
    for entry in _entries(text):
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ValueError(f"{entry!r} is not an address or a network (10.0.0.0/8)") from None
    return tuple(networks)


def parse_names(text: str) -> tuple[str, ...]:
    """The lower-cased entries of a comma-separated list of host names or origins
    (``""``: none)."""
    names = []
    for entry in _entries(text):
        if any(char.isspace() or char in "@?#" for char in entry):
            raise ValueError(f"{entry!r} is not a host name or an origin")
        names.append(entry.lower())
    return tuple(names)


@dataclass(frozen=True)
class Networks:
    """A set of networks; :meth:`holds` answers for one address."""

    networks: tuple[Network, ...]

    @classmethod
    def parse(cls, text: str) -> Networks:
        return cls(parse_networks(text))

    def holds(self, address: str) -> bool:
        """Whether ``address`` (an IP address as text) is in one of the networks; a
        text that is no address (a Unix socket's ``?``) is in none."""
        if not self.networks:
            return False
        try:
            ip = ipaddress.ip_address(address.strip("[]"))
        except ValueError:
            return False
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return any(ip in network for network in self.networks)


def host_name(host: str) -> str:
    """The name in a ``Host`` header's value or an origin's authority, without its port,
    lower-cased (``[::1]:8004`` → ``::1``, ``Example.org:80`` → ``example.org``)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        return host.split(":", 1)[0]
    return host
