"""What a bot writer meets in ``dod-arena`` (issue 40): an entrant that never joins named
with its exit status and last lines, kept out of the table, the run failing; commands
run by a shell in the arena's folder; each bot's output kept, bounded, beside its game's
replay; the tournament's contract stated and held (``MAP`` refused, a silent bot cut
off); entrants recorded as bots."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import trio
import trio.testing

from arena import cli as arena
from arena.botlog import BotLog
from arena.relay import Seat, relay, rewrite
from records.store import Store

BOT = """
import os, socket, sys, time
port, game, name = sys.argv[1:4]
env = os.environ.get
print("greeting", env("GREETING"), "cwd", os.getcwd(), "secret", env("DOD_SECRET"))
s = socket.create_connection(("127.0.0.1", int(port)))
f = s.makefile("rw")
f.write(f"JOIN {game}\\nHELLO whoever\\nMAP\\nMOVE N\\nLOOK\\n")
f.flush()
for _ in range(10):  # GAME, GOLD, the MAP refused, the MOVE's answer, LOOKREPLY and 5 rows
    print(f.readline().rstrip())
sys.stdout.flush()
time.sleep(float(os.environ.get("NAP", "0")))
f.write("QUIT\\n")
f.flush()
print(f.read().strip())
"""


def test_an_entrant_that_never_joins_is_named_left_out_of_the_table_and_fails_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: exit 0, "3 of 3 games recorded", and the table ranked the broken entrant."""
    code = arena.main(
        [
            "random",
            "typo=nod bot.js --port {port}",
            'crashy=echo starting up; echo "no config file" >&2; exit 3',
            "hang=sleep 60",
            "--map",
            "tiny",
            "--join-time",
            "3",
            "--max-moves",
            "20",
            "--dir",
            str(tmp_path / "arena"),
            "--tournament",
            "broken",
            "--servers",
            "1",
            "--parallel",
            "3",
            "--json",
        ]
    )
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert code == 1
    assert [line["name"] for line in report["table"]] == ["random"]
    assert report["recorded"] == 0 and report["void"] == 6
    failures = {f["name"]: f for f in report["did_not_start"]}
    assert set(failures) == {"typo", "crashy", "hang"}
    assert failures["typo"]["status"] == 127
    assert failures["typo"]["last_lines"][-1].endswith("nod: not found")
    assert "the shell found no such command" in failures["typo"]["why"]
    assert failures["crashy"]["status"] == 3
    assert failures["crashy"]["last_lines"] == ["starting up", "no config file"]
    assert failures["hang"]["why"].startswith("did not join within 3 s")
    assert "nod: not found" in Path(failures["typo"]["log"]).read_text()
    assert "crashy did not start in broken-" in err and "no config file" in err
    assert "6 games void" in err


def test_a_command_runs_in_a_shell_its_output_kept_beside_its_replay_under_the_contract(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cd DIR && VAR=value program | cat`` works; the bot runs in that folder without the
    arena's ``DOD_*`` variables; what it printed is kept beside its game's replay; the
    contract (LOOK only, a second per move) is printed and held: its ``MAP`` is refused,
    and a bot that naps past its time is cut off, saying so in its log; both are recorded
    as bots though neither sent ``EXTEND bot``."""
    folder = tmp_path / "mybot"
    folder.mkdir()
    (folder / "bot.py").write_text(BOT)
    monkeypatch.setenv("DOD_SECRET", "hunter2")
    python = sys.executable
    command = f"cd {folder} && GREETING=hi {python} bot.py {{port}} {{game}} {{name}}"
    slow = f"cd {folder} && NAP=5 {python} bot.py {{port}} {{game}} {{name}}"
    code = arena.main(
        [
            f"mine={command} | cat",
            f"slow={slow}",
            "--players",
            "1",
            "--map",
            "tiny",
            "--sight",
            "look",
            "--move-time",
            "1",
            "--dir",
            str(tmp_path / "arena"),
            "--tournament",
            "shell",
            "--servers",
            "1",
            "--json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report
    assert report["recorded"] == 2 and report["did_not_start"] == []
    assert any("LOOK only" in line for line in report["contract"])
    logs = {name: Path(path) for game in report["logs"].values() for name, path in game.items()}
    replays = tmp_path / "arena" / "replays"
    assert {path.parent for path in logs.values()} == {replays}
    for name, path in logs.items():
        (replay,) = replays.glob(f"{path.name.removesuffix(f'.{name}.log')}.jsonl")
        assert json.loads(replay.read_text().splitlines()[0])["game"].startswith("shell-")
    mine = logs["mine"].read_text().splitlines()
    assert mine[0] == f"greeting hi cwd {folder} secret None"
    # The refusal comes in its place among the server's answers.
    assert mine[1].startswith("GAME shell-") and mine[2] == "GOLD 1"
    assert mine[3] == "ERROR MAP is not allowed here: this tournament's bots see with LOOK only"
    assert mine[4] in ("SUCCESS", "FAIL") and mine[5] == "LOOKREPLY"
    assert "[dod-arena: cut off: sent nothing within 1 s" in logs["slow"].read_text()
    games = Store(f"sqlite:///{tmp_path / 'arena' / 'records.db'}").games()
    players = {p["name"]: p for row in games for p in row.players}
    assert {name: p["kind"] for name, p in players.items()} == {"mine": "bot", "slow": "bot"}
    assert players["mine"]["outcome"] == "quit"
    assert players["slow"]["outcome"] == "disconnected"


def test_a_bots_log_keeps_its_first_and_last_halves_within_its_bound(tmp_path: Path) -> None:
    log = BotLog(tmp_path / "g" / "bot.log", limit=100)
    for n in range(100):
        log.write(f"line {n:03d}\n".encode())  # 9 bytes a line, 900 in all
    log.close()
    text = (tmp_path / "g" / "bot.log").read_text()
    assert text.startswith("line 000\nline 001\n")
    assert text.endswith("line 098\nline 099\n")
    assert "[dod-arena: 800 bytes of this bot's output left out here" in text
    assert len(text.encode()) < 100 + 200  # the halves, and the line saying what is left out
    assert log.last_lines(2) == ["line 098", "line 099"]


def test_the_relay_refuses_what_the_contract_forbids() -> None:
    forbidden = {"MAP": "is not allowed here"}
    assert rewrite("map", "a", "g", forbidden) == (None, "ERROR MAP is not allowed here")
    assert rewrite("LOOK", "a", "g", forbidden) == ("LOOK", None)
    assert rewrite("MAP", "a", "g") == ("MAP", None)


async def test_the_relay_keeps_answers_in_order_and_times_a_silent_bot(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The bot's lines reach the server after ``EXTEND bot`` and, as this bot begins
    with ``HELLO`` (a 2013 bot), ``JOIN <its match>`` (their answers kept from the bot),
    a refused line as a placeholder whose ``ERROR`` the refusal replaces in order;
    a bot silent past its time per move after the server's last line is cut off, and one
    waiting for an answer is not."""
    bot, bot_end = trio.testing.memory_stream_pair()
    server_end, server = trio.testing.memory_stream_pair()
    notes: list[str] = []
    seat = Seat("ada", "g-1", {"MAP": "is not allowed here"}, 2.0, note=notes.append, armed=True)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(relay, bot_end, server_end, seat)
        await bot.send_all(b"HELLO x\nMAP\nLOOK\n")
        sent = b""
        while sent.count(b"\n") < 5:
            sent += await server.receive_some()
        assert sent == b"EXTEND bot\nJOIN g-1\nHELLO ada\nDOD-ARENA-REFUSED-1\nLOOK\n"
        await trio.sleep(10)  # waiting for answers: no clock runs
        assert seat.cut_off is None
        await server.send_all(
            b"EXTENDED bot\nGAME g-1 world=classic\nGOLD 2\nERROR unknown command "
        )
        await server.send_all(b'"DOD-ARENA-REFUSED-1"; send HELP\nLOOKREPLY\n')
        got = b""
        while not got.endswith(b"LOOKREPLY\n"):
            got += await bot.receive_some()
        assert got == b"GOLD 2\nERROR MAP is not allowed here\nLOOKREPLY\n"
        start = trio.current_time()
        assert await bot.receive_some() == b""  # cut off
        assert trio.current_time() - start == pytest.approx(2.0, abs=0.1)
    assert seat.cut_off is not None and notes == [seat.cut_off]


async def test_the_time_per_move_runs_only_once_the_match_is_full(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Before every bot has joined, a command may wait for the game to fill (``start=full``):
    a bot is timed only once the arena arms its seat, from then on."""
    bot, bot_end = trio.testing.memory_stream_pair()
    server_end, server = trio.testing.memory_stream_pair()
    seat = Seat("ada", "g-1", move_time=2.0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(relay, bot_end, server_end, seat)
        await bot.send_all(b"JOIN x\nHELLO x\n")
        sent = b""
        while sent.count(b"\n") < 3:
            sent += await server.receive_some()
        assert sent == b"EXTEND bot\nJOIN g-1\nHELLO ada\n"
        await server.send_all(b"EXTENDED bot\nGAME g-1 world=classic\nGOLD 1\n")
        got = b""
        while not got.endswith(b"GOLD 1\n"):
            got += await bot.receive_some()
        assert got == b"GAME g-1 world=classic\nGOLD 1\n"  # (its own JOIN's answer: not kept)
        await trio.sleep(30)  # the others are still starting: no clock runs
        assert seat.cut_off is None
        start = trio.current_time()
        seat.arm()
        assert await bot.receive_some() == b""  # cut off
        assert trio.current_time() - start == pytest.approx(2.0, abs=0.1)
