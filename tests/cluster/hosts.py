"""Hosts made inside a test (:class:`bench.faults.hosts.Hosts`: network namespaces on one
switch, with real links between), and the skip where they cannot be made."""

from __future__ import annotations

import os
import shutil

import pytest

from bench.faults.hosts import Hosts

__all__ = ["Hosts", "skip_unless_possible"]


def skip_unless_possible() -> None:
    """Skip, saying why, where namespaces cannot be made (not root, no iproute2)."""
    if shutil.which("ip") is None:
        pytest.skip("iproute2's ip is missing: apt-get install iproute2")
    if os.geteuid() != 0:
        pytest.skip("making network namespaces needs root (CI runs as root)")
