"""The load benchmark's own machinery: it must count what the servers answer.

These tests time nothing (speed is measured by ``python -m bench``, never asserted):
they check that a short run against the real game server and the raw-socket bare
server completes commands with no errors, and that the figures it reports are
consistent with one another.
"""

from __future__ import annotations

import asyncio
import importlib.util
import socket
import time

import pytest

from bench import bare_server, generator, load


def test_reply_lines_match_what_the_servers_answer() -> None:
    assert generator.reply_lines(b"LOOK\n", shaped=True) == 6
    assert generator.reply_lines(b"LOOK\n", shaped=False) == 1
    assert generator.reply_lines(b"MOVE N\n", shaped=True) == 1


def test_a_pipelined_batch_of_one_command_asks_for_all_its_reply_lines() -> None:
    # One command (the LOOK mix) is sent as one prebuilt batch: it must still ask for
    # six lines per LOOK, or a bot would send again before its replies were in.
    class Transport:
        def __init__(self) -> None:
            self.written: list[bytes] = []

        def write(self, data: bytes) -> None:
            self.written.append(data)

    async def batch() -> tuple[list[bytes], int]:
        loop = asyncio.get_running_loop()
        plan = generator.Plan(
            port=0,
            connections=1,
            duration=1.0,
            warmup=0.0,
            pipeline=8,
            interval=None,
            shaped=True,
            commands=generator.MIXES["look"],
            seed=1,
        )
        clock = generator._Clock()
        bot = generator.Bot(plan, 0, clock, generator.WorkerResult(), [0.0], loop.create_future())
        transport = Transport()
        bot.transport = transport  # type: ignore[assignment]
        bot.send_batch(0.0)
        bot.send_batch(0.0)
        return transport.written, bot.expect

    written, expect = asyncio.run(batch())
    assert written == [b"LOOK\n" * 8] * 2
    assert expect == 6 * 8


def test_overloaded_names_generators_above_the_warning_mark() -> None:
    assert generator.overloaded([0.2, 0.71, 0.7, 0.95]) == [1, 3]


@pytest.mark.parametrize(
    ("text", "cpus"), [(None, None), ("0", {0}), ("1-3", {1, 2, 3}), ("0,2-3", {0, 2, 3})]
)
def test_cpu_lists_parse_like_taskset(text: str | None, cpus: set[int] | None) -> None:
    assert load._parse_cpus(text) == cpus


def test_a_short_run_counts_replies_from_the_game_and_every_bare_server() -> None:
    # The mix sends LOOK (six reply lines) and MOVE (one): a miscount stalls or errs.
    # Nothing is measured here, so nothing is pinned: a server pinned to one CPU that
    # other tests (other pytest-xdist workers) keep busy could not move to the idle one,
    # and went half a second without a reply, so its measured window counted none.
    args = load.build_parser().parse_args(
        [
            "-n",
            "4",
            "--no-pinning",
            "--duration",
            "1",
            "--warmup",
            "0.2",
            "--commands",
            "mix",
            "--baseline",
            "all",
        ]
    )
    results = load.run(args)
    servers = [run["server"] for run in results["runs"]]
    uvloop = ["bare-uvloop"] if importlib.util.find_spec("uvloop") is not None else []
    assert servers == ["game", "bare-raw", "bare-stream", "bare-fd", "bare-poll", *uvloop]
    for run in results["runs"]:
        assert run["errors"] == 0
        assert run["connections"] == 4
        assert run["throughput"] > 0
        assert run["p50_ms"] <= run["p99_ms"] <= run["p999_ms"]
        assert len(run["generator_cpu"]) == 1
        assert len(run["load_before"]) == 3
        assert 0 <= run["server_cpus_steal"] < 1
    for kind in ("raw", "stream", "fd", "poll", *(["uvloop"] if uvloop else [])):
        assert results[f"ratio_{kind}"] == pytest.approx(
            results["median"]["game"]["throughput"]
            / results["median"][f"bare-{kind}"]["throughput"]
        )
    table = load.markdown(results).splitlines()
    assert table[0].startswith("| round | server |")
    assert [row.split(" | ")[1] for row in table[2 : 2 + len(servers)]] == servers
    assert table[2].endswith("% |")  # the steal column
    assert f"game / bare-{servers[-1][5:]}: throughput" in table[-1]


def test_steal_and_all_ticks_are_read_for_the_cpus_asked() -> None:
    steal, total = load.cpu_ticks({0})
    every_steal, every_total = load.cpu_ticks(None)
    assert 0 <= steal <= total
    assert total <= every_total and steal <= every_steal
    assert load.cpu_ticks(set()) == (0, 0)


def test_an_open_loop_run_reports_how_late_the_generator_sent() -> None:
    args = load.build_parser().parse_args(
        ["-n", "20", "--interval", "0.05", "--duration", "0.5", "--warmup", "0.2", "--no-baseline"]
    )
    results = load.run(args)
    (run,) = results["runs"]
    assert run["errors"] == 0
    # Twenty bots, a command every 50 ms each, for half a second: about 200 commands.
    assert 100 <= run["throughput"] * 0.5 <= 260
    # A reply comes after its command left: no send is later than the slowest reply.
    assert 0 <= run["send_lag_p99_ms"] <= run["p999_ms"]
    assert 0 <= run["generator_cpus_steal"] < 1
    assert "the generator sent late by up to" in load.report(run)


@pytest.mark.skipif(importlib.util.find_spec("uvloop") is None, reason="uvloop: the bench extra")
def test_the_uvloop_baseline_answers_with_the_bare_servers_bytes() -> None:
    with (
        load.bare_server(load.build_parser().parse_args([]), "uvloop") as server,
        socket.create_connection(("127.0.0.1", server.port)) as sock,
    ):
        assert server.name == "bare-uvloop"
        # Two commands in one write, the second split across writes: lines, not reads.
        sock.sendall(b"HELLO bot\nLOOK\nMO")
        sock.sendall(b"VE N\n")
        expected = bare_server.REPLY + bare_server.LOOK_REPLY + bare_server.REPLY
        received = b""
        while len(received) < len(expected):
            chunk = sock.recv(4096)
            assert chunk, f"closed after {received!r}"
            received += chunk
        assert received == expected


class _Recorded:
    """A stand-in transport and loop: what a bot wrote, and the timers it set."""

    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.timers: list[float] = []

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def is_closing(self) -> bool:
        return False

    def call_later(self, delay: float, callback: object) -> None:
        self.timers.append(delay)


def test_a_late_reply_is_not_counted_as_the_generators_lateness() -> None:
    # A bot sends its next command only once answered: when the answer comes after the
    # command was due, the command leaves at once, and that wait is the server's.
    async def scenario() -> generator.WorkerResult:
        plan = generator.Plan(
            port=0,
            connections=1,
            duration=1,
            warmup=0,
            pipeline=1,
            interval=0.1,
            shaped=True,
            commands=(b"MOVE N\n",),
            seed=1,
        )
        clock = generator._Clock()
        clock.measure_from, clock.stop_at = 0.0, float("inf")
        stats = generator.WorkerResult()
        done = asyncio.get_running_loop().create_future()
        bot = generator.Bot(plan, 0, clock, stats, [0.0], done)
        recorded = _Recorded()
        bot.transport = recorded  # type: ignore[assignment]
        bot.loop = recorded  # type: ignore[assignment]
        bot.started = True
        bot.due = time.perf_counter() - 10.0  # answered ten seconds after it was due
        bot.expect = 1
        bot.data_received(b"SUCCESS\n")
        assert recorded.timers == [0.0]  # the next one was due long ago: at once
        bot.send_one()
        assert recorded.written == [b"MOVE N\n"]
        return stats

    stats = asyncio.run(scenario())
    (lag,) = stats.send_lags
    assert 0 <= lag < 9.0  # not the ten seconds the server took
