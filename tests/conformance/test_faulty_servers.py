"""The suite fails each deliberately broken server for the right reason, and never hangs."""

from __future__ import annotations

import pytest
import trio

from dungeon_of_doom.conformance import (
    Level,
    Outcome,
    Report,
    Strictness,
    SuiteConfig,
    check_server,
    to_table,
)

from .conftest import StartFaulty
from .faulty import Fault

FAST = SuiteConfig(timeout=2.0, check_timeout=20.0)


async def run(port: int, config: SuiteConfig = FAST) -> Report:
    with trio.fail_after(60):
        return await check_server("127.0.0.1", port, config)


def failed(report: Report) -> dict[str, str]:
    return {r.check_id: r.reason for r in report.results if r.outcome is Outcome.FAILED}


async def test_a_conforming_server_passes_every_check(start_faulty: StartFaulty) -> None:
    report = await run(await start_faulty(None))
    assert report.ok, to_table(report)
    assert {r.outcome for r in report.results} == {Outcome.PASSED}, to_table(report)
    assert len(report.results) == 22


@pytest.mark.parametrize(
    ("fault", "check_id", "clause", "reason"),
    [
        (Fault.GOLD_COLON, "hello.gold", "§4.1 HELLO", "'GOLD: 1' (drift 'gold-colon'"),
        (Fault.NO_CORNER, "look.corners", "§4.4 LOOK", "corner (-2, 2) is "),
        (Fault.THROUGH_WALLS, "move.wall", "§4.2 MOVE", "answered 'SUCCESS', not FAIL"),
    ],
)
async def test_one_fault_fails_exactly_its_check(
    start_faulty: StartFaulty, fault: Fault, check_id: str, clause: str, reason: str
) -> None:
    report = await run(await start_faulty(fault))
    assert not report.ok
    assert list(failed(report)) == [check_id], to_table(report)
    result = report.get(check_id)
    assert result.clause.startswith(clause)
    assert reason in result.reason
    assert report.count(Outcome.SKIPPED) == 0, to_table(report)


async def test_a_silent_server_fails_within_the_time_limits(start_faulty: StartFaulty) -> None:
    port = await start_faulty(Fault.SILENT)
    config = SuiteConfig(timeout=0.5, check_timeout=5.0)
    started = trio.current_time()
    report = await run(port, config)
    assert trio.current_time() - started < 5
    assert failed(report) == {"hello.gold": "client: waited 0.5 s for the reply to HELLO, in vain"}
    assert report.count(Outcome.SKIPPED) == len(report.results) - 1
    assert "never sent a byte" in report.get("look.shape").reason


async def test_a_dead_address_fails_at_once(start_faulty: StartFaulty) -> None:
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    await listener.aclose()
    report = await run(port)
    assert "could not connect" in failed(report)["hello.gold"]
    assert report.count(Outcome.FAILED) == 1


async def test_crlf_replies_fail_strict_and_warn_when_tolerated(start_faulty: StartFaulty) -> None:
    port = await start_faulty(Fault.CRLF)
    strict = await run(port)
    assert "drift 'crlf-replies'" in failed(strict)["hello.gold"]
    tolerant = await run(
        await start_faulty(Fault.CRLF), SuiteConfig(strictness=Strictness(Level.TOLERANT))
    )
    assert tolerant.ok, to_table(tolerant)
    assert tolerant.get("look.shape").outcome is Outcome.WARNING
    assert "crlf-replies" in tolerant.get("look.shape").warnings[0]


async def test_one_tolerance_may_be_allowed_at_the_strict_level(
    start_faulty: StartFaulty,
) -> None:
    config = SuiteConfig(strictness=Strictness(Level.STRICT, frozenset({"gold-colon"})))
    report = await run(await start_faulty(Fault.GOLD_COLON), config)
    assert report.ok, to_table(report)
    assert report.get("hello.gold").outcome is Outcome.WARNING
    assert report.count(Outcome.WARNING) == 1


async def test_extensions_a_classic_server_lacks_are_skipped(start_faulty: StartFaulty) -> None:
    config = SuiteConfig(strictness=Strictness(Level.EXTENDED), timeout=0.5)
    report = await run(await start_faulty(None), config)
    assert report.ok, to_table(report)
    outcomes = {r.check_id: r.outcome for r in report.results if r.check_id.startswith("ext.")}
    # It does answer an invalid line with one ERROR line, as our extension asks.
    assert outcomes.pop("ext.errors") is Outcome.PASSED
    assert set(outcomes.values()) == {Outcome.SKIPPED}, to_table(report)
    assert "not offered" in report.get("ext.handshake").reason


async def test_a_greeting_is_one_finding_and_never_an_answer(start_faulty: StartFaulty) -> None:
    report = await run(await start_faulty(Fault.GREETING))
    # The greeting 'GOLD 1' is read before HELLO, so HELLO's own 'GOLD 1' answers it.
    assert list(failed(report)) == ["connect.greeting"], to_table(report)
    assert report.get("connect.greeting").reason == (
        "the server greets every connection, unasked, with 'GOLD 1'; "
        "a 2013 server says nothing before the first command"
    )


async def test_a_shifted_conversation_is_reported_as_such(start_faulty: StartFaulty) -> None:
    report = await run(await start_faulty(Fault.DOUBLE_FAIL))
    reason = report.get("move.wall").reason
    assert "the conversation shifted: before 'LOOK' the server had already sent b'FAIL\\n'" in (
        reason
    ), to_table(report)
    assert "(after the reply to MOVE " in reason


async def test_auto_recognises_our_2013_protocol(start_faulty: StartFaulty) -> None:
    config = SuiteConfig(timeout=2.0, check_timeout=20.0, dialect="auto")
    report = await run(await start_faulty(None), config)
    assert report.ok, to_table(report)
    assert to_table(report).startswith("dialect 2013 (recognised from 'GOLD 1' in answer to HELLO")
