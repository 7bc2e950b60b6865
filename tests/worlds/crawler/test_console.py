"""The original console game, byte for byte: whole sessions against golden files."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from clients.crawler_console import Keyboard, map_text, play

from ...limits import process_limit

GOLDEN = Path(__file__).parent / "golden"


def run(session: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = play(io.StringIO((GOLDEN / f"{session}.in").read_text()), out, err)
    return status, out.getvalue(), err.getvalue()


def expected(session: str) -> str:
    return (GOLDEN / f"{session}.out").read_bytes().decode()


@pytest.mark.parametrize(
    ("session", "status"),
    [("death_and_keys", 0), ("quit", 0), ("load_failure", 1), ("end_of_input", 0)],
)
def test_sessions_on_shipped_dungeons(
    session: str, status: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(GOLDEN)  # no level files here: the shipped dungeons are used
    assert run(session)[:2] == (status, expected(session))


def test_the_seed_tutorial_session(compat: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(compat / "crawler-levels")
    status, out, _ = run("compat_tutorial")
    assert (status, out) == (0, expected("compat_tutorial"))
    assert out.endswith(
        "Congratulations, adventurer! You have escaped the dungeon!\n"
        "You escaped with 1 treasure and in 16 total moves.\n\n"
    )


def test_a_level_that_fails_to_load_says_why_on_standard_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(GOLDEN)
    status, out, err = run("load_failure")
    assert status == 1
    assert out.endswith("Level 1\nReturning you back to the real word, adventurer!\n")
    assert err == "nowhere1.txt: no such level file\n"


def test_the_installed_program_exits_with_status_1_on_a_bad_level(tmp_path: Path) -> None:
    (tmp_path / "bad1.txt").write_text("2 2\n0 0\n- ?\n- x")
    done = subprocess.run(
        [str(Path(sys.executable).with_name("dod-crawler"))],
        input="bad 1\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        timeout=process_limit(),
    )
    assert done.returncode == 1
    assert done.stdout.endswith("Level 1\nReturning you back to the real word, adventurer!\n")
    assert done.stderr == "bad1.txt:4:3: unknown tile 'x'; tiles are - $ @ M + ? !\n"


def test_input_is_read_as_cin_reads_it() -> None:
    keyboard = Keyboard(io.StringIO("  caves\n 12wa\n\n s"))
    assert keyboard.word() == "caves"
    assert keyboard.integer() == 12
    assert [keyboard.char(), keyboard.char(), keyboard.char(), keyboard.char()] == [
        "w",
        "a",
        "s",
        None,
    ]
    assert Keyboard(io.StringIO("x")).integer() is None


def test_the_map_border_is_three_dashes_a_column() -> None:
    assert map_text(["o-$", "M+?"]) == "+---------+\n| o     $ |\n| M  +  ? |\n+---------+\n"
