"""Logging never takes the server down, and one client cannot fill the log."""

from __future__ import annotations

import errno
import io

import structlog
import structlog.testing
import trio
import trio.testing

from dungeon_of_doom.server.setup.logs import LogAllowance, RateLimitedLogger, SafePrintLogger

from ..conftest import StartServer
from ..helpers import Peer, bound_port


class FullDisk(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_a_line_that_cannot_be_written_is_dropped_and_counted() -> None:
    before = SafePrintLogger.dropped
    SafePrintLogger(FullDisk()).info("an event")
    closed = io.StringIO()
    closed.close()
    SafePrintLogger(closed).error("another")
    assert SafePrintLogger.dropped == before + 2
    written = io.StringIO()
    SafePrintLogger(written).info("kept")
    assert written.getvalue() == "kept\n"


async def test_a_rate_limited_logger_reports_what_it_suppressed_when_it_resumes(
    mock_clock: trio.testing.MockClock,
) -> None:
    allowance = LogAllowance(rate=1.0, burst=3)
    with structlog.testing.capture_logs() as logs:
        log = RateLimitedLogger(structlog.get_logger(), allowance).bind(peer="1.2.3.4:5")
        for number in range(10):
            log.info("protocol error", number=number)
        log.error("world failed")  # errors are about the server: never suppressed
        mock_clock.jump(2.0)  # two events' worth of refill
        log.info("protocol error", number=10)
        log.info("protocol error", number=11)
        log.info("protocol error", number=12)
    assert [(e["event"], e.get("number", e.get("count"))) for e in logs] == [
        ("protocol error", 0),
        ("protocol error", 1),
        ("protocol error", 2),
        ("world failed", None),
        ("log lines suppressed", 7),
        ("protocol error", 10),
        ("protocol error", 11),
    ]
    assert all(e["peer"] == "1.2.3.4:5" for e in logs)
    assert allowance.suppressed == 1
    assert not allowance.refilled(trio.current_time())
    log.flush_suppressed()
    assert allowance.refilled(trio.current_time() + 3.0)


async def test_one_client_cannot_fill_the_log(start_server: StartServer) -> None:
    server = await start_server(client_log_burst=5, client_log_rate=0.001)
    with structlog.testing.capture_logs() as logs:
        rogue, other = (
            await Peer.connect(bound_port(server)),
            await Peer.connect(bound_port(server)),
        )
        await rogue.send("DANCE\n" * 200)
        for _ in range(200):
            assert (await rogue.read_line()).startswith("ERROR unknown command")
        assert await rogue.ask("QUIT") == ["BYE Thanks for playing."]
        await rogue.read_to_end()
        await other.send("QUIT\n")
        await other.read_to_end()
        await trio.testing.wait_all_tasks_blocked()
        server._forget_quiet_addresses()
    # Both connections come from 127.0.0.1: they share one allowance.
    about_clients = [e for e in logs if "peer" in e]
    assert len(about_clients) == 5 + 1
    suppressed = about_clients[-1]
    assert suppressed["event"] == "log lines suppressed"
    assert suppressed["count"] == 200 + 2 + 2 - 5  # errors, connects and disconnects


async def test_a_client_looping_hello_and_quit_cannot_fill_the_log(
    start_server: StartServer,
) -> None:
    server = await start_server(client_log_burst=10, client_log_rate=0.001, map="tiny")
    with structlog.testing.capture_logs() as logs:
        for _ in range(30):
            peer = await Peer.connect(bound_port(server))
            await peer.send("HELLO\nQUIT\n")
            assert await peer.read_to_end() == b"GOLD 1\nBYE Thanks for playing.\n"
        await trio.testing.wait_all_tasks_blocked()
    about_client = [e for e in logs if "peer" in e]
    assert len(about_client) == 10  # connects, joins, disconnects: one allowance for them all
    assert {e["event"] for e in about_client} >= {"client connected", "player joined"}
