"""The viewer's routes over HTTP: a replay to download, a player's page, their refusals."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from .conftest import WebServer


def get(url: str) -> tuple[int, bytes, Any]:
    try:
        with urllib.request.urlopen(url) as answer:
            return answer.status, answer.read(), answer.headers
    except urllib.error.HTTPError as error:
        return error.code, error.read(), error.headers


def test_a_replay_downloads_as_it_is_and_nothing_else_does(sprint_server: WebServer) -> None:
    player = sprint_server.player()
    player.send("HELLO ivy")
    player.read_line()
    player.send("PICKUP")
    player.read_line()
    player.send("QUIT")
    player.close()
    written = sorted(sprint_server.replay_dir.glob("*.jsonl"))
    assert written
    status, body, headers = get(f"{sprint_server.url}replays/{written[0].name}")
    assert status == 200
    assert body.startswith(b'{"replay":')  # the file's own header line
    assert written[0].name in headers["content-disposition"]
    for name in ("..%2Fsprint.map", "nothing.jsonl", ".hidden.jsonl", "sprint.map"):
        assert get(f"{sprint_server.url}replays/{name}")[0] == 404, name


def test_a_replay_name_too_long_for_the_system_is_no_replay(sprint_server: WebServer) -> None:
    # Issue 36: a name past what the file system takes answered 500 (ENAMETOOLONG).
    for length in (255, 256, 4096):
        name = "r" * (length - len(".jsonl")) + ".jsonl"
        for route in ("replays", "api/replays"):
            status, body, _ = get(f"{sprint_server.url}{route}/{name}")
            assert status == 404 and b"no replay called" in body, (route, length)
    assert get(f"{sprint_server.url}api/replays/{'%C3%A9' * 200}.jsonl")[0] == 404  # 400 bytes


def test_a_players_page_refuses_what_it_cannot_answer(sprint_server: WebServer) -> None:
    status, body, _ = get(f"{sprint_server.url}api/players/{'x' * 65}")
    assert status == 400 and "1 to 64" in json.loads(body)["error"]
    status, body, _ = get(f"{sprint_server.url}api/players/nobody")
    assert status == 404 and "nobody" in json.loads(body)["error"]
