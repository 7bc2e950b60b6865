"""Pytest fixtures that check a Dungeon of Doom server from your own test suite.

Enable them with ``pytest -p conformance.pytest_plugin``, with
``pytest_plugins = ["conformance.pytest_plugin"]`` in a root ``conftest.py``,
or by importing the two fixtures into any ``conftest.py``. The tests must be
async tests run by pytest-trio::

    async def test_my_server_conforms(dod_conformance):
        report = await dod_conformance("127.0.0.1", port)
        assert report.get("pickup.gold").outcome is Outcome.PASSED

``dod_conformance(host, port)`` fails the test, with the whole table, when any
check fails. Override the ``dod_conformance_config`` fixture to choose the
level, tolerances and time limits.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection

import pytest

from .config import SuiteConfig
from .results import Report
from .testing import assert_server_conforms

__all__ = ["CheckServer", "dod_conformance", "dod_conformance_config"]

CheckServer = Callable[..., Awaitable[Report]]


@pytest.fixture
def dod_conformance_config() -> SuiteConfig:
    """The settings :func:`dod_conformance` runs with: strict, 5 s per reply."""
    return SuiteConfig()


@pytest.fixture
def dod_conformance(dod_conformance_config: SuiteConfig) -> CheckServer:
    """``await dod_conformance(host, port, only=None)``: the report; the test fails on a failure."""

    async def check(host: str, port: int, *, only: Collection[str] | None = None) -> Report:
        return await assert_server_conforms(host, port, dod_conformance_config, only=only)

    return check
