"""dod-arena: the schedule, and a real tournament that survives crashing, hanging and
flooding bots."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from arena import cli as arena
from arena.entrants import parse_entrants
from arena.schedule import round_robin, swiss_round
from records.compare import compare
from records.store import Store

from ..conftest import StartServer
from ..helpers import Peer, bound_port
from ..server.conftest import nothing_received


def test_entrants_get_unique_names_and_commands_their_templates() -> None:
    entrants = parse_entrants(["random:2", "explorer", "mine=python bot.py {port} {name}"])
    assert [e.name for e in entrants] == ["random-1", "random-2", "explorer", "mine"]
    command = entrants[3].command(host="h", port=7, game="g", seed=1, options=None)
    assert command == ["/bin/sh", "-c", "python bot.py 7 mine"]
    with pytest.raises(ValueError, match="no installed bot"):
        parse_entrants(["chess-master"])


def test_round_robin_plays_every_pair_then_cycles_with_new_seeds() -> None:
    entrants = parse_entrants(["random:4"])
    matches = round_robin(entrants, 2, ["classic"], ["tiny"], [1, 2], 15)
    assert len(matches) == 15
    first_cycle = matches[:12]
    pairs = {frozenset(e.name for e in m.entrants) for m in first_cycle}
    assert len(pairs) == 6  # every pair, on both seeds
    assert {m.seed for m in first_cycle} == {1, 2} and {m.seed for m in matches[12:]} == {3}
    # Who joins first alternates from one game of a pair to the next.
    assert matches[6].entrants == tuple(reversed(matches[0].entrants))
    firsts = [m.entrants[0].name for m in first_cycle]
    assert all(firsts.count(e.name) == 3 for e in entrants)
    assert round_robin(entrants, 2, ["classic"], ["tiny"], [1, 2], 15) == matches


def test_swiss_rounds_avoid_pairs_that_met() -> None:
    entrants = parse_entrants(["random:4"])
    met: set[frozenset[str]] = set()
    seen: list[frozenset[str]] = []
    for number in range(3):
        games = swiss_round(entrants, {}, met, 2, number, number * 2, "classic", None, 1)
        seen.extend(frozenset(e.name for e in g.entrants) for g in games)
    assert len(seen) == len(set(seen)) == 6


async def test_start_full_holds_actions_until_the_game_is_full(
    start_server: StartServer,
) -> None:
    server = await start_server(map="tiny")
    owner = await Peer.connect(bound_port(server))
    assert (await owner.ask("CREATE duel classic map=tiny players=2 start=full"))[0].startswith(
        "GAME duel"
    )
    first = await Peer.connect(bound_port(server))
    await first.ask("JOIN duel")
    # LOOK waits too: what the first player sees never depends on whether the second
    # had joined yet (re-runs of a tournament play the same).
    await first.send("LOOK\nPICKUP\n")
    assert await nothing_received(first)
    second = await Peer.connect(bound_port(server))
    await second.ask("JOIN duel")  # the game is full: the first player's LOOK is answered
    world = server.lobby.games["duel"].world
    assert await first.read_lines(6) == ["LOOKREPLY", *world.look(1)]
    assert (await first.read_line()) in ("FAIL", "SUCCESS, GOLD COINS: 1")
    assert await owner.ask("CREATE x classic start=full") == [
        "ERROR start= takes only full, and with players=<n>"
    ]


FLOOD = """
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"JOIN " + sys.argv[2].encode() + b"\\nHELLO " + sys.argv[3].encode() + b"\\n")
while True:
    s.sendall(b"LOOK\\n" * 1000)
"""
JOIN_THEN = """
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"HELLO x\\n")  # (a 2013 bot: the arena's relay joins it to its match first)
s.recv(4096)
if sys.argv[3] == "crash":
    sys.exit(3)
time.sleep(60)
"""


def test_a_tournament_survives_bots_that_crash_hang_and_flood(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each joins, then crashes, hangs or floods: it loses its games, never the
    tournament (an entrant that never joins is tests/arena/test_bot_writers.py's)."""
    flood = tmp_path / "flood.py"
    flood.write_text(FLOOD)
    join_then = tmp_path / "join_then.py"
    join_then.write_text(JOIN_THEN)
    python = sys.executable
    code = arena.main(
        [
            "random",
            f"crash={python} {join_then} {{port}} {{game}} crash",
            f"hang={python} {join_then} {{port}} {{game}} hang",
            f"flood={python} {flood} {{port}} {{game}} {{name}}",
            "--map",
            "tiny",
            "--players",
            "2",
            "--games",
            "6",
            "--servers",
            "2",
            "--parallel",
            "3",
            "--game-time",
            "20",  # generous: a bot's start on a loaded machine takes seconds
            "--join-time",
            "10",
            "--move-time",
            "3",  # a hanging bot is cut off after 3 s
            "--max-moves",
            "200",
            "--dir",
            str(tmp_path / "arena"),
            "--tournament",
            "t",
            "--json",
        ]
    )
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert "games" in err and "6/6" in err  # the progress bar, at its end
    assert code == 0 and (report["games"], report["recorded"], report["void"]) == (6, 6, 0), (
        err,
        report,
    )
    table = {line["name"]: line for line in report["table"]}
    assert table["random"]["games"] == table["flood"]["games"] == 3
    # (crash against hang: a crash before hang joined ends that game, and hang plays the
    # game's next one alone, under the same name; its record is the match's)
    assert table["crash"]["games"] >= 2 and table["hang"]["games"] == 3
    # The flooder is cut off, or loses when the other player's win leaves it no way to
    # win (the game then ends for it with LOSE: issue 29); it never wins.
    assert set(table["flood"]["outcomes"]) <= {"disconnected", "removed", "lose"}
    assert set(table["crash"]["outcomes"]) == {"disconnected"}
    assert set(table["hang"]["outcomes"]) <= {"disconnected", "lose"}
    store = Store(f"sqlite:///{tmp_path / 'arena' / 'records.db'}")
    assert len(store.games()) >= 6  # (and the one a crash ended early)
    board = {s.name: s.rating for s in store.leaderboard("classic")}
    assert board["random"].mu == pytest.approx(table["random"]["mu"], abs=1e-3)


DETERMINISTIC = [
    "battle",
    "random",
    "explorer",
    "--world",
    "battle",
    "--players",
    "2",
    "--servers",
    "2",
    "--max-moves",
    "40",
    "--turn-timeout",
    "30",
    "--game-time",
    "60",
    "--seeds",
    "3",
    "--tournament",
    "same",
    "--json",
]


def test_a_tournament_run_again_gives_identical_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest
) -> None:
    """Battle has turns and the bots decide from what they see and their seed: the same
    command gives the same games, field by field, however the machine's load varies. The
    second run records into PostgreSQL through its two servers where the fixture can
    start one (else into a second SQLite store)."""
    try:
        second = request.getfixturevalue("postgres_url")
    except pytest.skip.Exception:
        second = f"sqlite:///{tmp_path / 'second.db'}"
    urls = [f"sqlite:///{tmp_path / 'first.db'}", second]
    reports = []
    for run, url in enumerate(urls):
        assert arena.main([*DETERMINISTIC, "--dir", str(tmp_path / str(run)), "--db", url]) == 0
        reports.append(json.loads(capsys.readouterr().out))
    assert reports[0]["recorded"] == 3 and reports[0]["table"] == reports[1]["table"]
    found = compare(Store(urls[0]).games(), Store(urls[1]).games())
    assert found.identical and found.same == 3, found.as_dict()


def test_the_help_names_the_commands_of_a_distributed_tournament(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Before: --help never mentioned submit, worker or status.
    with pytest.raises(SystemExit):
        arena.main(["--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "dod-arena {submit,worker,status} ..." in shown
    for command in ("dod-arena submit", "dod-arena worker", "dod-arena status"):
        assert command in shown
