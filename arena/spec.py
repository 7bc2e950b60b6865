"""A tournament as the arena's tables keep it (:mod:`records.tournaments`): its entrants,
schedule, limits and fairness contract, from the options it was run or submitted with."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, Final

from records.contract import Contract

from .entrants import Entrant, parse_seeds

__all__ = ["LIMITS", "LOG_BYTES", "contract_of", "limits_of", "tournament_spec"]

LOG_BYTES: Final = 256 * 1024
"""Bytes of one bot's output kept per game (``--log-bytes``; :mod:`arena.botlog`)."""

LIMITS: Final = ("game_time", "join_time", "turn_timeout", "max_moves", "bot_timeout", "log_bytes")
"""The options a tournament's matches are played with, kept with it."""


def contract_of(options: argparse.Namespace) -> Contract:
    """The fairness contract the options ask for (:class:`records.contract.Contract`)."""
    return Contract(
        sight=options.sight,
        places=options.places,
        move_time=options.turn_timeout,
        max_missed_turns=options.max_missed_turns,
    )


def tournament_spec(
    options: argparse.Namespace, entrants: Sequence[Entrant], worlds: list[str], maps: list[Any]
) -> dict[str, Any]:
    """A tournament as the arena's tables keep it: entrants as given (commands too: they
    are never shown), schedule, limits and contract."""
    return {
        "rounds": options.rounds,
        "entrants": list(options.entrants),
        "names": [e.name for e in entrants],
        "format": options.format,
        "players": options.players,
        "worlds": worlds,
        "maps": maps,
        "seeds": parse_seeds(options.seeds),
        "games": options.games,
        **{limit: getattr(options, limit) for limit in LIMITS},
        **contract_of(options).as_spec(),
    }


def limits_of(spec: dict[str, Any]) -> argparse.Namespace:
    """The limits a stored tournament's matches are played with (a tournament stored
    before a limit was kept has its default)."""
    defaults = {"log_bytes": LOG_BYTES}
    return argparse.Namespace(**{limit: spec.get(limit, defaults.get(limit)) for limit in LIMITS})
