"""The report formats, the command line, and the settings it validates."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path

import pytest
import trio

from commandline import INTERRUPTED_STATUS
from conformance import Level, Outcome, Report, Strictness, SuiteConfig, cli, to_json
from conformance.cli import main, parse_address
from conformance.report import to_table
from conformance.results import CheckResult

from .conftest import StartFaulty
from .faulty import Fault

REPORT = Report(
    target="example:40004",
    level="strict",
    results=[
        CheckResult("hello.gold", "§4.1 HELLO", "HELLO answers GOLD", Outcome.PASSED),
        CheckResult(
            "look.corners", "§4.4 LOOK", "corners", Outcome.FAILED, "corner (-2, 2) is '#'"
        ),
        CheckResult("pickup.gold", "§4.3 PICKUP", "gold", Outcome.SKIPPED, "no gold reached"),
        CheckResult(
            "look.shape", "§4.4 LOOK", "shape", Outcome.WARNING, warnings=("blank-lines: x",)
        ),
    ],
    duration=1.5,
)


def test_the_table_gives_each_check_its_status_clause_and_reason() -> None:
    table = to_table(REPORT)
    assert "FAIL  look.corners  §4.4 LOOK" in table
    assert "corner (-2, 2) is '#'" in table
    assert "SKIP  pickup.gold" in table and "no gold reached" in table
    assert "WARN  look.shape" in table and "warning: blank-lines: x" in table
    assert table.endswith(
        "example:40004 DOES NOT CONFORM at level strict: "
        "1 passed, 1 warning, 1 failed, 1 skipped (1.5 s)"
    )


def test_json_carries_every_field() -> None:
    data = json.loads(to_json(REPORT))
    assert data["ok"] is False
    assert data["recognition"] == []
    assert data["counts"] == {"passed": 1, "warning": 1, "failed": 1, "skipped": 1, "not run": 0}
    assert data["checks"][1] == {
        "id": "look.corners",
        "clause": "§4.4 LOOK",
        "title": "corners",
        "outcome": "failed",
        "reason": "corner (-2, 2) is '#'",
        "warnings": [],
        "duration": 0.0,
        "exchange": [],
    }


@pytest.mark.parametrize(
    ("text", "address"),
    [("127.0.0.1:40004", ("127.0.0.1", 40004)), ("[::1]:7", ("::1", 7)), ("h:1", ("h", 1))],
)
def test_addresses(text: str, address: tuple[str, int]) -> None:
    assert parse_address(text) == address


@pytest.mark.parametrize("text", ["localhost", ":40004", "host:", "host:port", "host:70000"])
def test_bad_addresses(text: str) -> None:
    with pytest.raises(ValueError, match="HOST:PORT"):
        parse_address(text)


def test_settings_are_validated() -> None:
    with pytest.raises(ValueError, match="unknown tolerance"):
        Strictness(Level.STRICT, frozenset({"no-such-drift"}))
    with pytest.raises(ValueError, match="positive"):
        SuiteConfig(timeout=0)


def test_usage_errors_exit_with_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["nowhere"], ["h:1", "--allow", "bogus"], ["h:1", "--only", "bogus"], []):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 2
    assert "HOST:PORT" in capsys.readouterr().err


def test_list_names_every_check_and_tolerance(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    listing = capsys.readouterr().out
    assert "move.wall" in listing and "[§4.2 MOVE" in listing
    assert "gold-colon" in listing and "ext.map" in listing


async def _cli(*args: str) -> subprocess.CompletedProcess[bytes]:
    with trio.fail_after(40):
        return await trio.run_process(
            [sys.executable, "-m", "conformance", *args],
            capture_stdout=True,
            capture_stderr=True,
            check=False,
        )


async def test_the_command_exits_0_on_a_conforming_server(
    start_faulty: StartFaulty, tmp_path: Path
) -> None:
    port = await start_faulty(None)
    junit = tmp_path / "conformance.xml"
    done = await _cli(f"127.0.0.1:{port}", "--format", "json", "--junitxml", str(junit))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["counts"]["passed"] == 22
    assert ElementTree.parse(junit).getroot().get("failures") == "0"
    assert b"conforms at level strict" in done.stderr


async def test_the_command_exits_1_and_explains_a_failure(start_faulty: StartFaulty) -> None:
    port = await start_faulty(Fault.THROUGH_WALLS)
    done = await _cli(f"127.0.0.1:{port}", "--only", "move.wall", "--timeout", "2")
    assert done.returncode == 1
    out = done.stdout.decode()
    assert "FAIL  move.wall" in out and "answered 'SUCCESS'" in out
    assert "0 passed, 0 warning, 1 failed, 0 skipped" in out


def test_ctrl_c_after_some_checks_shows_them_without_a_verdict_and_exits_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: a verdict ("DOES NOT CONFORM ... 0 failed"), a finding blaming the server,
    # and status 1, where every other dod-* command says it was interrupted, status 130.
    async def interrupted_suite(*args: object, on_result: Callable[..., None], **_: object) -> None:
        report = Report(target="127.0.0.1:40004", level="strict")
        report.results.append(REPORT.results[0])
        on_result(report, report.results[0])
        raise KeyboardInterrupt  # Ctrl-C while the next check waits for the server

    monkeypatch.setattr(cli, "check_server", interrupted_suite)
    assert cli.main(["127.0.0.1:40004"]) == INTERRUPTED_STATUS
    shown = capsys.readouterr()
    assert "hello.gold" in shown.out
    assert "CONFORM" not in shown.out and "FINDING" not in shown.out
    assert shown.out.rstrip().endswith(
        "127.0.0.1:40004 was not judged (INTERRUPTED) at level strict: 1 passed, 0 warning, "
        "0 failed, 0 skipped (0.0 s)"
    )
    assert shown.err.endswith("\ndod-conformance: interrupted\n")
