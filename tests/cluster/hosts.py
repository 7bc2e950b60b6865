"""Hosts made inside a test: network namespaces on one switch, with real links between.

Each :class:`Hosts` gets a switch (a namespace holding a bridge) and hosts (namespaces
each with one veth port on the bridge), all on one /24 subnet; the test's own
namespace is on the switch too (``.1``), so it reaches every host and the hosts reach
what it serves. A host's link can be taken down and healed. Names carry a random tag,
so parallel runs never collide, and everything is deleted at the end.
"""

from __future__ import annotations

import os
import random
import secrets
import shutil
import subprocess

import pytest


def skip_unless_possible() -> None:
    """Skip, saying why, where namespaces cannot be made (not root, no iproute2)."""
    if shutil.which("ip") is None:
        pytest.skip("iproute2's ip is missing: apt-get install iproute2")
    if os.geteuid() != 0:
        pytest.skip("making network namespaces needs root (CI runs as root)")


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


class Hosts:
    """A switch and the hosts on it; see the module docstring."""

    def __init__(self) -> None:
        self.tag = secrets.token_hex(3)
        self.subnet = f"10.{random.randint(200, 250)}.{random.randint(0, 255)}"
        self.switch = f"dodsw{self.tag}"
        self.namespaces: list[str] = []
        self._ports: dict[str, str] = {}
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

    def host(self, number: int) -> tuple[list[str], str]:
        """A new host: the command prefix that runs a program on it, and its address."""
        namespace = f"dod{self.tag}h{number}"
        self._add_namespace(namespace)
        address = f"{self.subnet}.{number + 1}"
        self._plug(namespace, str(number), address)
        return ["ip", "netns", "exec", namespace], address

    def cut(self, address: str) -> None:
        """Take the host's link down (its port on the switch)."""
        _ip("-n", self.switch, "link", "set", self._ports[address], "down")

    def heal(self, address: str) -> None:
        _ip("-n", self.switch, "link", "set", self._ports[address], "up")

    def close(self) -> None:
        # The veth pairs go with their namespaces, the test's own end with its peer.
        for namespace in reversed(self.namespaces):
            subprocess.run(["ip", "netns", "del", namespace], capture_output=True)
