"""Pytest fixtures that check a Dungeon of Doom server from your own test suite.

Enable them with ``pytest -p conformance.pytest_plugin``, with
``pytest_plugins = ["dungeon_of_doom.conformance.pytest_plugin"]`` in a root ``conftest.py``,
or by importing the two fixtures into any ``conftest.py``. In a plain test,
call the fixture; in an async test run by pytest-trio, await it::

    def test_my_server_conforms(dod_conformance):
        report = dod_conformance("127.0.0.1", port)
        assert report.get("pickup.gold").outcome is Outcome.PASSED

    async def test_my_server_conforms_too(dod_conformance):
        report = await dod_conformance("127.0.0.1", port)

``dod_conformance(host, port)`` fails the test, with the whole table, when any
check fails. Override the ``dod_conformance_config`` fixture to choose the
level, tolerances and time limits.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection

import pytest

from .config import SuiteConfig
from .results import Report
from .testing import assert_server_conforms, assert_server_conforms_async, in_trio_run

__all__ = ["CheckServer", "dod_conformance", "dod_conformance_config"]

CheckServer = Callable[..., "Report | Awaitable[Report]"]


@pytest.fixture
def dod_conformance_config() -> SuiteConfig:
    """The settings :func:`dod_conformance` runs with: strict, 5 s per reply."""
    return SuiteConfig()


@pytest.fixture
def dod_conformance(dod_conformance_config: SuiteConfig) -> CheckServer:
    """``dod_conformance(host, port, only=None)``: the report; the test fails on a failure.

    Outside a trio run it checks at once and returns the report; inside one
    (an async test) it returns what to ``await``.
    """

    def check(
        host: str, port: int, *, only: Collection[str] | None = None
    ) -> Report | Awaitable[Report]:
        if in_trio_run():
            return assert_server_conforms_async(host, port, dod_conformance_config, only=only)
        return assert_server_conforms(host, port, dod_conformance_config, only=only)

    return check
