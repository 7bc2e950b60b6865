"""The pytest helpers cannot pass silently: a plain test gets a verdict, not a coroutine."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from dungeon_of_doom.conformance import SuiteConfig
from dungeon_of_doom.conformance.pytest_plugin import CheckServer
from dungeon_of_doom.conformance.testing import assert_server_conforms

FAST = SuiteConfig(timeout=1.0, check_timeout=5.0)


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A port that refuses connections: bound, never listening, and held for the test, so
    that no other test's server can take it in between."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        port: int = held.getsockname()[1]
        yield port


def test_a_plain_test_gets_the_failure(closed_port: int) -> None:
    with pytest.raises(AssertionError, match=r"FAIL  hello\.gold"):
        assert_server_conforms("127.0.0.1", closed_port, FAST)


def test_the_fixture_checks_at_once_in_a_plain_test(
    dod_conformance: CheckServer, closed_port: int
) -> None:
    with pytest.raises(AssertionError, match=r"FAIL  hello\.gold"):
        dod_conformance("127.0.0.1", closed_port)


async def test_the_blocking_helper_refuses_to_run_inside_trio(closed_port: int) -> None:
    with pytest.raises(RuntimeError, match="assert_server_conforms_async"):
        assert_server_conforms("127.0.0.1", closed_port, FAST)
