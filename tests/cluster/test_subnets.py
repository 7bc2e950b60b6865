"""The subnet a :class:`~tests.cluster.hosts.Hosts` takes is one nobody else has: not
another ``Hosts``'s (of this run or a parallel one), not one the machine already routes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.faults.hosts import CANDIDATES, claim_subnet

from .hosts import skip_unless_possible

ROOT = Path(__file__).parents[2]

# Blackhole routes (they need no device) covering every candidate but 10.250.255.0/24.
ALL_BUT_THE_LAST = [
    "10.200.0.0/13",
    "10.208.0.0/12",
    "10.224.0.0/12",
    "10.240.0.0/13",
    "10.248.0.0/15",
    "10.250.0.0/17",
    "10.250.128.0/18",
    "10.250.192.0/19",
    "10.250.224.0/20",
    "10.250.240.0/21",
    "10.250.248.0/22",
    "10.250.252.0/23",
    "10.250.254.0/24",
]


def test_two_claims_held_at_once_are_two_subnets() -> None:
    if shutil.which("ip") is None:
        pytest.skip("iproute2's ip is missing: apt-get install iproute2")
    first, held = claim_subnet()
    try:
        second, other = claim_subnet()
        other.close()
    finally:
        held.close()
    assert first != second
    assert {first, second} <= set(CANDIDATES)


def test_a_subnet_the_machine_routes_is_never_taken() -> None:
    # In a network namespace of its own, so that its routes touch nothing else.
    skip_unless_possible()
    if shutil.which("unshare") is None:
        pytest.skip("util-linux's unshare is missing")
    routes = "; ".join(f"ip route add blackhole {prefix}" for prefix in ALL_BUT_THE_LAST)
    claim = "from bench.faults.hosts import claim_subnet; print(claim_subnet()[0])"
    done = subprocess.run(
        ["unshare", "--net", "sh", "-ec", f'{routes}; exec "$0" -c "$1"', sys.executable, claim],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["10.250.255"]
