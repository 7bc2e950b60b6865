"""The original "Outlast the Baddies & Avoid the Abyss" console game (RULES §3).

``dod-baddies`` asks for rows (10-30), columns (15-100), abysses (0-200),
monsters (0-30, a third of them super monsters) and bats (0-10), asking again
while an answer is out of range, then for a seed (negative: the clock). It draws
the board the original way (a border of ``-`` and ``|``), prompts for each move
(``q w e / a s d / z x c``, anything else stays), reports every rule it applies,
shows the board after each round, and ends with ``Hero Escaped!`` or
``Hero did not escape...`` and ``Game Over.``.

Given the same answers and moves it writes the same bytes as the original
program: input is read as C++'s ``cin >>`` reads it (whitespace-separated
numbers; one non-blank character per move, so ``ww`` is two moves), and a newline
is written after every answer and move. Where the original would loop forever we
stop instead, and say so:

* an answer that is not a number is skipped and the question asked again;
* pieces that cannot fit on the board are refused with a message (exit status 1);
* end of input during the questions ends the program (exit status 1); during
  play it ends the game as a loss, with the usual final lines (exit status 0).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from typing import BinaryIO, Final

from dungeon_of_doom.clients.console import run_console_game
from dungeon_of_doom.worlds.baddies.board import Board
from dungeon_of_doom.worlds.baddies.generate import ParameterError, Parameters, generate
from dungeon_of_doom.worlds.baddies.rules import (
    STAY,
    BaddieFell,
    Barrier,
    Caught,
    Escaped,
    Fact,
    HeroFell,
    OffBoard,
    Step,
    play_round,
)

HERO: Final = 0
KEYS: Final[dict[bytes, Step]] = {
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
MOVE_PROMPT: Final = "Your move. Where to? ['s' to stay, etc.]: "
SEED_PROMPT: Final = "Enter a seed for the random number generator (-1 to use system time): "
QUESTIONS: Final = (
    ("Enter the number of rows (10-30) for the board: ", 10, 30),
    ("Enter the number of columns (15-100) for the board: ", 15, 100),
    ("Enter the number of abyss cells (0-200) on the board: ", 0, 200),
    ("Enter the number of monsters (0-30) on the board, ~1/3 will be super monsters: ", 0, 30),
    ("Enter the number of bats (0-10) on the board: ", 0, 10),
)
_WHITESPACE: Final = b" \t\n\v\f\r"
_NUMBER: Final = re.compile(rb"[+-]?\d+")
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


class EndOfInput(Exception):
    """The input ended before the program had what it asked for."""


class Reader:
    """Reads answers and moves the way ``cin >>`` does, a line at a time."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._buffer = b""

    def _skip_blanks(self) -> None:
        while True:
            self._buffer = self._buffer.lstrip(_WHITESPACE)
            if self._buffer:
                return
            line = self._stream.readline()
            if not line:
                raise EndOfInput
            self._buffer = line

    def character(self) -> bytes:
        """The next non-blank byte (``cin >> char``)."""
        self._skip_blanks()
        byte, self._buffer = self._buffer[:1], self._buffer[1:]
        return byte

    def number(self) -> int | None:
        """The next number (``cin >> int``), or ``None`` for a word that is not one.

        A number stops at its first non-digit, which stays for the next read, as in
        C++. A word that does not start with a number is dropped whole.
        """
        self._skip_blanks()
        match = _NUMBER.match(self._buffer)
        if match is None:
            end = len(self._buffer)
            for index, byte in enumerate(self._buffer):
                if byte in _WHITESPACE:
                    end = index
                    break
            self._buffer = self._buffer[end:]
            return None
        self._buffer = self._buffer[match.end() :]
        value = int(match.group())
        return value if _INT_MIN <= value <= _INT_MAX else None


def _report(fact: Fact) -> list[str]:
    """The lines the original prints when it applies a rule."""
    match fact:
        case OffBoard(hero, _, axis):
            who = "Baddie" if hero is None else "Hero"
            return [
                f"{who} trying to move out-of-bounds with an invalid {axis}",
                f"Changing {axis} for {who} position to stay in-bounds",
            ]
        case Barrier(hero, _):
            who = "Baddie" if hero is None else "Hero"
            return [
                f"{who} trying to move into a barrier",
                f"Changing {who} position to stay off barrier",
            ]
        case Escaped():
            return ["Hero has reached the exit!", "Hero has escaped!"]
        case HeroFell():
            return [
                "Uh Oh! Hero has moved into a Baddie or the Abyss...",
                "Be more careful next time...",
            ]
        case BaddieFell():
            return ["Yipee! A Baddie has moved into the Abyss...", "One less Baddie on the board!"]
        case Caught():
            return ["Uh Oh! A Baddie has caught the Hero...", "Better luck next time..."]
    return []


def draw(board: Board) -> list[str]:
    """The board as the original shows it: ``-`` above and below, ``|`` at the sides."""
    border = "-" * (board.columns + 2)
    return [border, *(f"|{row}|" for row in board.drawing()), border]


def _ask(reader: Reader, write: Callable[[str], None], prompt: str) -> int | None:
    write(prompt)
    try:
        return reader.number()
    finally:
        write("\n")


def play(
    reader: Reader, write: Callable[[str], None], clock: Callable[[], float] = time.time
) -> int:
    """The whole program over ``reader`` and ``write``; returns the exit status."""
    try:
        answers = []
        for prompt, low, high in QUESTIONS:
            value = None
            while value is None or not low <= value <= high:
                value = _ask(reader, write, prompt)
            answers.append(value)
        parameters = Parameters(*answers)
        parameters.check()
        seed = None
        while seed is None:
            seed = _ask(reader, write, SEED_PROMPT)
    except EndOfInput:
        return 1
    except ParameterError as error:
        write(f"Cannot set up this board: {error}.\n")
        return 1
    # srand takes an unsigned int; time(0) fits while the clock is below 2**32.
    board = generate(parameters, int(clock()) if seed < 0 else seed)
    board.heroes[HERO] = board.start
    write(_lines(draw(board)))
    escaped = False
    while HERO in board.heroes:
        write(MOVE_PROMPT)
        try:
            key = reader.character()
        except EndOfInput:
            write("\n")
            break
        write("\n")
        facts = play_round(board, {HERO: KEYS.get(key, STAY)})
        escaped = any(type(fact) is Escaped for fact in facts)
        write(_lines([line for fact in facts for line in _report(fact)] + draw(board)))
    write("Hero Escaped!\n" if escaped else "Hero did not escape...\n")
    write("Game Over.\n")
    return 0


def _lines(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def main(argv: list[str] | None = None) -> int:
    """``dod-baddies``: play on the terminal (standard input and output); ``--help``
    describes it and plays nothing."""
    argparse.ArgumentParser(
        prog="dod-baddies",
        description="Play the original 'Outlast the Baddies & Avoid the Abyss' on the "
        "console: it asks for the board's rows, columns, abysses, monsters, bats and a "
        "seed, then for each move (q w e / a s d / z x c; anything else stays).",
    ).parse_args(argv)
    out = sys.stdout

    def write(text: str) -> None:
        out.write(text)
        out.flush()

    return run_console_game(lambda: play(Reader(sys.stdin.buffer), write))


if __name__ == "__main__":
    sys.exit(main())
