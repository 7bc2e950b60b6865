"""The limits on ``CREATE`` alone (:func:`server.lobby.creation.refusal`): a table of what the
server holds, what is asked, and the first limit it breaks."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from dungeon_of_doom.protocol.commands import Create
from dungeon_of_doom.server.lobby.creation import Census, refusal
from dungeon_of_doom.server.setup.config import ServerConfig

CONFIG = ServerConfig(
    map="tiny",
    max_games=4,
    max_games_per_client=2,
    max_players_per_game=6,
    min_turn_timeout=1.0,
    max_turn_timeout=30.0,
    max_world_builds=3,
)
QUIET = Census(
    draining=False,
    name_taken=False,
    games=1,
    share=None,
    owned=0,
    builds_busy=False,
    running=True,
)
SHARE = "your address holds 3 games already (max_games_per_address); leave one first"


def census(**changes: Any) -> Census:
    """The quiet server, but for ``changes``."""
    return dataclasses.replace(QUIET, **changes)


@pytest.mark.parametrize(
    ("held", "asked", "refused"),
    [
        (QUIET, Create("g", "classic"), None),
        (QUIET, Create("g", "classic", players=6, turn=1.0), None),
        (QUIET, Create("g", "classic", turn=30.0), None),
        (census(games=3, owned=1), Create("g", "classic"), None),
        (
            census(draining=True, name_taken=True),
            Create("g", "classic"),
            "this server is stopping and takes no new games; create it on another",
        ),
        (
            census(name_taken=True, games=4),
            Create("g", "classic"),
            "there is already a game called g",
        ),
        (
            census(games=4, share=SHARE),
            Create("g", "classic"),
            "the server holds 4 games already (max_games); join one",
        ),
        (census(share=SHARE, owned=2), Create("g", "classic"), SHARE),
        (
            census(owned=2),
            Create("g", "classic", players=7),
            "you have created 2 games that are still open; at most 2 (max_games_per_client)",
        ),
        (
            QUIET,
            Create("g", "classic", players=7, turn=0.5),
            "players= may be at most 6 here (max_players_per_game)",
        ),
        (
            census(builds_busy=True),
            Create("g", "classic", turn=0.5),
            "turn= takes from 1 to 30 seconds here (min_turn_timeout, max_turn_timeout)",
        ),
        (
            QUIET,
            Create("g", "classic", turn=30.5),
            "turn= takes from 1 to 30 seconds here (min_turn_timeout, max_turn_timeout)",
        ),
        (
            census(builds_busy=True, running=False),
            Create("g", "classic"),
            "the server is building 3 worlds already (max_world_builds); try again in a moment",
        ),
        (census(running=False), Create("g", "classic"), "the server is not running games"),
    ],
)
def test_a_create_is_refused_by_the_first_limit_it_breaks(
    held: Census, asked: Create, refused: str | None
) -> None:
    assert refusal(asked, CONFIG, held) == refused
