"""The pytest helpers cannot pass silently: a plain test gets a verdict, not a coroutine."""

from __future__ import annotations

import socket

import pytest

from conformance import SuiteConfig
from conformance.pytest_plugin import CheckServer
from conformance.testing import assert_server_conforms

FAST = SuiteConfig(timeout=1.0, check_timeout=5.0)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_a_plain_test_gets_the_failure() -> None:
    with pytest.raises(AssertionError, match=r"FAIL  hello\.gold"):
        assert_server_conforms("127.0.0.1", _closed_port(), FAST)


def test_the_fixture_checks_at_once_in_a_plain_test(dod_conformance: CheckServer) -> None:
    with pytest.raises(AssertionError, match=r"FAIL  hello\.gold"):
        dod_conformance("127.0.0.1", _closed_port())


async def test_the_blocking_helper_refuses_to_run_inside_trio() -> None:
    with pytest.raises(RuntimeError, match="assert_server_conforms_async"):
        assert_server_conforms("127.0.0.1", _closed_port(), FAST)
