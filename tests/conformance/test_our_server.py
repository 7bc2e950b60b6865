"""CI: the whole suite against our own server, on every shipped classic map."""

from __future__ import annotations

from collections.abc import Awaitable
from pathlib import Path

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
from dungeon_of_doom.conformance.pytest_plugin import CheckServer
from dungeon_of_doom.records.store import Store
from dungeon_of_doom.server.web.replays import list_replays

from ..conftest import StartServer
from ..helpers import bound_port

pytestmark = pytest.mark.long_file


async def awaited(pending: Report | Awaitable[Report]) -> Report:
    """The report of ``dod_conformance`` called inside a trio run, which must be awaited."""
    assert not isinstance(pending, Report), "inside a trio run the check is awaited"
    return await pending


# Extensions that our classic world offers, so they must be checked, not skipped.
OFFERED = (
    "ext.handshake",
    "ext.pushes",
    "ext.help",
    "ext.map",
    "ext.errors",
    "ext.names",
    "ext.final-line",
)


@pytest.fixture
def dod_conformance_config() -> SuiteConfig:
    return SuiteConfig(strictness=Strictness(Level.EXTENDED), timeout=5.0)


@pytest.mark.parametrize(("map_name", "seed"), [("tiny", 1), ("default", 3), ("labyrinth", 7)])
async def test_our_server_passes_every_strict_check(
    start_server: StartServer, dod_conformance: CheckServer, map_name: str, seed: int
) -> None:
    server = await start_server(map=map_name, seed=seed)
    with trio.fail_after(60):
        report = await awaited(dod_conformance("127.0.0.1", bound_port(server)))
    classic = [r for r in report.results if not r.check_id.startswith("ext.")]
    assert len(classic) == 22
    assert all(r.outcome is Outcome.PASSED for r in classic), to_table(report)
    for check_id in OFFERED:
        assert report.get(check_id).outcome is Outcome.PASSED, to_table(report)


async def test_the_suite_fails_a_test_when_a_check_fails(
    dod_conformance: CheckServer,
) -> None:
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    await listener.aclose()
    with pytest.raises(AssertionError, match=r"(?s)FAIL  hello\.gold .*could not connect"):
        await awaited(dod_conformance("127.0.0.1", port))


@pytest.mark.parametrize(
    ("dialect", "level"),
    [
        ("2015", Level.STRICT),
        ("2016", Level.STRICT),
        ("2016ch", Level.STRICT),
        ("2016ch", Level.TOLERANT),
        ("2016mbk", Level.STRICT),
        ("2016mbk", Level.TOLERANT),
    ],
)
async def test_each_dialect_port_of_our_server_passes_every_strict_check(
    start_server: StartServer, dialect: str, level: Level
) -> None:
    # The 2015 goodbye is two lines (FROM SERVER, MESSAGE ...), the 2016 centre is P,
    # and each dialect reads lines its own way: all of it the dialect's, none a fault.
    # 2016ch (ch739's client) needs a name, says SUCCESS then TREASUREMOD, and pushes a
    # view to every player in sight of a move: recognised as its own, judged in its forms.
    # 2016mbk (mbuckley2000's client) writes only lines of its own (H3, L5 rows, MS), and
    # pushes its view after MS and to players in sight in the form of a LOOK answer.
    server = await start_server(dialect=dialect, map="default", seed=3)
    config = SuiteConfig(strictness=Strictness(level), timeout=2.0, dialect="auto")
    with trio.fail_after(120):
        report = await check_server("127.0.0.1", bound_port(server), config)
    assert report.dialect == dialect, to_table(report)
    assert report.ok, to_table(report)
    assert report.count(Outcome.PASSED) == len(report.results), to_table(report)


async def test_a_conformance_run_stays_out_of_the_records_and_the_replay_list(
    start_server: StartServer, tmp_path: Path
) -> None:
    # Before: every check's game was recorded, and the replay list filled with near-empty
    # anonymous games. The suite asks for EXTEND probe once the first check is made.
    replays = tmp_path / "replays"
    server = await start_server(
        map="default", seed=3, replay_dir=str(replays), db=f"sqlite:///{tmp_path / 'r.db'}"
    )
    with trio.fail_after(120):
        report = await check_server("127.0.0.1", bound_port(server), SuiteConfig(timeout=5.0))
    assert report.ok, to_table(report)
    writer = server.ladder.writer
    assert writer is not None
    await writer.drained()
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    try:
        recorded = store.games()
    finally:
        store.close()
    # At most the first check's game, played before the suite could ask.
    assert len(recorded) <= 1, recorded
    files = list(replays.glob("*.jsonl"))
    listed = list_replays(replays)
    assert len(files) > 5 and len(listed) <= 1, (len(files), listed)
    assert len(list_replays(replays, probes=True)) == len(files)
