"""Every transcript in the README and ``docs/``, replayed against a real server.

A transcript is a fenced block (no language) of a session with the server:

* ``> LINE`` is typed by the one client (each ``$ nc HOST PORT`` line a new connection, the
  last one closed), ``NAME> LINE`` by the client NAME, each its own connection, opened
  when it first types;
* every other line is what the server wrote: to the one client, or (``NAME< LINE``) to NAME,
  byte for byte (trailing spaces too);
* ``...`` (``NAME< ...``) stands for lines left out; a line ending in `` ...`` for the rest
  of one line;
* a note in parentheses after two spaces or more, at the end of a line or alone on it, and
  a blank line, are for the reader; a ``$`` line of another command, and what follows it
  up to the next ``$ nc``, is that command's (not the server's).

Right before each, an HTML comment says how to replay it: ``<!-- transcript: dod-server
FLAGS -->`` is the server it was taken on (``make run`` starts ``dod-server``), or
``<!-- transcript: played by tests/PATH.py::NAME -->`` names the test that plays it (a
cluster of hosts), or ``<!-- transcript: LABEL -->`` (one word) is a worked example a
test finds by that comment and plays itself. A block with a typed line and none of these
fails the test: every transcript is replayed.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
import trio

from server.app import Server
from server.cli import build_parser
from server.setup.config import ServerConfig, load_config

from ..helpers import REPO, Peer
from ..limits import process_limit

DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
FENCE = re.compile(
    r"(?:<!-- transcript: (?P<how>.*?) -->\n)?^```(?P<lang>\w*)\n(?P<body>.*?)^```", re.M | re.S
)
TYPED = re.compile(r"^(?P<who>[A-Za-z]\w*)?> (?P<text>.*)$")
TOLD = re.compile(r"^(?P<who>[A-Za-z]\w*)< (?P<text>.*)$")
NOTE = re.compile(r"\s{2,}\([^()]*\)$")
PLAYED_BY = re.compile(r"played by (tests/\S+\.py)::(\w+)$")
LABEL = re.compile(r"\w+")


@dataclass(frozen=True)
class Transcript:
    where: str
    how: str | None
    lines: list[str]

    def __str__(self) -> str:
        return self.where


def transcripts() -> list[Transcript]:
    """Every fenced block with a typed line, in every document."""
    found = []
    for document in DOCUMENTS:
        text = document.read_text()
        for match in FENCE.finditer(text):
            lines = match["body"].splitlines()
            if match["lang"] or not any(TYPED.match(line) for line in lines):
                continue
            line = text[: match.start("body")].count("\n")
            found.append(Transcript(f"{document.relative_to(REPO)}:{line}", match["how"], lines))
    return found


@dataclass(frozen=True)
class Step:
    who: str  # "" for the one client
    send: str | None = None
    expect: str | None = None
    skip: bool = False
    connect: bool = False  # a ``$ nc``: the one client's connection, a new one if it had one


def steps(transcript: Transcript) -> list[Step]:
    """What the transcript's lines ask of the server, in order."""
    found: list[Step] = []
    in_command = False
    for raw in transcript.lines:
        line = NOTE.sub("", raw)
        if re.fullmatch(r"\s*(\([^()]*\))?", line):
            continue  # a note alone on its line, or a blank line between sessions
        if line.startswith("$ "):
            in_command = not line.startswith("$ nc ")
            if not in_command:
                found.append(Step("", connect=True))
            continue
        if in_command:
            continue
        if typed := TYPED.match(line):
            found.append(Step(typed["who"] or "", send=typed["text"]))
            continue
        who, text = "", line
        if told := TOLD.match(line):
            who, text = told["who"], told["text"]
        if text == "...":
            found.append(Step(who, skip=True))
        else:
            found.append(Step(who, expect=text))
    return found


ALL = transcripts()


def _played_elsewhere(transcript: Transcript) -> bool:
    """Whether another test plays ``transcript`` (a named test, or a labelled example)."""
    how = transcript.how
    return how is not None and (
        PLAYED_BY.search(how) is not None or LABEL.fullmatch(how) is not None
    )


def test_every_transcript_says_how_it_is_replayed() -> None:
    unmarked = [str(t) for t in ALL if t.how is None]
    assert not unmarked, f"transcripts with no <!-- transcript: ... --> before them: {unmarked}"
    tests = [path.read_text() for path in (REPO / "tests").rglob("test_*.py")]
    for transcript in ALL:
        how = transcript.how or ""
        if played := PLAYED_BY.search(how):
            source = (REPO / played[1]).read_text()
            assert f"def {played[2]}(" in source, f"{transcript}: no test {how}"
        elif LABEL.fullmatch(how):
            # A test names the label (in a comment, or to tests/server/conftest.py's
            # replay_transcript), or reads the document's labelled examples.
            document = transcript.where.partition(":")[0].rpartition("/")[2]
            assert any(
                f"transcript: {how}" in source
                or f'replay_transcript("{how}"' in source
                or (document in source and "transcript)" in source)
                for source in tests
            ), f"{transcript}: no test plays {how!r}"


def server_config(command: str, folder: Path) -> ServerConfig:
    """The settings ``dod-server FLAGS`` (``command``) runs with, on a free port, with no
    web face, its replays and records in ``folder``."""
    program, *flags = shlex.split(command)
    assert program == "dod-server", f"not a dod-server command: {command!r}"
    mine = ["--port", "0", "--no-http", "--replay-dir", str(folder / "replays")]
    parsed = build_parser().parse_args([*flags, *mine])
    for own in ("list_worlds", "list_maps", "print_config", "cluster_status", "worker_number"):
        delattr(parsed, own)  # the command's, not settings
    return load_config(parsed, {}).config


def _matches(line: str, expected: str) -> bool:
    if expected.endswith(" ..."):
        return line.startswith(expected[:-3])
    return line == expected


@pytest.mark.parametrize(
    "transcript",
    [t for t in ALL if t.how is not None and not _played_elsewhere(t)],
    ids=str,
)
async def test_the_transcript_is_what_the_server_says(
    transcript: Transcript, nursery: trio.Nursery, tmp_path: Path
) -> None:
    assert transcript.how is not None
    server = Server(server_config(transcript.how, tmp_path))
    await nursery.start(server.run)
    peers: dict[str, Peer] = {}
    skipping: set[str] = set()
    try:
        for number, step in enumerate(steps(transcript)):
            where = f"{transcript}, step {number + 1} ({step.who or 'the client'})"
            if step.skip:
                skipping.add(step.who)
                continue
            if step.connect:
                if (gone := peers.pop(step.who, None)) is not None:
                    await gone.aclose()  # as nc ends with Ctrl-C
                continue
            peer = peers.get(step.who)
            if peer is None:
                assert server.port is not None
                peer = peers[step.who] = await Peer.connect(server.port)
            if step.send is not None:
                if step.send.split()[:1] == ["LEADERBOARD"] and server.ladder.writer is not None:
                    await server.ladder.writer.drained()  # the games just played are in
                await peer.send(step.send + "\n")
                continue
            assert step.expect is not None
            limit = process_limit()
            line = await peer.read_line(limit)
            if step.who in skipping:
                skipping.discard(step.who)
                with trio.fail_after(limit):
                    while not _matches(line, step.expect):
                        line = await peer.read_line(limit)
            assert _matches(line, step.expect), f"{where}: {line!r}, not {step.expect!r}"
    finally:
        for peer in peers.values():
            await peer.aclose()
        server.shutdown()
