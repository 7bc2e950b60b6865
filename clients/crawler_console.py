"""The original Dungeon Crawler console game, byte for byte (RULES §2 "The original console game").

``dod-crawler`` prints the intro, asks for a dungeon name and a level count,
then plays level after level on standard input and output, exactly as the
original program did. A caller may rely on:

* input read the way the original's ``cin >>`` reads it: the dungeon name is a
  word, the count a whole number, and every command one character with
  whitespace skipped, so ``ssd`` on one line is three commands;
* level files found as ``<name><N>.txt`` from the current folder, falling back
  to the dungeons shipped with the game (``tutorial 5``, ``easy 2``, ``hard 3``);
* exit status 1 when a level fails to load (the reason goes to standard error,
  as ``file:line:column: reason``; standard output is the original's);
* end of input ends the game (a newline, status 0) where the original would
  repeat the last command forever; a count that is not a number plays nothing,
  as in the original.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from dungeon_of_doom.clients.console import run_console_game
from dungeon_of_doom.worlds.crawler import KEYS, State, Status, Turn
from dungeon_of_doom.worlds.crawler import text as say
from dungeon_of_doom.worlds.crawler.dungeon import load_level
from dungeon_of_doom.worlds.crawler.levelfile import OPEN
from dungeon_of_doom.worlds.errors import MapError

QUIT_KEY = "q"


class Keyboard:
    """Reads a text stream the way C++ ``cin >>`` does, one character at a time."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._ahead = ""

    def _next(self) -> str:
        if self._ahead:
            char, self._ahead = self._ahead, ""
            return char
        return self._stream.read(1)

    def char(self) -> str | None:
        """The next character that is not whitespace, or ``None`` at the end of input."""
        char = self._next()
        while char and char.isspace():
            char = self._next()
        return char or None

    def word(self) -> str | None:
        """The next run of characters that are not whitespace."""
        char = self.char()
        if char is None:
            return None
        letters = []
        while char and not char.isspace():
            letters.append(char)
            char = self._next()
        return "".join(letters)

    def integer(self) -> int | None:
        """An optional sign then digits, stopping before the first other character."""
        char = self.char()
        digits = ""
        if char in ("+", "-"):
            digits, char = char, self._next()
        while char and char.isdigit():
            digits += char
            char = self._next()
        self._ahead = char or ""
        return int(digits) if digits.lstrip("+-") else None


def map_text(rows: Sequence[str]) -> str:
    """The original's bordered drawing: three characters a tile, open tiles blank."""
    border = "+" + "-" * (3 * len(rows[0])) + "+\n"
    body = "".join(
        "|" + "".join("   " if tile == OPEN else f" {tile} " for tile in row) + "|\n"
        for row in rows
    )
    return border + body + border


def status_text(turn: Turn, state: State) -> str:
    """What the original prints after a turn the adventurer survived, ending with an empty line."""
    lines = []
    if turn.status is Status.STAY:
        lines += [say.stayed_at(turn.row, turn.col), say.STAYED_LOST]
    else:
        lines.append(say.moved_to(turn.row, turn.col))
    if turn.status is Status.TREASURE:
        lines += [say.FOUND_TREASURE, say.treasure_count(state.treasure)]
    elif turn.status is Status.AMULET:
        lines += [say.AMULET_CRUMBLES, say.GROUND_RUMBLES]
        if turn.grew is False:
            lines.append(say.CANNOT_GROW)
    elif turn.status is Status.LEAVE:
        lines.append(say.THROUGH_DOOR)
    elif turn.status is Status.ESCAPE:
        lines += [say.ESCAPED, say.escaped_with(state.treasure, state.moves)]
    return "".join(line + "\n" for line in lines) + "\n"


def play(stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    """Play one game on the given streams; returns the exit status."""

    def write(data: str) -> None:
        stdout.write(data)
        stdout.flush()

    keyboard = Keyboard(stdin)
    write(say.INTRO + say.ASK_DUNGEON)
    name = keyboard.word()
    count = keyboard.integer() if name is not None else None
    if name is None or count is None:
        write("\n")
        return 0
    treasure = moves = 0
    for number in range(1, count + 1):
        write(say.level(number) + "\n")
        try:
            level = load_level(name, number)
        except MapError as error:
            stderr.write(f"{error}\n")
            write(say.LOAD_FAILED + "\n")
            return 1
        state = State((level,), treasure=treasure, moves=moves)
        write(map_text(state.render()))
        while True:
            write(say.ASK_COMMAND)
            key = keyboard.char()
            if key is None:
                write("\n")
                return 0
            if key == QUIT_KEY:
                write(say.QUIT + "\n")
                return 0
            command = KEYS.get(key)
            if command is None:
                write(say.NOT_UNDERSTOOD + "\n")
                continue
            turn = state.step(command)
            write(map_text(state.render()))
            if turn.died:
                write(say.DIED + "\n")
                return 0
            write(status_text(turn, state))
            if turn.status is Status.ESCAPE:
                return 0
            if turn.status is Status.LEAVE:
                break
        treasure, moves = state.treasure, state.moves
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argparse.ArgumentParser(
        prog="dod-crawler",
        description="Play a Dungeon Crawler dungeon on the console, as the original game did. "
        "Type a dungeon name and its number of levels (e.g. 'tutorial 5'), then "
        "w, a, s, d to move, e to stay, q to quit.",
    ).parse_args(argv)
    return run_console_game(lambda: play(sys.stdin, sys.stdout, sys.stderr))


if __name__ == "__main__":
    sys.exit(main())
