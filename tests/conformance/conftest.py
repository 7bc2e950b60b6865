from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
import trio

from dungeon_of_doom.conformance.pytest_plugin import dod_conformance, dod_conformance_config

from .faulty import Fault, FaultyServer

__all__ = ["StartFaulty", "dod_conformance", "dod_conformance_config", "start_faulty"]

StartFaulty = Callable[[Fault | None], Awaitable[int]]


@pytest.fixture
def start_faulty(nursery: trio.Nursery) -> StartFaulty:
    """Start a :class:`FaultyServer` on port 0; its port. It stops with the test."""

    async def start(fault: Fault | None) -> int:
        port: int = await nursery.start(FaultyServer(fault).run)
        return port

    return start
