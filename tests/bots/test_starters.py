"""The starters of ``bots/starters/`` (JavaScript, Java, C, Go, Rust) against a real
``dod-server`` process.

Each is built with its own toolchain into a temporary folder (never into the repository),
then: wins every shipped classic map in a game it joins with ``--game``, under its
``--name``, in as many moves as ``bots.explorer`` (the same strategy, so a starter that
misread a ``LOOK`` would walk elsewhere); plays the default game as docs/bots.md says;
ends on the server's ``ERROR`` with it on stderr and exit status 1; and plays as an
entrant of a real ``dod-arena`` tournament. A starter whose toolchain is not installed
is skipped, saying which (``.ci/run`` installs them).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
import trio

from ..helpers import REPO, Peer
from .conftest import Finished, bot_limit, run_module

STARTERS = REPO / "bots" / "starters"
LANGUAGES = ("javascript", "java", "c", "go", "rust")
GOALS = {"tiny": 1, "default": 3, "labyrinth": 5, "cavern": 4}
"""The shipped classic maps and the gold each asks for."""
SEED = 11
BUILD_TIMEOUT = 120
WIN = re.compile(r"WIN You escaped the dungeon with (\d+) gold in (\d+) moves\.")
LISTENING = re.compile(r"listening on 127\.0\.0\.1:(\d+)")


def _tool(name: str, package: str, language: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(
            f"{name} is not installed, so the {language} starter is not played "
            f"(Debian's {package}; .ci/run installs it)"
        )
    return found


def _compile(command: Sequence[str | Path], env: Mapping[str, str] | None = None) -> None:
    done = subprocess.run(
        [str(word) for word in command],
        capture_output=True,
        text=True,
        env=env,
        timeout=BUILD_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, f"{command[0]} failed:\n{done.stdout}{done.stderr}"


def build(language: str, out: Path) -> list[str]:
    """Build the starter of ``language`` into ``out``; the command that runs it."""
    source = STARTERS / language
    out.mkdir(parents=True, exist_ok=True)
    if language == "javascript":
        return [_tool("node", "nodejs", language), str(source / "starter.js")]
    if language == "java":
        javac = _tool("javac", "default-jdk-headless", language)
        _compile([javac, "-d", out, source / "Starter.java"])
        return [_tool("java", "default-jdk-headless", language), "-cp", str(out), "Starter"]
    binary = out / "starter"
    if language == "c":
        compiler = shutil.which("cc") or _tool("gcc", "gcc", language)
        _compile([compiler, "-std=c99", "-Wall", "-O2", "-o", binary, source / "starter.c"])
    elif language == "go":
        go = _tool("go", "golang-go", language)
        # Go keeps its build cache and module folder under the user's home by default.
        env = {**os.environ, "GOCACHE": str(out / "cache"), "GOPATH": str(out / "path")}
        _compile([go, "build", "-o", binary, source / "main.go"], env)
    else:
        rustc = _tool("rustc", "rustc", language)
        _compile([rustc, "--edition", "2021", "-o", binary, source / "main.rs"])
    return [str(binary)]


@dataclass(frozen=True)
class Starter:
    """A starter, built: its language and the command that runs it."""

    language: str
    command: list[str]

    async def run(self, *arguments: str) -> Finished:
        """Run the starter to its end; one still running after :func:`bot_limit` seconds is
        killed, and its result says so."""
        limit = bot_limit()
        with trio.move_on_after(limit):
            done = await trio.run_process(
                [*self.command, *arguments], capture_stdout=True, capture_stderr=True, check=False
            )
            return Finished(done.returncode, done.stdout.decode(), done.stderr.decode())
        return Finished(-9, "", f"the {self.language} starter did not end in {limit:.0f} s")


class Builds:
    """Each starter built once for the module, when a test first needs it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._built: dict[str, Starter] = {}

    def starter(self, language: str) -> Starter:
        if language not in self._built:
            command = build(language, self.folder / language)
            self._built[language] = Starter(language, command)
        return self._built[language]


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> Builds:
    return Builds(tmp_path_factory.mktemp("starters"))


# Built in a fixture, not in the (trio) test: a skip raised inside a trio test loses its
# reason, and the reason says which toolchain is missing.
@pytest.fixture(params=LANGUAGES)
def starter(builds: Builds, request: pytest.FixtureRequest) -> Starter:
    """Each starter in turn, built; skipped, saying why, where its toolchain is missing."""
    language: str = request.param
    return builds.starter(language)


@pytest.fixture
def every_starter(builds: Builds) -> list[Starter]:
    """Every starter whose toolchain is installed, built."""
    found = []
    for language in LANGUAGES:
        with contextlib.suppress(pytest.skip.Exception):
            found.append(builds.starter(language))
    if not found:
        pytest.skip("no starter's toolchain is installed (.ci/run installs them)")
    return found


@pytest.fixture(scope="module")
def server_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A ``dod-server`` process on a free port: the default map, seed 0."""
    process = subprocess.Popen(
        [sys.executable, "-m", "server", "--port", "0", "--no-http", "--no-db", "--no-replays"],
        cwd=tmp_path_factory.mktemp("server"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "DOD_LOG_LEVEL": "error"},
    )
    assert process.stderr is not None
    seen: list[str] = []
    while (listening := LISTENING.search(line := process.stderr.readline())) is None:
        assert line, "dod-server ended before it listened:\n" + "".join(seen)
        seen.append(line)
    try:
        yield int(listening[1])
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture(scope="module")
def explorer_moves() -> dict[str, int]:
    """Moves ``bots.explorer`` takes to win each map, filled in as tests play them."""
    return {}


async def watched_game(port: int, game: str, map_name: str) -> Peer:
    """A spectator of a new game of ``map_name`` (seed ``SEED``) who is told who plays."""
    watcher = await Peer.connect(port)
    assert await watcher.ask("EXTEND board") == ["EXTENDED board"]
    created = await watcher.ask(f"CREATE {game} classic map={map_name} seed={SEED}")
    assert created[0].startswith(f"GAME {game} "), created
    await watcher.send(f"WATCH {game}\n")
    return watcher


async def lines_until_over(watcher: Peer, into: list[str]) -> None:
    """What the spectator is told until the game is over (its last player gone)."""
    while not (line := await watcher.read_line(bot_limit())).startswith("GAMEOVER"):
        into.append(line)
    await watcher.aclose()


async def explorer_wins(port: int, map_name: str, cache: dict[str, int]) -> int:
    """The moves ``bots.explorer`` wins ``map_name`` in, on seed ``SEED``."""
    if map_name not in cache:
        game = f"explorer-{map_name}"
        watcher = await watched_game(port, game, map_name)
        finished = await run_module("bots.explorer", "--port", str(port), "--game", game)
        await watcher.aclose()
        assert finished.result.outcome == "win", finished.result
        cache[map_name] = finished.result.moves
    return cache[map_name]


async def test_a_starter_wins_every_shipped_classic_map_as_the_explorer_does(
    starter: Starter, server_port: int, explorer_moves: dict[str, int]
) -> None:
    name = f"{starter.language} starter"  # a name with a space in it
    for map_name, goal in GOALS.items():
        game = f"{starter.language}-{map_name}"
        told: list[str] = []
        watcher = await watched_game(server_port, game, map_name)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(lines_until_over, watcher, told)
            finished = await starter.run("--port", str(server_port), "--game", game, "--name", name)
            if finished.returncode != 0:  # the game may never have begun: nothing to wait for
                nursery.cancel_scope.cancel()
        assert finished.returncode == 0, finished.stderr
        won = WIN.fullmatch(finished.stdout.rstrip("\n"))
        assert won is not None and finished.stdout.count("\n") == 1, finished
        assert int(won[1]) >= goal
        assert int(won[2]) == await explorer_wins(server_port, map_name, explorer_moves), map_name
        # The server's own board names the player the starter said it was, in that game.
        assert any(line.startswith(f"{name}: level=1 ") for line in told), told[-5:]
        assert f"playing {game} as {name}: {goal} gold to win" in finished.stderr.splitlines()


def documented_run() -> tuple[str, str]:
    """The starter's command and the line it prints, as docs/bots.md shows them."""
    text = (REPO / "docs" / "bots.md").read_text()
    section = text.split("## Start here", 1)[1].split("\n## ", 1)[0]
    shown = re.search(r"\n\$ (node bots/starters/\S+)\n(WIN .*)\n", section)
    assert shown is not None, "docs/bots.md shows no starter's run"
    return shown[1], shown[2]


async def test_a_starter_plays_the_default_game_as_docs_bots_md_says(
    starter: Starter, server_port: int
) -> None:
    command, printed = documented_run()
    assert command == "node bots/starters/javascript/starter.js"
    # Without --game the starter plays the default game (here: the default map, seed 0).
    finished = await starter.run("--port", str(server_port))
    assert (finished.returncode, finished.stdout) == (0, printed + "\n"), finished.stderr


async def test_a_starter_ends_on_an_error_saying_it(starter: Starter, server_port: int) -> None:
    finished = await starter.run("--port", str(server_port), "--game", "nowhere")
    assert (finished.returncode, finished.stdout) == (1, "")
    said = "JOIN nowhere: ERROR there is no game called nowhere; send GAMES for the list"
    assert said in finished.stderr.splitlines()
    unknown = await starter.run("--port", str(server_port), "--colour", "blue")
    assert unknown.returncode == 2 and "usage" in unknown.stderr.lower(), unknown


async def test_every_starter_plays_as_an_entrant_of_a_real_tournament(
    every_starter: list[Starter], tmp_path: Path
) -> None:
    """Each starter alone on the default map (``--players 1``), in its own namespaces
    where Linux allows it, relayed under its entrant's name: a win each."""
    template = "--host {host} --port {port} --game {game} --name {name}"
    entrants = [f"{s.language}={' '.join(s.command)} {template}" for s in every_starter]
    with trio.fail_after(bot_limit() * 2):
        done = await trio.run_process(
            [
                *(sys.executable, "-m", "arena", *entrants),
                *("--players", "1", "--map", "default", "--seeds", str(SEED)),
                *("--servers", "1", "--dir", str(tmp_path / "arena"), "--json"),
            ],
            cwd=tmp_path,
            capture_stdout=True,
            capture_stderr=True,
            check=False,
        )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    report = json.loads(done.stdout)
    assert report["recorded"] == len(entrants)
    table = {line["name"]: line for line in report["table"]}
    for entrant in entrants:
        name = entrant.partition("=")[0]
        assert (table[name]["games"], table[name]["wins"]) == (1, 1), table[name]
        assert table[name]["gold"] >= GOALS["default"]
