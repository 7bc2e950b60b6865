"""The hostile benchmark's own machinery: a short run against a real server attacks
every way in, hears the other player, and reports its figures (it times nothing:
``python -m bench.hostile`` measures)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import hostile

ONLY = ["--only", "tcp", "--only", "http", "--only", "ws", "--only", "slowloris"]


def test_a_short_run_reaches_every_way_in_and_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    figures_file = tmp_path / "figures.json"
    hostile.main(["--duration", "2", "--per-kind", "1", *ONLY, "--json", str(figures_file)])
    report = capsys.readouterr().out
    for kind in ("tcp flood 2013", "tcp flood 2015", "tcp flood 2016", "http keep-alive"):
        assert kind in report
    assert "ws non-reader" in report and "slowloris" in report
    figures = json.loads(figures_file.read_text())
    assert figures["stated_mib"] == hostile.STATED_PEAK_MIB
    assert figures["peak_rss_mib"] >= figures["idle_rss_mib"] > 0
    # How many LOOKs two seconds allow depends on the machine's load: only counted here.
    assert {"looks", "look_p50_ms", "look_p99_ms", "unanswered", "dropped"} <= set(figures)
    assert "another player's LOOK: p50" in report
    attackers = figures["attackers"]
    assert all(attackers[name]["opened"] == 1 for name in attackers)
    assert attackers["tcp flood 2016"]["sent"] > 0
