"""End-to-end property for every way in (issue 28, "beyond the list"): random and hostile
input on the 2013 port, each dialect port (2015, 2016) and the HTTP port of one real
``dod-server`` process never gets a server bug for an answer, never takes the server
down, and never keeps another player, on another address, waiting.

Hypothesis draws what one visitor sends: random bytes, lines of commands with hostile
arguments (bytes that are not UTF-8, telnet negotiation, NUL, lines past the length
limit, bare CRs), or HTTP requests with odd methods, paths, headers and bodies, cut into
pieces written one after another. Meanwhile a player from 127.0.0.2 sends ``LOOK`` in a
loop; every answer must come within :data:`LOOK_BOUND` (a failure bound for a loaded
2-core machine, not a timing target: ``python -m bench.hostile`` measures the figures).
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..limits import process_limit

LOOK_BOUND = 5.0
"""Seconds another player's ``LOOK`` may take at most while a visitor is hostile."""
PLAYER_ADDRESS = "127.0.0.2"
LISTENING = re.compile(r"listening on [\d.]+:(\d+)(?: \(dialect (\d+)\))?")
WEB_AT = re.compile(r"web page at http://[\d.]+:(\d+)/")
SCRIPT = str(Path(sys.executable).with_name("dod-server"))
LISTEN = ["--listen", "0", "--listen", "0:2015", "--listen", "0:2016"]
WEB_AND_LOGS = ["--http-port", "0", "--log-format", "json"]


@dataclass
class Running:
    process: subprocess.Popen[bytes]
    ports: dict[str, int]
    """``"2013"``, ``"2015"``, ``"2016"`` and ``"http"`` → port."""
    log: list[dict[str, object]]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    folder = tmp_path_factory.mktemp("every-way-in")
    process = subprocess.Popen(
        [SCRIPT, *LISTEN, *WEB_AND_LOGS, "--replay-dir", str(folder / "replays")],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert process.stderr is not None
    ports: dict[str, int] = {}
    log: list[dict[str, object]] = []
    while "http" not in ports:
        line = process.stderr.readline()
        assert line, "dod-server ended before it listened"
        record = json.loads(line)
        event = str(record["event"])
        if match := LISTENING.fullmatch(event):
            ports[match.group(2) or "2013"] = int(match.group(1))
        if match := WEB_AT.fullmatch(event):
            ports["http"] = int(match.group(1))
    stderr = process.stderr

    def collect() -> None:  # every later line, so that the pipe never fills
        for line in stderr:
            try:
                log.append(json.loads(line))
            except ValueError:  # not JSON: a traceback the logging did not take
                log.append({"event": line.decode(errors="replace"), "level": "error"})

    reader = threading.Thread(target=collect, daemon=True)
    reader.start()
    try:
        yield Running(process, ports, log)
        # What the server logged while it served (its shutdown is another test's:
        # tests/robustness/test_shutdown.py).
        served = list(log)
    finally:
        process.terminate()
        process.wait(timeout=60)
        reader.join(timeout=process_limit())
    bugs = [r for r in served if ("exception" in r or r.get("level") in ("error", "critical"))]
    assert not bugs, [(r["event"], str(r.get("exception", ""))[-1500:]) for r in bugs[:5]]


# -- what a hostile visitor sends ------------------------------------------------------

VERBS = ["HELLO", "LOOK", "MOVE", "PICKUP", "STAY", "MAP", "GAMES", "CREATE", "JOIN"]
VERBS += ["WATCH", "SHOUT", "EXTEND", "REGISTER", "LOGIN", "LEADERBOARD", "ATTACK", "QUIT"]
VERBS += ["HELP", "ENDTURN", "APGET", "HPGET", "DANCE", "look", ""]
WORDS = ["N", "NE", "x", "default", "knight", "map=../../etc/passwd", "map=1000x1000"]
WORDS += ["players=99999", "turn=1e309", "seed=-1", "%00", "\u00e9", "a" * 300, "=", ":"]
HOSTILE_WORDS = st.sampled_from(WORDS) | st.text(max_size=12)
HOSTILE_BYTES = st.sampled_from(
    [b"\xff\xfb\x01", b"\xff\xfa\x18" + b"x" * 200, b"\xff", b"\xc3", b"\x00", b"\r", b"\x1b[2J"]
)


def _line(verb: str, words: list[str], tail: bytes) -> bytes:
    return " ".join([verb, *words]).encode("utf-8", "surrogateescape") + tail + b"\n"


LINES = st.lists(
    st.builds(_line, st.sampled_from(VERBS), st.lists(HOSTILE_WORDS, max_size=4), HOSTILE_BYTES)
    | st.builds(_line, st.sampled_from(VERBS), st.lists(HOSTILE_WORDS, max_size=2), st.just(b""))
    | st.just(b"L" * 1100 + b"\n"),
    min_size=1,
    max_size=20,
).map(b"".join)
TCP_INPUT = LINES | st.binary(min_size=1, max_size=2048)

PATHS = ["/", "/api/games", "/api/replays", "/api/replays/x.jsonl", "/api/replays/..%2f..%2f"]
PATHS += ["/api/leaderboard?world=classic", "/api/leaderboard?world=%ff", "/metrics"]
PATHS += ["/api/tournaments", "/api/tournaments/x?from=99999999999&count=-1&state=%00"]
PATHS += ["/healthz", "/readyz", "/ws", "/static/../../etc/passwd", "/" + "a" * 5000, "*"]


HEADERS = ["Connection: keep-alive", "Upgrade: websocket", "Connection: Upgrade"]
HEADERS += ["Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA=="]
HEADERS += ["Content-Length: 5", "Content-Length: -1", "Transfer-Encoding: chunked"]
HEADERS += ["X-Big: " + "b" * 20000, "Origin: http://evil.example", "Host: x"]


def _request(method: str, path: str, headers: list[str], body: bytes) -> bytes:
    head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", *headers]
    return ("\r\n".join(head) + "\r\n\r\n").encode("utf-8", "surrogateescape") + body


HTTP_INPUT = st.lists(
    st.builds(
        _request,
        st.sampled_from(["GET", "POST", "HEAD", "PUT", "OPTIONS", "BREW", "G\x00T"]),
        st.sampled_from(PATHS),
        st.lists(
            st.sampled_from(HEADERS),
            max_size=5,
        ),
        st.sampled_from([b"", b"hello", b"0\r\n\r\n", b"\xff" * 64]),
    ),
    min_size=1,
    max_size=4,
).map(b"".join) | st.binary(min_size=1, max_size=2048)


def _pieces(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({cut % (len(data) + 1) for cut in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points) if b > a]


# -- the run -----------------------------------------------------------------------------


_GAMES = itertools.count()


class Player:
    """Another player, from another address: ``LOOK`` after ``LOOK``, each one timed."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = b""
        self.slowest = 0.0
        self.looks = 0

    @classmethod
    async def connect(cls, port: int) -> Player:
        sock = trio.socket.socket()
        await sock.bind((PLAYER_ADDRESS, 0))
        await sock.connect(("127.0.0.1", port))
        player = cls(trio.SocketStream(sock))
        # In a game of its own: a visitor that happens to win the default game must
        # not end the player's with it.
        game = f"witness{next(_GAMES)}".encode()
        await player.stream.send_all(b"CREATE %s classic\nJOIN %s\nHELLO\n" % (game, game))
        created, joined, _ = await player.lines(3)
        assert created.startswith(b"GAME ") and joined.startswith(b"GAME "), (created, joined)
        return player

    async def lines(self, count: int) -> list[bytes]:
        while self.buffer.count(b"\n") < count:
            data = await self.stream.receive_some(65536)
            assert data, "the server closed another player's connection"
            self.buffer += data
        *got, self.buffer = self.buffer.split(b"\n", count)
        return got

    async def look_until_cancelled(self) -> None:
        while True:
            began = trio.current_time()
            await self.stream.send_all(b"LOOK\n")
            with trio.move_on_after(LOOK_BOUND):
                answer = await self.lines(6)
                assert answer[0] == b"LOOKREPLY", answer
                self.slowest = max(self.slowest, trio.current_time() - began)
                self.looks += 1
                await trio.sleep(0.01)
                continue
            raise AssertionError(f"another player's LOOK took more than {LOOK_BOUND} s")


async def _visit(port: int, pieces: list[bytes]) -> bytes:
    """Send ``pieces`` one write each and end the input, then read what the server
    answers until it closes (bounded: it may also keep a half-closed connection)."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    answered = b""
    async with stream:
        try:
            for piece in pieces:
                await stream.send_all(piece)
            await stream.send_eof()
            with trio.move_on_after(5):
                while len(answered) < 1 << 20 and (data := await stream.receive_some(65536)):
                    answered += data
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # the server may end a hostile connection: that is its right
    return answered


async def _run(ports: dict[str, int], way: str, pieces: list[bytes]) -> bytes:
    player = await Player.connect(ports["2013"])
    async with player.stream, trio.open_nursery() as nursery:
        nursery.start_soon(player.look_until_cancelled)
        with trio.fail_after(process_limit(3)):
            answered = await _visit(ports[way], pieces)
        while player.looks == 0:  # at least one LOOK answered while the visitor was there
            await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    return answered


@pytest.mark.parametrize("way", ["2013", "2015", "2016", "http"])
def test_hostile_input_on_every_way_in_gets_no_server_bug_and_others_play_on(
    server: Running, way: str
) -> None:
    @settings(
        max_examples=25,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
    )
    @given(data=HTTP_INPUT if way == "http" else TCP_INPUT, cuts=st.lists(st.integers(0, 4096)))
    def check(data: bytes, cuts: list[int]) -> None:
        answered = trio.run(_run, server.ports, way, _pieces(data, cuts))
        assert server.process.poll() is None, "the server exited"
        assert b"a server bug" not in answered, answered[-300:]
        if way == "http":
            # 500 is the server's own failure; 501 (a transfer coding h11 does not
            # take) and 505 are refusals of what was asked, as a 4xx is.
            for status in re.findall(rb"^HTTP/1\.[01] (\d{3})", answered, re.MULTILINE):
                assert int(status) != 500, answered[:300]

    check()
