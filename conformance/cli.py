"""``dod-conformance HOST:PORT``: check a running Dungeon of Doom server.

Exit status: 0 when no check failed, 1 when one did, 2 for a usage error.
Every wait is bounded (``--timeout`` per reply, ``--check-timeout`` per
check), so the command ends even against a server that never answers.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import trio

from commandline import run_command

from .checks import ALL_CHECKS
from .config import DIALECTS, SuiteConfig
from .junit import to_junit_xml
from .levels import TOLERANCES, Level, Strictness
from .page import to_html
from .report import heading, summary, to_json, to_table
from .results import CheckResult, Report
from .runner import check_server

__all__ = ["main", "parse_address"]


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:40004`` for IPv6) as a pair; ``ValueError`` if malformed."""
    host, separator, port = text.rpartition(":")
    if not separator or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"expected HOST:PORT, got {text!r}")
    return host.removeprefix("[").removesuffix("]"), int(port)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dod-conformance",
        description="Check a running Dungeon of Doom server against the 2013 protocol "
        "(docs/protocol.md). Run it against a server no one else is playing on: it moves, "
        "picks up gold and meets itself.",
    )
    parser.add_argument("address", nargs="?", help="the server, as HOST:PORT")
    parser.add_argument(
        "--level",
        choices=[level.value for level in Level],
        default=Level.STRICT.value,
        help="strict: the exact 2013 replies; tolerant: known drift is a warning; "
        "extended: strict plus our extensions, where the server offers them "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--dialect",
        choices=DIALECTS,
        default="2013",
        help="whose replies are exact: 2013 (ours and the 2013 specification), 2015, 2016, "
        "or auto: recognise it first, and say how, at the top of the report "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="TOLERANCE",
        help="allow one kind of drift as a warning at any level (repeatable; see --list)",
    )
    parser.add_argument(
        "--timeout", type=float, default=5.0, help="seconds to wait for any reply (default: 5)"
    )
    parser.add_argument(
        "--check-timeout",
        type=float,
        default=60.0,
        help="seconds one check may take in all (default: 60)",
    )
    parser.add_argument(
        "--max-steps",
        type=int,
        default=200,
        help="moves a check may make exploring for what it needs (default: 200)",
    )
    parser.add_argument(
        "--extra-glyphs",
        default="",
        metavar="CHARS",
        help="characters LOOK may show besides . # G E P B L S A H (for other worlds)",
    )
    parser.add_argument(
        "--only", action="append", metavar="CHECK", help="run only this check (repeatable)"
    )
    parser.add_argument(
        "--format", choices=["table", "json"], default="table", help="output on standard output"
    )
    parser.add_argument(
        "--junitxml",
        "--junit-xml",
        dest="junit_xml",
        type=Path,
        metavar="PATH",
        help="also write JUnit XML, as pytest's --junitxml does (one testcase per check)",
    )
    parser.add_argument(
        "--html",
        type=Path,
        metavar="PATH",
        help="also write one self-contained HTML page: a row per check, its exchange on demand",
    )
    parser.add_argument(
        "--no-probe",
        dest="probe",
        action="store_false",
        help="do not ask the server to keep the suite's games out of its records and "
        "replay lists (EXTEND probe, where offered)",
    )
    parser.add_argument("--list", action="store_true", help="list checks and tolerances, then exit")
    return parser


def _listing() -> str:
    lines = ["checks:"]
    width = max(len(check.id) for check in ALL_CHECKS)
    for check in ALL_CHECKS:
        tag = " (extended)" if check.extension else ""
        lines.append(f"  {check.id:<{width}}  {check.title}{tag}")
        lines.append(f"  {'':<{width}}  [{check.clause}]")
    lines.append("tolerances (--allow NAME, or all with --level tolerant):")
    width = max(map(len, TOLERANCES))
    lines += [f"  {name:<{width}}  {text}" for name, text in TOLERANCES.items()]
    return "\n".join(lines)


class _Progress:
    """Prints each check on standard error as it ends, and keeps the report so far."""

    def __init__(self) -> None:
        self.report: Report | None = None

    def __call__(self, report: Report, result: CheckResult) -> None:
        if self.report is None:
            print(heading(report)[0], file=sys.stderr)
        self.report = report
        line = f"{result.outcome.value.upper():8} {result.check_id} ({result.duration:.1f} s)"
        print(line, *(["  " + result.reason] if result.reason else []), sep="\n", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite; the exit status (130 on Ctrl-C, 141 if the reader went away)."""
    return run_command(lambda: _main(argv), name="dod-conformance")


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.list:
        print(_listing())
        return 0
    if args.address is None:
        parser.error("the server's HOST:PORT is required")
    try:
        host, port = parse_address(args.address)
        config = SuiteConfig(
            strictness=Strictness(Level(args.level), frozenset(args.allow)),
            timeout=args.timeout,
            check_timeout=args.check_timeout,
            max_steps=args.max_steps,
            extra_glyphs=args.extra_glyphs,
            dialect=args.dialect,
            probe=args.probe,
        )
    except ValueError as error:
        parser.error(str(error))
    progress = _Progress()
    try:
        # Ctrl-C lands only where the suite waits (it always soon does, on the server):
        # raised between two bytecodes it could leave a coroutine made and never awaited,
        # whose warning would reach standard error beside the one-line goodbye.
        report = trio.run(
            partial(check_server, host, port, config, only=args.only, on_result=progress),
            restrict_keyboard_interrupt_to_checkpoints=True,
        )
    except ValueError as error:
        parser.error(str(error))
    except KeyboardInterrupt:
        # What ran is shown, with no verdict; then, as every command, "interrupted" and
        # status 130 (commandline.run_command), never a verdict on half a run.
        if progress.report is not None:
            progress.report.interrupted = True
            _show(progress.report, args)
        raise
    _show(report, args)
    return 0 if report.ok else 1


def _show(report: Report, args: argparse.Namespace) -> None:
    print(to_json(report) if args.format == "json" else to_table(report))
    if args.junit_xml is not None:
        args.junit_xml.write_text(to_junit_xml(report), encoding="utf-8")
    if args.html is not None:
        args.html.write_text(to_html(report), encoding="utf-8")
    if args.format == "json":
        print(summary(report), file=sys.stderr)
