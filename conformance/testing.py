"""The suite as a test helper, in the manner of ``trio.testing.check_one_way_stream``.

:func:`assert_conforms` takes any way of opening a stream to the server under
test (a :data:`~conformance.config.Connector`), runs the checks, and raises
``AssertionError`` carrying the whole table when a check fails. It returns the
report, so a test can assert more (for example that a check was not skipped).
"""

from __future__ import annotations

from collections.abc import Collection
from functools import partial

import trio

from .config import Connector, SuiteConfig
from .report import to_table
from .results import Report
from .runner import run_suite

__all__ = ["assert_conforms", "assert_server_conforms"]


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


async def assert_server_conforms(
    host: str,
    port: int,
    config: SuiteConfig | None = None,
    *,
    only: Collection[str] | None = None,
) -> Report:
    """:func:`assert_conforms` over TCP to ``host:port``."""
    connect = partial(trio.open_tcp_stream, host, port)
    return await assert_conforms(connect, config, target=f"{host}:{port}", only=only)
