"""The suite as a test helper, in the manner of ``trio.testing.check_one_way_stream``.

:func:`assert_server_conforms` runs the checks against ``host:port`` and raises
``AssertionError`` carrying the whole table when a check fails. It is a plain
function, for plain tests: called inside a trio run (where it would block the
loop that may be serving the server under test) it raises ``RuntimeError``
instead of passing silently; there, ``await`` :func:`assert_server_conforms_async`
or :func:`assert_conforms`, which takes any way of opening a stream to the server
(a :data:`~conformance.config.Connector`). All of them return the report, so a
test can assert more (for example that a check was not skipped).
"""

from __future__ import annotations

from collections.abc import Collection
from functools import partial

import trio

from .config import Connector, SuiteConfig
from .report import to_table
from .results import Report
from .runner import run_suite

__all__ = [
    "assert_conforms",
    "assert_server_conforms",
    "assert_server_conforms_async",
    "in_trio_run",
]


def in_trio_run() -> bool:
    """True when called from a task of a running trio loop."""
    try:
        trio.lowlevel.current_task()
    except RuntimeError:
        return False
    return True


async def assert_conforms(
    connect: Connector,
    config: SuiteConfig | None = None,
    *,
    target: str = "server",
    only: Collection[str] | None = None,
) -> Report:
    """Run the suite against what ``connect`` reaches; fail with the table if a check fails."""
    report = await run_suite(connect, config, target=target, only=only)
    if not report.ok:
        raise AssertionError("\n" + to_table(report))
    return report


async def assert_server_conforms_async(
    host: str,
    port: int,
    config: SuiteConfig | None = None,
    *,
    only: Collection[str] | None = None,
) -> Report:
    """:func:`assert_conforms` over TCP to ``host:port``, for trio tests."""
    connect = partial(trio.open_tcp_stream, host, port)
    return await assert_conforms(connect, config, target=f"{host}:{port}", only=only)


def assert_server_conforms(
    host: str,
    port: int,
    config: SuiteConfig | None = None,
    *,
    only: Collection[str] | None = None,
) -> Report:
    """The suite against ``host:port`` from a plain (not async) test; see the module docstring."""
    if in_trio_run():
        raise RuntimeError(
            "assert_server_conforms() blocks; inside a trio run use "
            "`await assert_server_conforms_async(...)`"
        )
    return trio.run(partial(assert_server_conforms_async, host, port, config, only=only))
