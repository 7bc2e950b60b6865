"""Running the checks against a server and collecting a :class:`~conformance.results.Report`.

Checks run one after another, each on fresh connections, each within
``check_timeout`` (and every read within ``timeout``), so a run against a silent
or misbehaving server always ends. If a check fails before the server has sent
a single byte, the server is taken to be silent or unreachable, and the
remaining checks are skipped rather than each waiting out its time limit.

Extension checks run only at the ``extended`` level; each of them skips itself
when the server does not offer what it checks.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import partial

import trio

from .checks import ALL_CHECKS
from .config import Connector, SuiteConfig
from .registry import Check, Context, RunState
from .results import CheckFailed, CheckResult, CheckSkipped, Outcome, Report

__all__ = ["check_server", "run_suite", "selected_checks"]


def selected_checks(config: SuiteConfig, only: Collection[str] | None = None) -> list[Check]:
    """The checks a run with ``config`` makes, in order; ``only`` picks some by id."""
    known = {check.id for check in ALL_CHECKS}
    unknown = sorted(set(only or ()) - known)
    if unknown:
        raise ValueError(f"unknown check id(s): {', '.join(unknown)}")
    return [
        check
        for check in ALL_CHECKS
        if (config.strictness.extensions or not check.extension)
        and (only is None or check.id in only)
    ]


async def run_suite(
    connect: Connector,
    config: SuiteConfig | None = None,
    *,
    target: str = "server",
    only: Collection[str] | None = None,
) -> Report:
    """Run the checks against the server that ``connect`` reaches; never raises for its faults."""
    config = config or SuiteConfig()
    report = Report(target=target, level=config.strictness.level.value)
    state = RunState()
    started = trio.current_time()
    silent_since: str | None = None
    for check in selected_checks(config, only):
        if silent_since is not None:
            reason = f"not run: the server never sent a byte (see {silent_since})"
            report.results.append(_result(check, Outcome.SKIPPED, reason))
            continue
        result = await _run_one(check, connect, config, state)
        report.results.append(result)
        if result.outcome is Outcome.FAILED and not state.heard_from_server:
            silent_since = check.id
    report.duration = trio.current_time() - started
    return report


async def check_server(
    host: str,
    port: int,
    config: SuiteConfig | None = None,
    *,
    only: Collection[str] | None = None,
) -> Report:
    """:func:`run_suite` over TCP to ``host:port``."""
    connect = partial(trio.open_tcp_stream, host, port)
    return await run_suite(connect, config, target=f"{host}:{port}", only=only)


def _result(
    check: Check,
    outcome: Outcome,
    reason: str = "",
    warnings: tuple[str, ...] = (),
    duration: float = 0.0,
) -> CheckResult:
    return CheckResult(check.id, check.clause, check.title, outcome, reason, warnings, duration)


async def _run_one(
    check: Check, connect: Connector, config: SuiteConfig, state: RunState
) -> CheckResult:
    started = trio.current_time()
    context = Context(connect, config, state)
    outcome, reason = Outcome.PASSED, ""
    try:
        with trio.move_on_after(config.check_timeout) as scope:
            async with context:
                await check.function(context)
        if scope.cancelled_caught:
            outcome = Outcome.FAILED
            reason = f"the check did not finish within {config.check_timeout:g} s"
    except CheckFailed as error:
        outcome, reason = Outcome.FAILED, str(error)
    except CheckSkipped as error:
        outcome, reason = Outcome.SKIPPED, str(error)
    except (OSError, trio.BrokenResourceError, trio.ClosedResourceError) as error:
        outcome, reason = Outcome.FAILED, f"connection error: {error!r}"
    warnings = tuple(context.warnings)
    if outcome is Outcome.PASSED and warnings:
        outcome = Outcome.WARNING
    return _result(check, outcome, reason, warnings, trio.current_time() - started)
