"""A protocol conformance suite for any Dungeon of Doom server.

It connects to a running server, knows nothing about its map, explores with
``LOOK`` and checks invariants of the 2013 protocol (docs/protocol.md), each check
naming the clause it tests. Levels: ``strict`` (the exact 2013 replies),
``tolerant`` (known drift reported as warnings), ``extended`` (plus our own
extensions, where the server offers them).

Use it from the command line (``dod-conformance HOST:PORT``), from code::

    report = await check_server("127.0.0.1", 40004)
    assert report.ok, to_table(report)

or from pytest, with :func:`conformance.testing.assert_conforms` or the
fixtures of :mod:`conformance.pytest_plugin`.
"""

from .config import CLASSIC_GLYPHS, Connector, SuiteConfig
from .junit import to_junit_xml
from .levels import TOLERANCES, Level, Strictness
from .page import to_html
from .report import to_json, to_table
from .results import CheckResult, Outcome, Report
from .runner import check_server, run_suite, selected_checks

__all__ = [
    "CLASSIC_GLYPHS",
    "TOLERANCES",
    "CheckResult",
    "Connector",
    "Level",
    "Outcome",
    "Report",
    "Strictness",
    "SuiteConfig",
    "check_server",
    "run_suite",
    "selected_checks",
    "to_html",
    "to_json",
    "to_junit_xml",
    "to_table",
]
