"""Fixtures for server tests: servers that offer the test worlds, and a check for silence."""

from __future__ import annotations

import os
import socket
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path

import pytest
import trio.testing

from protocol.replies import GamesReply, ReplyParser
from server.app import Server

from ..conftest import StartServer
from ..helpers import Peer
from .worlds import TickerPlugin

StartGameServer = Callable[..., Awaitable[Server]]


@pytest.fixture
def replay_dir(tmp_path: Path) -> Path:
    return tmp_path / "replays"


@pytest.fixture
def start_game_server(start_server: StartServer, replay_dir: Path) -> StartGameServer:
    """Like ``start_server``, with the ticker world offered and replays in ``replay_dir``."""

    async def start(**settings: object) -> Server:
        settings.setdefault("worlds", (TickerPlugin(),))
        settings.setdefault("replay_dir", replay_dir)
        return await start_server(**settings)

    return start


async def nothing_received(peer: Peer) -> bool:
    """Whether no byte waits for ``peer``, once every task has done what it can."""
    await trio.testing.wait_all_tasks_blocked()
    if peer._buffer:
        return False
    probe = socket.socket(fileno=os.dup(peer.stream.socket.fileno()))
    try:
        probe.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except BlockingIOError:
        return True
    finally:
        probe.close()
    return False


async def games(peer: Peer) -> GamesReply:
    """Send ``GAMES`` and parse the whole reply."""
    await peer.send("GAMES\n")
    first = await peer.read_line()
    lines = [first, *await peer.read_lines(int(first.split()[1]))]
    parser = ReplyParser()
    replies = [parser.feed(line) for line in lines]
    assert isinstance(replies[-1], GamesReply)
    return replies[-1]


async def replay_transcript(
    name: str, peers: Mapping[str, Peer], pushed: set[str], pushed_to: str
) -> str | None:
    """docs/protocol.md's transcript ``name`` (``<!-- transcript: name -->``), replayed:
    each ``who> command`` line is sent by that peer, and each other line must be the next
    one its last speaker reads, or, for a line whose first word is in ``pushed``, the
    next one ``pushed_to`` reads. Returns the last speaker."""
    text = (Path(__file__).parents[2] / "docs" / "protocol.md").read_text()
    block = text.split(f"<!-- transcript: {name} -->\n```\n", 1)[1].split("```", 1)[0]
    speaker = None
    for line in block.splitlines():
        who, typed, command = line.partition("> ")
        if typed:
            speaker = who
            await peers[who].send(command + "\n")
            continue
        reader = pushed_to if line.split()[0] in pushed else speaker
        assert reader is not None, f"{line!r} comes before any command"
        assert await peers[reader].read_line() == line
    return speaker
