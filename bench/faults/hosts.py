"""Hosts made inside a test or a campaign: network namespaces on one switch, with real links
between.

Each :class:`Hosts` gets a switch (a namespace holding a bridge) and hosts (namespaces
each with one veth port on the bridge), all on one /24 subnet; the test's own
namespace is on the switch too (``.1``), so it reaches every host and the hosts reach
what it serves. A host's link can be taken down and healed, and the way from one host to
one address can be cut silently (:meth:`Hosts.block`: a black-hole route, whose packets
leave and vanish with no error coming back). Names carry a random tag,
and the subnet is claimed (see :func:`claim_subnet`), so parallel runs never collide;
everything is deleted at the end.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import socket
import subprocess


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


BLACK_HOLE = "02:de:ad:be:ef:01"
"""The link-layer address of the neighbour :meth:`Hosts.block` sends packets to: nobody's."""

CANDIDATES = [f"10.{second}.{third}" for second in range(200, 251) for third in range(256)]
"""The /24 subnets :class:`Hosts` may take (their first three octets)."""


def _routed() -> list[ipaddress.IPv4Network]:
    """Every IPv4 destination this namespace routes to (in any table), but the default."""
    shown = subprocess.run(
        ["ip", "-4", "route", "show", "table", "all"], check=True, capture_output=True, text=True
    ).stdout
    routed = []
    for line in shown.splitlines():
        words = line.split()
        if words and words[0] in ("local", "broadcast", "unicast", "blackhole"):
            words = words[1:]
        if words and words[0] != "default":
            try:
                routed.append(ipaddress.IPv4Network(words[0], strict=False))
            except ValueError:
                continue
    return routed


def claim_subnet() -> tuple[str, socket.socket]:
    """A /24 of :data:`CANDIDATES` that no other :class:`Hosts` on this machine holds and
    no route of this namespace covers, and the claim on it, held while the socket is open.

    The claim is an abstract Unix socket named after the subnet: binding one is atomic, so
    two runs (or two ``Hosts`` of one run) asking at once never get the same subnet, and
    the kernel drops it when its process ends, however it ends. The search starts at a
    place derived from the process id, so parallel runs rarely even compete.
    """
    routed = _routed()
    start = os.getpid() % len(CANDIDATES)
    for subnet in CANDIDATES[start:] + CANDIDATES[:start]:
        network = ipaddress.IPv4Network(f"{subnet}.0/24")
        if any(network.overlaps(other) for other in routed):
            continue
        claim = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            claim.bind(f"\0dod-tests-subnet-{subnet}")
        except OSError:
            claim.close()
            continue
        return subnet, claim
    raise RuntimeError(f"every subnet {CANDIDATES[0]}.0/24-{CANDIDATES[-1]}.0/24 is taken")


class Hosts:
    """A switch and the hosts on it; see the module docstring."""

    def __init__(self) -> None:
        self.tag = secrets.token_hex(3)
        self.subnet, self._claim = claim_subnet()
        self.switch = f"dodsw{self.tag}"
        self.namespaces: list[str] = []
        self._ports: dict[str, str] = {}
        self._inside: dict[str, tuple[str | None, str]] = {}
        """Each address's namespace (``None``: the test's own) and interface."""
        self._add_namespace(self.switch)
        _ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.switch, "link", "set", "br0", "up")
        self.own = f"{self.subnet}.1"
        """The test's own address on the switch."""
        self._plug(None, "0", self.own)

    def _add_namespace(self, name: str) -> None:
        _ip("netns", "add", name)
        self.namespaces.append(name)
        _ip("-n", name, "link", "set", "lo", "up")

    def _plug(self, namespace: str | None, number: str, address: str) -> None:
        inside, port = f"d{self.tag}h{number}", f"d{self.tag}p{number}"
        _ip("link", "add", inside, "type", "veth", "peer", "name", port)
        _ip("link", "set", port, "netns", self.switch)
        _ip("-n", self.switch, "link", "set", port, "master", "br0", "up")
        where = [] if namespace is None else ["-n", namespace]
        if namespace is not None:
            _ip("link", "set", inside, "netns", namespace)
        _ip(*where, "addr", "add", f"{address}/24", "dev", inside)
        _ip(*where, "link", "set", inside, "up")
        self._ports[address] = port
        self._inside[address] = (namespace, inside)

    def host(self, number: int) -> tuple[list[str], str]:
        """A new host: the command prefix that runs a program on it, and its address."""
        namespace = f"dod{self.tag}h{number}"
        self._add_namespace(namespace)
        address = f"{self.subnet}.{number + 1}"
        self._plug(namespace, str(number), address)
        return ["ip", "netns", "exec", namespace], address

    def alias(self, last: int) -> str:
        """Another address of the test's own on the switch (``.last``), for what it serves
        that a host should reach apart from the rest (so that a block cuts only that)."""
        address = f"{self.subnet}.{last}"
        _ip("addr", "add", f"{address}/24", "dev", self._inside[self.own][1])
        return address

    def block(self, host: str, peer: str) -> None:
        """Packets from ``host`` (an address of a host) to ``peer`` vanish from now on:
        a route through a neighbour nobody owns (no error comes back, as on a real cut)."""
        namespace, inside = self._inside[host]
        where = [] if namespace is None else ["-n", namespace]
        nowhere = f"{self.subnet}.254"
        _ip(
            *where,
            "neigh",
            "replace",
            nowhere,
            "lladdr",
            BLACK_HOLE,
            "nud",
            "permanent",
            "dev",
            inside,
        )
        _ip(*where, "route", "replace", f"{peer}/32", "via", nowhere, "dev", inside)

    def unblock(self, host: str, peer: str) -> None:
        namespace, _ = self._inside[host]
        where = [] if namespace is None else ["-n", namespace]
        subprocess.run(["ip", *where, "route", "del", f"{peer}/32"], capture_output=True)

    def cut(self, address: str) -> None:
        """Take the host's link down (its port on the switch)."""
        _ip("-n", self.switch, "link", "set", self._ports[address], "down")

    def heal(self, address: str) -> None:
        _ip("-n", self.switch, "link", "set", self._ports[address], "up")

    def close(self) -> None:
        # The veth pairs go with their namespaces, the test's own end with its peer.
        for namespace in reversed(self.namespaces):
            subprocess.run(["ip", "netns", "del", namespace], capture_output=True)
        self._claim.close()
