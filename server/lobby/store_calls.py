"""What the ladder asks of the records' store, each a function that
:meth:`RecordWriter.call <records.writer.RecordWriter.call>` runs in the store's thread.

They use the open store they are given and import nothing of it on the event loop: the
store's module (SQLAlchemy) loads with the store, in the writer's thread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from records.bests import MapBests
    from records.store import Standing, Store


def claimed_names(store: Store) -> set[str]:
    return store.claimed_names()


def recorded_worlds(store: Store) -> list[str]:
    return store.worlds()


def leaderboard(store: Store, world: str, lines: int) -> list[Standing]:
    return store.leaderboard(world, lines)


def best_results(store: Store, world: str, per_map: int) -> list[MapBests]:
    from records.bests import bests

    return bests(store, world, per_map)


def claim(store: Store, name: str, token_hash: str) -> bool:
    return store.claim(name, token_hash)


def lookalike(store: Store, name: str) -> str | None:
    return store.lookalike(name)


def history(store: Store, name: str, world: str | None, limit: int) -> list[dict[str, Any]]:
    return store.history(name, world, limit)


def token_hash(store: Store, name: str) -> str | None:
    return store.token_hash(name)


def logged_in(store: Store, name: str, renewed: str | None) -> None:
    store.logged_in(name, renewed)
