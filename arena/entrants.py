"""Who plays a tournament: entrants (installed bot kinds or command templates) and seeds."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from bots import KINDS

__all__ = ["SHELL", "Entrant", "fill_template", "parse_entrants", "parse_seeds"]

SHELL: Final = "/bin/sh"
"""What runs an entrant's command: ``/bin/sh -c COMMAND``, so that ``cd DIR && ...``,
``VAR=value program``, pipes and quotes work as they do at a prompt."""
PLACEHOLDERS: Final = re.compile(r"\{(host|port|game|name|seed)\}")
"""The only braces an entrant's command has filled in; every other brace is the shell's."""


def fill_template(template: str, **values: object) -> str:
    """``template`` with ``{host}``, ``{port}``, ``{game}``, ``{name}`` and ``{seed}``
    replaced by ``values``; other braces (``${HOME}``, ``awk '{print}'``) are left alone.
    The values are the arena's own (names are letters, digits, ``_ . -``), never quoted."""
    return PLACEHOLDERS.sub(lambda found: str(values[found.group(1)]), template)


@dataclass(frozen=True, slots=True)
class Entrant:
    """One bot of the tournament: its name (as recorded) and how to start it: an
    installed kind as ``python -m bots.KIND`` with the usual options, a command as
    ``/bin/sh -c COMMAND`` with its placeholders filled (:func:`fill_template`)."""

    name: str
    kind: str | None
    """An installed bot kind, or ``None`` for a command template."""
    template: str | None = None
    index: int = 0

    def command(self, *, host: str, port: int, game: str, seed: int, options: Any) -> list[str]:
        if self.kind is not None:
            command = [
                sys.executable,
                "-m",
                KINDS[self.kind],
                "--host",
                host,
                "--port",
                str(port),
                "--game",
                game,
                "--name",
                self.name,
                "--seed",
                str(seed),
                "--timeout",
                str(options.bot_timeout),
            ]
            if options.max_moves is not None:
                command += ["--max-moves", str(options.max_moves)]
            return command
        assert self.template is not None
        text = fill_template(
            self.template, host=host, port=port, game=game, name=self.name, seed=seed
        )
        return [SHELL, "-c", text]


def parse_entrants(specs: Sequence[str]) -> list[Entrant]:
    """``["random:2", "mine=python x.py {port}"]`` to entrants with unique names."""
    entrants: list[Entrant] = []
    taken: set[str] = set()
    for spec in specs:
        name, equals, rest = spec.partition("=")
        if (equals and " " in rest.strip()) or (equals and rest.strip() not in KINDS):
            if not re.fullmatch(r"[A-Za-z0-9_.-]{1,24}", name):
                raise ValueError(f"{name!r}: an entrant's name is letters, digits, _ . and -")
            if name in taken:
                raise ValueError(f"two entrants are called {name!r}")
            taken.add(name)
            entrants.append(Entrant(name, None, rest.strip(), len(entrants)))
            continue
        kind, _, count_text = (rest if equals else spec).partition(":")
        if kind not in KINDS:
            raise ValueError(
                f"{spec!r} is no installed bot ({', '.join(sorted(KINDS))}) nor NAME=COMMAND"
            )
        try:
            count = int(count_text) if count_text else 1
        except ValueError:
            raise ValueError(f"{spec!r}: the count after ':' must be a number") from None
        if count < 1:
            raise ValueError(f"{spec!r}: the count must be at least 1")
        base = name if equals else kind
        for copy in range(1, count + 1):
            entrant_name = base if count == 1 and base not in taken else f"{base}-{copy}"
            while entrant_name in taken:
                entrant_name += "x"
            taken.add(entrant_name)
            entrants.append(Entrant(entrant_name, kind, None, len(entrants)))
    return entrants


def parse_seeds(text: str) -> list[int]:
    """``"1-5,9"`` to ``[1, 2, 3, 4, 5, 9]``."""
    seeds: list[int] = []
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        try:
            seeds.extend(range(int(first), int(last) + 1) if dash else [int(first)])
        except ValueError:
            raise ValueError(f"{part!r} is not a seed or a range of seeds (1-20)") from None
    if not seeds:
        raise ValueError("no seeds given")
    return seeds
