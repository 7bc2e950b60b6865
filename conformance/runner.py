"""Running the checks against a server and collecting a :class:`~conformance.results.Report`.

Checks run one after another, each on fresh connections, each within
``check_timeout`` (and every read within ``timeout``), so a run against a silent
or misbehaving server always ends. If a check fails before the server has sent
a single byte, the server is taken to be silent or unreachable, and the
remaining checks are skipped rather than each waiting out its time limit.

Causes are grouped: when a check fails for want of a connection and the server
no longer accepts one, the run has one finding, "the server went away after
check X", and that check and every later one are marked not run, not failed.

With ``dialect="auto"`` one connection first recognises the server's dialect
(its greeting, its answers to ``HELLO`` and ``LOOK``, read by the client
library's :class:`~clients.dialect.TolerantReader`); the report starts with it
and the lines that showed it.

Extension checks run only at the ``extended`` level; each of them skips itself
when the server does not offer what it checks.

Once the first check is made, a server of the 2013 dialect still there is asked, on a
connection of its own, whether it offers ``EXTEND probe`` (``SuiteConfig.probe``); if it
does, every later connection says ``EXTEND probe`` before anything else, and its games
stay out of the server's records and replay lists. A server that does not is asked
nothing more. (In the later dialects a connection is a player from its first byte: one
more would change the game the checks judge.)
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Collection
from functools import partial

import trio

from clients.dialect import TolerantReader
from protocol.commands import Command, Hello, Look
from protocol.errors import RemoteProtocolError

from .checks import ALL_CHECKS
from .config import Connector, SuiteConfig
from .dialects import client_dialect, declared_reader
from .registry import Check, Context, RunState
from .results import CheckFailed, CheckResult, CheckSkipped, Exchanged, Outcome, Report
from .session import NAMES, QUIET, Session
from .transcript import Transcript

__all__ = ["check_server", "recognise", "run_suite", "selected_checks"]


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
    on_result: Callable[[Report, CheckResult], None] | None = None,
) -> Report:
    """Run the checks against the server that ``connect`` reaches; never raises for its faults.

    ``on_result`` is called with the report so far and each result as its check ends
    (the command line prints it), so a run cut short still shows what it judged."""
    config = config or SuiteConfig()
    report = Report(target=target, level=config.strictness.level.value, started=time.time())
    state = RunState(dialect=config.dialect)
    started = trio.current_time()
    if config.dialect == "auto":
        transcript = Transcript(trio.current_time)
        state.dialect, report.evidence = await recognise(connect, config, state, transcript)
        report.recognition = transcript.entries()
    report.dialect = state.dialect
    silent_since: str | None = None
    probing = config.probe and state.dialect == "2013"
    gone = ""
    last_done = "dialect recognition" if config.dialect == "auto" else ""
    for check in selected_checks(config, only):
        if gone:
            report.results.append(_result(check, Outcome.NOT_RUN, gone))
            if on_result is not None:
                on_result(report, report.results[-1])
            continue
        if silent_since is not None:
            reason = f"not run: the server never sent a byte (see {silent_since})"
            report.results.append(_result(check, Outcome.SKIPPED, reason))
            if on_result is not None:
                on_result(report, report.results[-1])
            continue
        stalled_before = state.stalls.naming
        result = await _run_one(check, connect, config, state)
        if state.stalls.naming and not stalled_before:
            report.findings.append(
                f"the server stopped answering a naming HELLO in check {check.id} "
                f"({state.stalls.naming} went unanswered for {config.timeout:g} s): it took no "
                "player there, so the checks that needed one could not be judged"
            )
        lost = await _lost(result, connect, config) if state.heard_from_server else ""
        if lost:
            where = f"after check {last_done}" if last_done else "at the start"
            report.findings.append(f"the server {lost} {where}")
            gone = f"not run: the server {lost} {where}"
            result = _result(
                check,
                Outcome.NOT_RUN,
                f"{gone} ({result.reason})",
                duration=result.duration,
                exchange=result.exchange,
            )
        report.results.append(result)
        if on_result is not None:
            on_result(report, result)
        last_done = check.id
        if probing and not gone and state.heard_from_server:
            probing = False  # asked once, after a check, of a server still there
            if await _offers_probe(connect, config):
                connect = _probing(connect)
        if result.outcome is Outcome.FAILED and not state.heard_from_server:
            silent_since = check.id
    report.duration = trio.current_time() - started
    return report


async def _lost(result: CheckResult, connect: Connector, config: SuiteConfig) -> str:
    """Why a failed check found no server to check: "went away" (no connection is
    accepted any more), "stopped answering" (a new connection's ``HELLO`` gets no
    byte), or "" when the server is still there and the failure is the check's own."""
    if result.outcome is not Outcome.FAILED or not any(
        words in result.reason
        for words in ("could not connect", "closed the connection", "connection broke", "in vain")
    ):
        return ""
    with trio.move_on_after(config.timeout):
        try:
            stream = await connect()
        except OSError:
            return "went away"
        async with stream:
            try:
                await stream.send_all(b"HELLO\n")
                if await stream.receive_some(1):
                    return ""
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return "went away"
            return "went away"  # accepted, then closed at once without a word
    return "stopped answering"


async def recognise(
    connect: Connector, config: SuiteConfig, state: RunState, transcript: Transcript | None = None
) -> tuple[str, list[str]]:
    """The dialect one connection shows, and the lines that showed it (``2013`` if none);
    its exchange goes to ``transcript``."""
    reader = TolerantReader()
    evidence: list[str] = []
    heard: list[tuple[str, Command | None]] = []
    session: Session | None = None
    try:
        with trio.fail_after(config.check_timeout):
            stream = await connect()
            record = None if transcript is None else partial(transcript.record, "dialect")
            session = Session(
                stream, name="dialect", timeout=config.timeout, drift=_ignore, record=record
            )
            async with stream:
                state.greeting = await session.take_greeting(None, config.greeting_wait)
                heard += [(line, None) for line in state.greeting]
                for command in ("HELLO", "LOOK"):
                    # What came after the last answer's pause is heard, not taken for
                    # the answer to this command.
                    await session.lines_within(0)
                    answer = await session.answer(f"{command}\n".encode(), command)
                    heard += [(line, _asking(command)) for line in answer]
                    state.heard_from_server = True
                    if command == "HELLO" and (answer[0].startswith("FAIL") or answer[0] == "null"):
                        # A name, shortened where the server takes few characters (ch739: 8).
                        for name in NAMES:
                            hello = f"HELLO {name}"
                            await session.lines_within(0)
                            again = await session.answer(f"{hello}\n".encode(), hello)
                            heard += [(line, _asking(hello)) for line in again]
                            if not again[0].startswith("FAIL"):
                                break
                await session.lines_within(QUIET)
    except (OSError, CheckFailed, trio.TooSlowError) as error:
        evidence.append(f"recognition failed: {error}")
    # Every line read, in the order it came: a server that pauses inside its answer
    # (ch739, writing a byte at a time) shows its dialect in the lines after the pause.
    for line, asked in session.heard if session is not None else ():
        with contextlib.suppress(RemoteProtocolError):
            reader.feed(line, _asking(asked) if asked else None)
    heard_lines = [line for line, _ in session.heard] if session is not None else []
    if reader.dialect is None and (own := client_dialect(None, heard_lines)) is not None:
        # No era's reader knew a line (mbk's H2, L5 rows): a client dialect of lines of
        # its own shows itself by a view row only it writes.
        return own[0], [*evidence, own[1]]
    if reader.dialect is None:
        said = " / ".join(repr(line) for line, _ in heard[:4])
        evidence.append(f"no dialect we know says {said or 'that'}; judged as 2013")
        return "2013", evidence
    # A client's own dialect belongs to its era, and shows itself by a line only it
    # writes (ch739's RENDERHINT): judged as the era, its own forms would be faults.
    if (client := client_dialect(reader.dialect, heard_lines)) is not None:
        if declared_reader(client[0]) is not None:
            # Its era was shown by its own lines only (mbk's): the row says it all.
            return client[0], [*evidence, client[1]]
        return client[0], [*evidence, *reader.evidence, client[1]]
    return reader.dialect, [*evidence, *reader.evidence]


async def _offers_probe(connect: Connector, config: SuiteConfig) -> bool:
    """Whether the server answers ``EXTEND probe`` granting it (one connection of its
    own, that plays in no game)."""
    with trio.move_on_after(config.timeout):
        try:
            stream = await connect()
        except OSError:
            return False
        async with stream:
            try:
                await stream.send_all(b"EXTEND probe\n")
                answer = await _line(stream)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return False
            words = answer.split()
            return words[:1] == [b"EXTENDED"] and b"probe" in words
    return False


def _probing(connect: Connector) -> Connector:
    """``connect``, each connection then saying ``EXTEND probe`` and reading its answer."""

    async def marked() -> trio.abc.Stream:
        stream = await connect()
        await stream.send_all(b"EXTEND probe\n")
        await _line(stream)
        return stream

    return marked


async def _line(stream: trio.abc.Stream) -> bytes:
    """One line, read a byte at a time: nothing after it is taken from the stream."""
    line = b""
    while not line.endswith(b"\n"):
        byte = await stream.receive_some(1)
        if not byte:
            break
        line += byte
    return line


def _asking(line: str) -> Command | None:
    verb, _, name = line.partition(" ")
    return Look() if verb == "LOOK" else Hello(name or None)


def _ignore(tolerance: str, detail: str) -> None:
    return None


async def check_server(
    host: str,
    port: int,
    config: SuiteConfig | None = None,
    *,
    only: Collection[str] | None = None,
    on_result: Callable[[Report, CheckResult], None] | None = None,
) -> Report:
    """:func:`run_suite` over TCP to ``host:port``."""
    connect = partial(trio.open_tcp_stream, host, port)
    return await run_suite(connect, config, target=f"{host}:{port}", only=only, on_result=on_result)


def _result(
    check: Check,
    outcome: Outcome,
    reason: str = "",
    warnings: tuple[str, ...] = (),
    duration: float = 0.0,
    exchange: tuple[Exchanged, ...] = (),
) -> CheckResult:
    return CheckResult(
        check.id, check.clause, check.title, outcome, reason, warnings, duration, exchange
    )


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
    return _result(
        check,
        outcome,
        reason,
        warnings,
        trio.current_time() - started,
        context.transcript.entries(),
    )
