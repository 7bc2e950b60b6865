"""The store: where finished games, ratings and claimed names are kept.

:class:`Store` is blocking (SQLAlchemy Core): the server calls it only from worker
threads (:mod:`records.writer`); the command-line tools call it directly.

What a caller may rely on:

* ``Store(url)`` opens SQLite (``sqlite:///path``, the folder is made) or PostgreSQL
  (``postgresql://...``, driven by psycopg 3); :meth:`Store.migrate` brings the schema
  to the newest Alembic revision, and is safe to run from several servers at once.
* :meth:`Store.record` writes each game in one transaction, with its players and the
  ratings it moves. It is idempotent: a game whose id is stored already is skipped,
  so a retry after a lost answer never counts a game twice. Rating updates of one
  world are serialised (an advisory lock on PostgreSQL, SQLite's single writer), so
  servers writing at once lose no update.
* Reads: :meth:`leaderboard`, :meth:`history`, :meth:`game`, :meth:`games`,
  :meth:`records_named`.
"""

from __future__ import annotations

import sqlite3
import time
import zlib
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from importlib.resources import files
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine, make_url

from .model import GameRecord, PlayerResult, now
from .names import lookalike_keys
from .ranking import Rating, rate_game
from .schema import games, names, ordinal, players, ratings
from .urls import normalise_url, safe_url, sqlite_file

__all__ = [
    "GameRow",
    "Standing",
    "Store",
    "StoreError",
    "normalise_url",
    "safe_url",
    "sqlite_file",
]


class StoreError(Exception):
    """The store cannot be used as asked (a bad URL, an unknown game)."""


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of a leaderboard."""

    rank: int
    world: str
    name: str
    rating: Rating

    def as_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "world": self.world,
            "name": self.name,
            "rating": round(self.rating.ordinal, 3),
            "mu": round(self.rating.mu, 3),
            "sigma": round(self.rating.sigma, 3),
            "games": self.rating.games,
            "wins": self.rating.wins,
        }


@dataclass(frozen=True, slots=True)
class GameRow:
    """A stored game with its players, as the readers give it."""

    game: dict[str, Any]
    players: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        data = {k: _plain(v) for k, v in self.game.items()}
        data["players"] = [{k: _plain(v) for k, v in p.items()} for p in self.players]
        return data


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


class Store:
    """One database of records; see the module docstring. Not thread-safe per call:
    use it from one thread at a time (the writer's worker thread)."""

    def __init__(
        self,
        url: str,
        *,
        connect_timeout: float = 5.0,
        busy_timeout: float = 30.0,
        application: str = "dod",
    ) -> None:
        """``busy_timeout``: seconds one statement waits for a lock another connection
        or program holds before it fails (SQLite's busy timeout, PostgreSQL's
        ``lock_timeout``): a server gives a short one, and retries. ``application``:
        what PostgreSQL shows as its connections' ``application_name``
        (``pg_stat_activity``), so an operator can tell whose they are."""
        self.url = normalise_url(url)
        try:
            parsed = make_url(self.url)
        except Exception as error:
            raise StoreError(f"not a database URL: {safe_url(url)} ({error})") from None
        backend = parsed.get_backend_name()
        if backend not in ("sqlite", "postgresql"):
            raise StoreError(f"the store is SQLite or PostgreSQL, not {backend}")
        self.backend = backend
        if backend == "sqlite":
            database = parsed.database
            if database and database != ":memory:" and not database.startswith("file:"):
                Path(database).parent.mkdir(parents=True, exist_ok=True)
            self.engine = sa.create_engine(
                self.url, connect_args={"timeout": busy_timeout}, poolclass=sa.pool.NullPool
            )
            _sqlite_immediate_transactions(self.engine, busy_timeout)
        else:
            self.engine = sa.create_engine(
                self.url,
                connect_args={
                    "connect_timeout": max(1, int(connect_timeout)),
                    "options": f"-c lock_timeout={max(1, round(busy_timeout * 1000))}",
                    "application_name": application,
                },
                pool_pre_ping=True,
                pool_size=2,
            )
        self.reader = self.engine.execution_options(**{READS_ONLY: True})
        """The engine for reads: on SQLite their transactions take no write lock, so they
        go on while another connection or program writes."""

    def close(self) -> None:
        self.engine.dispose()

    # -- the schema ----------------------------------------------------------------

    def migrate(self) -> None:
        """Bring the schema to the newest revision (a no-op when it is there)."""
        config = Config()
        config.set_main_option("script_location", str(files("records") / "migrations"))
        with self.engine.begin() as connection:
            if self.backend == "postgresql":
                connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK})
            config.attributes["connection"] = connection
            command.upgrade(config, "head")

    def revision(self) -> str | None:
        with self.reader.connect() as connection:
            try:
                row = connection.execute(sa.text("SELECT version_num FROM alembic_version"))
            except sa.exc.DBAPIError:
                return None
            return row.scalar()

    # -- writing -------------------------------------------------------------------

    def record(self, records: Iterable[GameRecord]) -> int:
        """Store each game not stored yet, with the ratings it moves; how many were new."""
        written = 0
        for record in records:
            with self.engine.begin() as connection:
                written += self._record_one(connection, record)
        return written

    def _record_one(self, connection: Connection, record: GameRecord) -> int:
        if self.backend == "postgresql":
            connection.execute(
                sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _world_lock(record.world)}
            )
        inserted = connection.execute(
            self._insert(games)
            .values(
                id=record.id,
                game=record.game,
                world=record.world,
                map=record.map,
                seed=record.seed,
                dialect=record.dialect,
                started_at=record.started,
                ended_at=record.ended,
                rounds=record.rounds,
                end_reason=record.end,
                replay=record.replay,
                server=record.server,
                rated=record.rated,
                recorded_at=now(),
            )
            .on_conflict_do_nothing(index_elements=["id"])
            .returning(games.c.id)
        ).first()
        if inserted is None:
            return 0  # written before: a retry whose first answer was lost
        named = [p.name for p in record.players if p.name is not None]
        before = self._ratings(connection, record.world, named) if record.rated else {}
        after = rate_game(record, before)
        connection.execute(
            players.insert(),
            [
                {
                    "game_id": record.id,
                    "player": p.player,
                    "name": p.name,
                    "kind": p.kind,
                    "claimed": p.claimed,
                    "outcome": p.outcome,
                    "gold": p.gold,
                    "moves": p.moves,
                    "place": p.place,
                    "mu_before": before.get(p.name, Rating()).mu if p.name in after else None,
                    "sigma_before": before.get(p.name, Rating()).sigma if p.name in after else None,
                    "mu_after": after[p.name].mu if p.name in after else None,
                    "sigma_after": after[p.name].sigma if p.name in after else None,
                }
                for p in record.players
            ],
        )
        for name, rating in after.items():
            values = {
                "world": record.world,
                "name": name,
                "mu": rating.mu,
                "sigma": rating.sigma,
                "games": rating.games,
                "wins": rating.wins,
                "updated_at": record.ended,
            }
            statement = self._insert(ratings).values(**values)
            connection.execute(
                statement.on_conflict_do_update(
                    index_elements=["world", "name"],
                    set_={k: statement.excluded[k] for k in values if k not in ("world", "name")},
                )
            )
        return 1

    def _insert(self, table: sa.Table) -> postgresql.Insert | sqlite.Insert:
        """An ``INSERT`` in this backend's dialect, which has ``ON CONFLICT`` clauses."""
        if self.backend == "postgresql":
            return postgresql.insert(table)
        return sqlite.insert(table)

    def _ratings(self, connection: Connection, world: str, who: Sequence[str]) -> dict[str, Rating]:
        if not who:
            return {}
        rows = connection.execute(
            sa.select(ratings).where(ratings.c.world == world, ratings.c.name.in_(who))
        )
        return {
            row.name: Rating(mu=row.mu, sigma=row.sigma, games=row.games, wins=row.wins)
            for row in rows
        }

    def rerate(self, world: str, order: Sequence[str] | None = None) -> int:
        """Compute ``world``'s ratings afresh from its rated games, in ``order`` (game ids;
        by default the order they ended). Ratings depend on the order games are rated
        in; a tournament that ran games in parallel rerates in its schedule's order so
        that the same games give the same table however they were interleaved."""
        with self.engine.begin() as connection:
            if self.backend == "postgresql":
                connection.execute(
                    sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _world_lock(world)}
                )
            rows = connection.execute(
                sa.select(games.c.id, games.c.ended_at)
                .where(games.c.world == world, games.c.rated)
                .order_by(games.c.ended_at, games.c.id)
            ).all()
            ids = [row.id for row in rows]
            if order is not None:
                position = {game_id: index for index, game_id in enumerate(order)}
                ids.sort(key=lambda game_id: position.get(game_id, len(position)))
            table: dict[str, Rating] = {}
            for game_id in ids:
                record = self._load_record(connection, game_id)
                before = {p.name: table.get(p.name, Rating()) for p in record.players if p.name}
                after = rate_game(record, before)
                for p in record.players:
                    if p.name in after:
                        connection.execute(
                            players.update()
                            .where(players.c.game_id == game_id, players.c.player == p.player)
                            .values(
                                mu_before=before[p.name].mu,
                                sigma_before=before[p.name].sigma,
                                mu_after=after[p.name].mu,
                                sigma_after=after[p.name].sigma,
                            )
                        )
                table.update(after)
            connection.execute(ratings.delete().where(ratings.c.world == world))
            stamp = now()
            if table:
                connection.execute(
                    ratings.insert(),
                    [
                        {
                            "world": world,
                            "name": name,
                            "mu": r.mu,
                            "sigma": r.sigma,
                            "games": r.games,
                            "wins": r.wins,
                            "updated_at": stamp,
                        }
                        for name, r in table.items()
                    ],
                )
            return len(ids)

    def _load_record(self, connection: Connection, game_id: str) -> GameRecord:
        game = connection.execute(sa.select(games).where(games.c.id == game_id)).one()
        rows = connection.execute(
            sa.select(players).where(players.c.game_id == game_id).order_by(players.c.player)
        ).all()
        return _record_of(game, rows)

    def records_named(self, names: Collection[str]) -> list[GameRecord]:
        """The records of the games called one of ``names`` (a tournament's), oldest first."""
        wanted = sorted(set(names))
        found: list[GameRecord] = []
        with self.reader.connect() as connection:
            for start in range(0, len(wanted), 500):  # (a statement's bound values are few)
                chunk = wanted[start : start + 500]
                rows = connection.execute(sa.select(games).where(games.c.game.in_(chunk))).all()
                ids = [row.id for row in rows]
                by_game: dict[str, list[Any]] = {}
                for player in connection.execute(
                    sa.select(players)
                    .where(players.c.game_id.in_(ids))
                    .order_by(players.c.game_id, players.c.player)
                ):
                    by_game.setdefault(player.game_id, []).append(player)
                found += [_record_of(row, by_game.get(row.id, [])) for row in rows]
        return sorted(found, key=lambda record: (record.ended, record.id))

    def replay_results(self, paths: Collection[str]) -> dict[str, dict[str, Any]]:
        """The games whose replay file is one of ``paths`` (as the server wrote them), by
        path: rounds, why the game ended, and its players by place (name, outcome,
        place, gold, moves). A path whose game was never recorded is missing."""
        wanted = sorted(set(paths))
        found: dict[str, dict[str, Any]] = {}
        with self.reader.connect() as connection:
            for start in range(0, len(wanted), 500):
                rows = connection.execute(
                    sa.select(games.c.id, games.c.replay, games.c.rounds, games.c.end_reason).where(
                        games.c.replay.in_(wanted[start : start + 500])
                    )
                ).all()
                by_id = {}
                for row in rows:
                    by_id[row.id] = found[row.replay] = {
                        "rounds": row.rounds,
                        "end": row.end_reason,
                        "players": [],
                    }
                for player in connection.execute(
                    sa.select(players)
                    .where(players.c.game_id.in_(list(by_id)))
                    .order_by(players.c.game_id, players.c.place, players.c.player)
                ):
                    by_id[player.game_id]["players"].append(
                        {
                            "name": player.name,
                            "outcome": player.outcome,
                            "place": player.place,
                            "gold": player.gold,
                            "moves": player.moves,
                        }
                    )
        return found

    def set_places(self, game_id: str, places: Mapping[int, int]) -> None:
        """Store new places for a game's players (by player number): a tournament whose
        contract places winners by moves (:class:`records.contract.Contract`) places them
        so before it rerates its world."""
        with self.engine.begin() as connection:
            for player, place in places.items():
                connection.execute(
                    players.update()
                    .where(players.c.game_id == game_id, players.c.player == player)
                    .values(place=place)
                )

    # -- claimed names ---------------------------------------------------------------

    def claim(self, name: str, token_hash: str) -> bool:
        """Claim ``name`` with the hash of its token; False if it, or a name that looks
        like it (:func:`records.names.lookalike_keys`), is claimed already."""
        keys = lookalike_keys(name)
        with self.engine.begin() as connection:
            if self._lookalike(connection, keys) is not None:
                return False
            result = connection.execute(
                self._insert(names)
                .values(
                    name=name,
                    token_hash=token_hash,
                    created_at=now(),
                    skeleton=keys[0],
                    cased_skeleton=keys[1],
                )
                .on_conflict_do_nothing()  # the name, or its skeleton (a race with a lookalike)
                .returning(names.c.name)
            ).first()
            return result is not None

    def lookalike(self, name: str) -> str | None:
        """The claimed name ``name`` is, or looks like; ``None`` if there is none."""
        with self.engine.connect() as connection:
            if connection.execute(sa.select(names.c.name).where(names.c.name == name)).first():
                return name
            return self._lookalike(connection, lookalike_keys(name))

    def _lookalike(self, connection: Connection, keys: Sequence[str]) -> str | None:
        return connection.execute(
            sa.select(names.c.name)
            .where(sa.or_(names.c.skeleton.in_(keys), names.c.cased_skeleton.in_(keys)))
            .order_by(names.c.created_at)
            .limit(1)
        ).scalar()

    def token_hash(self, name: str) -> str | None:
        with self.reader.connect() as connection:
            return connection.execute(
                sa.select(names.c.token_hash).where(names.c.name == name)
            ).scalar()

    def claimed_names(self) -> set[str]:
        with self.reader.connect() as connection:
            return set(connection.execute(sa.select(names.c.name)).scalars())

    def logged_in(self, name: str, token_hash: str | None = None) -> None:
        """Note a login (and a re-hashed token, where the hash's parameters changed)."""
        values: dict[str, Any] = {"last_login": now()}
        if token_hash is not None:
            values["token_hash"] = token_hash
        with self.engine.begin() as connection:
            connection.execute(names.update().where(names.c.name == name).values(**values))

    # -- reading ---------------------------------------------------------------------

    def leaderboard(self, world: str | None = None, limit: int | None = None) -> list[Standing]:
        """Ratings, best first (by ``mu - 3 sigma``), per world; every world if ``None``."""
        query = sa.select(ratings).order_by(ratings.c.world, ordinal.desc(), ratings.c.name)
        if world is not None:
            query = query.where(ratings.c.world == world)
        with self.reader.connect() as connection:
            rows = connection.execute(query).all()
        table: list[Standing] = []
        rank: dict[str, int] = {}
        for row in rows:
            rank[row.world] = rank.get(row.world, 0) + 1
            if limit is not None and rank[row.world] > limit:
                continue
            rating = Rating(mu=row.mu, sigma=row.sigma, games=row.games, wins=row.wins)
            table.append(Standing(rank[row.world], row.world, row.name, rating))
        return table

    def standings_of(self, name: str) -> list[Standing]:
        """``name``'s line of :meth:`leaderboard` in every world it is rated in, its rank
        as the whole table would give it, read through indexes: its own rows, and for
        each a count of the index entries ahead of it (never the whole ladder)."""
        with self.reader.connect() as connection:
            rows = connection.execute(
                sa.select(ratings, ordinal.label("ordinal"))
                .where(ratings.c.name == name)
                .order_by(ratings.c.world)
            ).all()
            table: list[Standing] = []
            for row in rows:
                world = ratings.c.world == row.world
                count = sa.select(sa.func.count()).select_from(ratings)
                better = count.where(world, ordinal > row.ordinal).scalar_subquery()
                tied = count.where(world, ordinal == row.ordinal, ratings.c.name < name)
                ahead = connection.execute(sa.select(better + tied.scalar_subquery())).scalar_one()
                rating = Rating(mu=row.mu, sigma=row.sigma, games=row.games, wins=row.wins)
                table.append(Standing(ahead + 1, row.world, row.name, rating))
        return table

    def worlds(self) -> list[str]:
        with self.reader.connect() as connection:
            return list(
                connection.execute(
                    sa.select(ratings.c.world).distinct().order_by(ratings.c.world)
                ).scalars()
            )

    def history(self, name: str, world: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """A name's games, newest first: the game, its world, the outcome and the rating move."""
        query = (
            sa.select(
                games.c.id,
                games.c.game,
                games.c.world,
                games.c.map,
                games.c.seed,
                games.c.ended_at,
                games.c.rated,
                games.c.replay,
                players.c.outcome,
                players.c.place,
                players.c.gold,
                players.c.moves,
                players.c.mu_before,
                players.c.mu_after,
                players.c.sigma_after,
            )
            .join(players, players.c.game_id == games.c.id)
            .where(players.c.name == name)
            .order_by(games.c.ended_at.desc(), games.c.id)
            .limit(limit)
        )
        if world is not None:
            query = query.where(games.c.world == world)
        with self.reader.connect() as connection:
            return [
                {k: _plain(v) for k, v in row._mapping.items()} for row in connection.execute(query)
            ]

    def game(self, game_id: str) -> GameRow:
        """One game by its id, or by the start of its id when only one matches."""
        with self.reader.connect() as connection:
            found = connection.execute(
                sa.select(games).where(games.c.id.like(_escape_like(game_id) + "%", escape="\\"))
            ).all()
            if not found:
                raise StoreError(f"no game's id begins with {game_id!r}")
            if len(found) > 1:
                raise StoreError(f"{len(found)} games' ids begin with {game_id!r}; give more of it")
            return self._game_row(connection, found[0])

    def games(self, world: str | None = None) -> list[GameRow]:
        """Every game (of ``world``), oldest first, with its players."""
        query = sa.select(games).order_by(games.c.ended_at, games.c.id)
        if world is not None:
            query = query.where(games.c.world == world)
        with self.reader.connect() as connection:
            found = connection.execute(query).all()
            all_players = connection.execute(
                sa.select(players).order_by(players.c.game_id, players.c.player)
            ).all()
        by_game: dict[str, list[dict[str, Any]]] = {}
        for row in all_players:
            by_game.setdefault(row.game_id, []).append(dict(row._mapping))
        return [GameRow(dict(row._mapping), by_game.get(row.id, [])) for row in found]

    def _game_row(self, connection: Connection, row: Any) -> GameRow:
        rows = connection.execute(
            sa.select(players).where(players.c.game_id == row.id).order_by(players.c.player)
        ).all()
        return GameRow(dict(row._mapping), [dict(r._mapping) for r in rows])


READS_ONLY = "dod_reads_only"
"""The execution option of :attr:`Store.reader`'s connections."""

_LOCK = 0x646F_6400  # "dod\0": the migration lock
"""PostgreSQL advisory lock keys: one for migrations, one per world's ratings."""


def _record_of(game: Any, rows: Sequence[Any]) -> GameRecord:
    """A stored game and its players' rows as the record it was written from."""
    return GameRecord(
        id=game.id,
        game=game.game,
        world=game.world,
        map=game.map,
        seed=game.seed,
        dialect=game.dialect,
        started=game.started_at,
        ended=game.ended_at,
        rounds=game.rounds,
        end=game.end_reason,
        replay=game.replay,
        server=game.server,
        players=tuple(
            PlayerResult(
                player=r.player,
                name=r.name,
                kind=r.kind,
                outcome=r.outcome,
                gold=r.gold,
                moves=r.moves,
                place=r.place,
                claimed=r.claimed,
            )
            for r in rows
        ),
    )


def _world_lock(world: str) -> int:
    return _LOCK + 1 + zlib.crc32(world.encode()) % 1_000_000


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _into_wal(cursor: Any, busy_timeout: float) -> None:
    """``PRAGMA journal_mode=WAL``, waiting for another connection's lock as long as any
    statement does. SQLite does not call its busy handler for this one: two processes
    opening a fresh database at once (the workers of ``--workers``) got "database is
    locked" at once, whatever the timeout."""
    deadline = time.monotonic() + busy_timeout
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() >= deadline:
                raise
        time.sleep(0.01)  # a connection being opened, in a worker thread: never the loop


def _sqlite_immediate_transactions(engine: Engine, busy_timeout: float) -> None:
    """SQLite: take the write lock when a transaction begins (``BEGIN IMMEDIATE``), so
    two writers never both read a rating and then both update it; the documented
    recipe for pysqlite, whose own transaction handling would begin late."""

    @sa.event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={max(1, round(busy_timeout * 1000))}")
        _into_wal(cursor, busy_timeout)
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        if connection.get_execution_options().get(READS_ONLY):
            connection.exec_driver_sql("BEGIN")  # a reader never waits for a writer (WAL)
        else:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
