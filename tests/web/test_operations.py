"""The operations surface: health, readiness, Prometheus metrics, replay file safety."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
import trio

from server.setup.config import ServerConfig, load_config
from server.web import serve_web
from server.web.replays import NoSuchReplay, replay_path, shown_map

from ..conftest import StartServer
from ..helpers import Peer, bound_port


async def _get(url: str) -> tuple[int, str, str]:
    def fetch() -> tuple[int, str, str]:
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                return response.status, response.headers["content-type"], response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.headers["content-type"], error.read().decode()

    return await trio.to_thread.run_sync(fetch)


def _sample(text: str, name: str) -> float:
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    assert match, f"{name} not in the metrics"
    return float(match.group(1))


async def test_health_readiness_and_metrics_that_move_with_play(
    start_server: StartServer, nursery: trio.Nursery
) -> None:
    server = await start_server(http_port=0)
    web = await nursery.start(serve_web, server)
    status, _, body = await _get(web.url + "healthz")
    assert status == 200 and json.loads(body) == {"status": "ok"}
    status, _, body = await _get(web.url + "readyz")
    assert status == 200 and json.loads(body)["port"] == server.port

    status, kind, before = await _get(web.url + "metrics")
    assert status == 200 and kind.startswith("text/plain")
    assert _sample(before, "dod_connections") == 0
    assert 'dod_games{world="classic"} 1.0' in before

    peer = await Peer.connect(bound_port(server))
    await peer.send("HELLO\nLOOK\nLOOK\nMOVE N\nFROB\n")
    for _ in range(3):  # GOLD, two LOOKREPLYs and their rows, the move, the error
        await peer.read_line()
    while not (await peer.read_line()).startswith("ERROR"):
        pass
    _, _, after = await _get(web.url + "metrics")
    assert _sample(after, "dod_connections") == 1
    assert _sample(after, 'dod_commands_total{verb="LOOK"}') == 2
    assert _sample(after, 'dod_commands_total{verb="HELLO"}') == 1
    assert _sample(after, 'dod_players{world="classic"}') == 1
    assert _sample(after, "dod_connections_served_total") == 1
    assert _sample(after, "dod_protocol_errors_total") == 1  # FROB
    assert "dod_event_loop_lag_seconds_bucket" in after
    await peer.aclose()

    server.shutdown()  # synchronous: the server stops accepting players at once
    status, _, body = await _get(web.url + "readyz")
    assert status == 503 and json.loads(body)["status"] == "not ready"


async def test_the_site_has_an_icon(start_server: StartServer, nursery: trio.Nursery) -> None:
    # Before: /favicon.ico was a 404, in every browser's log of every page.
    server = await start_server(http_port=0)
    web = await nursery.start(serve_web, server)

    def fetch() -> tuple[int, str, bytes]:
        with urllib.request.urlopen(web.url + "favicon.ico", timeout=10) as response:
            return response.status, response.headers["content-type"], response.read()

    status, kind, icon = await trio.to_thread.run_sync(fetch)
    assert (status, kind) == (200, "image/vnd.microsoft.icon")
    assert icon[:4] == b"\x00\x00\x01\x00"  # an ICO file's header
    _, _, page = await _get(web.url)
    assert '<link rel="icon" href="/favicon.ico">' in page


async def test_a_replay_is_served_only_from_the_replay_folder(tmp_path: Path) -> None:
    (tmp_path / "a-1.jsonl").write_text("{}\n")
    assert replay_path(tmp_path, "a-1.jsonl") == tmp_path / "a-1.jsonl"
    for name in ("../a-1.jsonl", "/etc/passwd", "a-1.json", ".hidden.jsonl", "b.jsonl"):
        with pytest.raises(NoSuchReplay):
            replay_path(tmp_path, name)
    with pytest.raises(NoSuchReplay):
        replay_path(None, "a-1.jsonl")


def test_a_map_path_is_shown_by_its_file_name_only() -> None:
    assert shown_map("/srv/maps/arena.map") == "arena.map"
    assert shown_map("generated:seed=3") == "generated:seed=3"
    assert shown_map(None) == "default"


def test_the_web_face_is_on_by_default_on_loopback_and_can_be_turned_off() -> None:
    import argparse

    from server.cli import build_parser

    def config(*argv: str) -> ServerConfig:
        args = build_parser().parse_args(list(argv))
        for name in ("list_worlds", "list_maps", "print_config"):
            delattr(args, name)
        assert isinstance(args, argparse.Namespace)
        return load_config(args, environ={}).config

    assert config().http_port == 8004 and config().http_host == "127.0.0.1"
    assert config("--http-port", "0").http_port == 0
    assert config("--no-http").http_port is None
    assert ServerConfig().http_port is None  # a server built in code serves no page


def test_a_busy_web_port_is_one_line_and_exit_status_2(tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        finished = subprocess.run(
            [
                sys.executable,
                "-m",
                "server",
                "--port",
                "0",
                "--http-port",
                str(port),
                "--no-replays",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert finished.returncode == 2
    errors = [line for line in finished.stderr.splitlines() if line.startswith("dod-server: error")]
    assert errors == [
        f"dod-server: error: cannot serve the web page on 127.0.0.1:{port}: Address already in "
        "use (--http-port 0 picks a free port, --no-http serves none)"
    ]
    assert "Traceback" not in finished.stderr


async def test_the_leaderboard_api_shows_the_ratings_of_finished_games(
    start_server: StartServer,
    nursery: trio.Nursery,
    tmp_path: Path,
    write_map: Callable[[str], str],
) -> None:
    from ..records.test_server_records import named, played

    board = write_map("name Sprint\nwin 1\n####\n#GE#\n####\n")
    server = await start_server(map=board, db=f"sqlite:///{tmp_path / 'r.db'}")
    web = await nursery.start(serve_web, server)
    status, _, body = await _get(web.url + "api/leaderboard")
    answer = json.loads(body)
    assert status == 200 and (answer["world"], answer["standings"], answer["bests"]) == (
        "classic",
        [],
        [],
    )
    assert {"classic", "crawler", "baddies", "knight", "battle"} <= set(answer["worlds"])

    loser = await named(bound_port(server), "Bob")  # a rated game has two named players
    winner = await named(bound_port(server), "Ada")
    assert await loser.ask("QUIT") == ["BYE Thanks for playing."]
    await winner.ask("MOVE W")  # onto the gold, or into the wall
    await winner.ask("PICKUP")
    assert await winner.ask("MOVE E") == ["SUCCESS"]
    assert (await winner.read_line()).startswith("WIN")
    await played(server, 1)
    status, _, body = await _get(web.url + "api/leaderboard?world=classic")
    standings = json.loads(body)["standings"]
    assert [(s["rank"], s["name"], s["games"], s["wins"]) for s in standings] == [
        (1, "Ada", 1, 1),
        (2, "Bob", 1, 0),
    ]
    status, _, body = await _get(web.url + "api/leaderboard?world=knight")
    assert json.loads(body)["standings"] == []


async def test_a_server_without_records_says_so(
    start_server: StartServer, nursery: trio.Nursery
) -> None:
    server = await start_server(db=None)
    web = await nursery.start(serve_web, server)
    status, _, body = await _get(web.url + "api/leaderboard")
    assert status == 404 and "keeps no records" in json.loads(body)["error"]
