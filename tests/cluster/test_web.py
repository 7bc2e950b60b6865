"""A cluster node's web face: ``/metrics`` names the node, ``/api/games`` lists every game."""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

from .conftest import WAIT, Cluster, Node, eventually


def _web(node: Node) -> str:
    """The base URL of ``node``'s web face (asked for on port 0, read from its log)."""
    return node.wait_for(r"web page listening.*?url=(http://[^\s]+)").group(1).rstrip("/")


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=WAIT) as response:
        body: bytes = response.read()
    return body.decode()


def _games(base: str) -> dict[str, dict[str, Any]]:
    listed: list[dict[str, Any]] = json.loads(_get(f"{base}/api/games"))["games"]
    return {game["name"]: game for game in listed}


def test_metrics_name_the_node_by_the_address_it_advertises(cluster: Cluster) -> None:
    a = cluster.node("--http-port", "0")
    b = cluster.node("--http-port", "0", "--advertise", "b.example.org:4000")
    shown_a = _get(f"{_web(a)}/metrics")
    shown_b = _get(f"{_web(b)}/metrics")
    assert re.search(
        rf'dod_node_info{{id="[0-9a-f]{{32}}",node="127.0.0.1:{a.port}"}} 1.0', shown_a
    )
    assert 'node="b.example.org:4000"} 1.0' in shown_b
    assert f"127.0.0.1:{a.port}" not in shown_b


def test_api_games_lists_every_node_s_games_with_the_node_holding_each(cluster: Cluster) -> None:
    a, b = cluster.node("--http-port", "0"), cluster.node("--http-port", "0")
    ada, bob = a.client(), b.client()  # kept: a game whose creator leaves before anyone joins goes
    assert ada.ask("CREATE north classic").startswith("GAME north ")
    assert bob.ask("CREATE south classic").startswith("GAME south ")
    web_a, web_b = _web(a), _web(b)
    here_a, here_b = f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"
    eventually(lambda: {"north", "south"} <= _games(web_a).keys(), "A's API lists both games")
    eventually(lambda: {"north", "south"} <= _games(web_b).keys(), "B's API lists both games")
    on_a, on_b = _games(web_a), _games(web_b)
    assert (on_a["north"]["node"], on_a["south"]["node"]) == (here_a, here_b)
    assert (on_b["north"]["node"], on_b["south"]["node"]) == (here_a, here_b)
    assert on_a["north"]["round"] == 0 and on_a["south"]["round"] is None  # B alone counts it
    assert on_b["north"]["world"] == "classic"
    assert on_a["default"]["node"] == here_a and on_b["default"]["node"] == here_b
    assert list(on_a).count("default") == 1  # each node's own default, never two
