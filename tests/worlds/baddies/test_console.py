"""The console game: golden sessions, the C reference, input handling, the script."""

from __future__ import annotations

import io
import random
import subprocess
import sys
from pathlib import Path

import pytest

from dungeon_of_doom.clients.baddies_console import KEYS, Reader, play
from dungeon_of_doom.worlds.baddies import Parameters

GOLDEN = Path(__file__).resolve().parent / "golden"
SESSIONS = sorted(path.stem for path in GOLDEN.glob("*.in"))
ENDED_BY_INPUT = "Your move. Where to? ['s' to stay, etc.]: \nHero did not escape...\n"


def run(text: str | bytes, clock: float = 0) -> tuple[int, str]:
    data = text.encode() if isinstance(text, str) else text
    out: list[str] = []
    status = play(Reader(io.BytesIO(data)), out.append, clock=lambda: clock)
    return status, "".join(out)


@pytest.mark.parametrize("session", SESSIONS)
def test_golden_sessions(session: str) -> None:
    status, output = run((GOLDEN / f"{session}.in").read_text())
    assert status == 0
    assert output == (GOLDEN / f"{session}.out").read_text()


@pytest.mark.parametrize("session", SESSIONS)
def test_golden_sessions_are_what_the_reference_prints(reference_game: Path, session: str) -> None:
    golden = (GOLDEN / f"{session}.out").read_text()
    if golden.endswith(ENDED_BY_INPUT + "Game Over.\n"):
        pytest.skip("this session ends with the input, where the original would loop forever")
    text = (GOLDEN / f"{session}.in").read_text()
    result = subprocess.run([str(reference_game)], input=text, capture_output=True, text=True)
    assert result.stdout == golden


def test_random_sessions_match_the_reference(reference_game: Path) -> None:
    rng = random.Random(2024)
    for _ in range(25):
        rows, columns = rng.randint(10, 30), rng.randint(15, 100)
        room = Parameters(rows, columns, 0, 0, 0).free_squares
        abysses = rng.randint(0, min(200, room))
        monsters = rng.randint(0, min(30, room - abysses))
        bats = rng.randint(0, min(10, room - abysses - monsters))
        head = f"{rows}\n{columns}\n{abysses}\n{monsters}\n{bats}\n{rng.randint(0, 2**31 - 1)}\n"
        keys = ""
        while True:
            keys += "".join(rng.choice("qweasdzxc?") for _ in range(40)) + "\n"
            _, ours = run(head + keys)
            if not ours.endswith(ENDED_BY_INPUT + "Game Over.\n"):
                break
        original = subprocess.run(
            [str(reference_game)], input=head + keys, capture_output=True, text=True
        )
        assert ours == original.stdout, head


def test_the_nine_keys() -> None:
    assert KEYS == {
        b"q": (-1, -1),
        b"w": (-1, 0),
        b"e": (-1, 1),
        b"a": (0, -1),
        b"s": (0, 0),
        b"d": (0, 1),
        b"z": (1, -1),
        b"x": (1, 0),
        b"c": (1, 1),
    }


def test_numbers_are_read_as_cin_reads_them() -> None:
    reader = Reader(io.BytesIO(b"  12abc\n\n -7 +3 x9 2147483648\n"))
    assert reader.number() == 12
    assert reader.number() is None  # "abc" is not a number and is dropped
    assert reader.number() == -7
    assert reader.number() == 3
    assert reader.number() is None
    assert reader.number() is None  # too large for an int


def test_moves_are_single_characters() -> None:
    reader = Reader(io.BytesIO(b"wd\n x"))
    assert [reader.character() for _ in range(3)] == [b"w", b"d", b"x"]


def test_end_of_input_during_the_questions_stops() -> None:
    status, output = run("15\n40\n")
    assert status == 1
    assert output.endswith("Enter the number of abyss cells (0-200) on the board: \n")


def test_pieces_that_do_not_fit_are_refused() -> None:
    status, output = run("10\n15\n200\n30\n10\n1\n")
    assert status == 1
    assert output.endswith(
        "Cannot set up this board: 240 pieces (200 abysses, 30 monsters, 10 bats) do not fit "
        "on the 76 free squares of a 10x15 board.\n"
    )


def test_a_negative_seed_uses_the_clock() -> None:
    answers = "15\n40\n50\n6\n2\n"
    assert run(answers + "-1\n", clock=1234.5)[1] == run(answers + "1234\n", clock=0)[1]


def test_the_script_plays_over_standard_streams() -> None:
    text = (GOLDEN / "escape.in").read_bytes()
    result = subprocess.run(
        [sys.executable, "-m", "dungeon_of_doom.clients.baddies_console"],
        input=text,
        capture_output=True,
    )
    assert result.returncode == 0
    assert result.stdout == (GOLDEN / "escape.out").read_bytes()
