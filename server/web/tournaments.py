"""The web page's view of tournaments that ``dod-arena`` workers play: when the server's
records store is the PostgreSQL database the workers share, ``/api/tournaments`` lists
them and ``/api/tournaments/{name}`` shows one: its counts, its table so far (the same
code and the same figures as ``dod-arena status``: :mod:`records.tournaments`) and a
page of its matches. The page polls them while the workers play.

The reads go through a store of their own (not the records writer's, whose one thread
writes the games this server plays), opened on first use, one worker thread at a time,
each answered within :data:`READ_TIMEOUT` seconds or ``503``, and closed
(:meth:`TournamentViews.close`) when the web face stops. The tables of the
:data:`KEPT_TABLES` tournaments looked at last are kept, so that a look costs only the
results stored since the one before (at most :data:`~records.tournaments.TABLE_BATCH`).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import structlog
import trio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from records import tournaments
from records.store import Store

__all__ = ["TournamentViews", "page_request"]

READ_TIMEOUT: Final = 5.0
"""Seconds one request waits for the database (and for its turn) before ``503``."""
KEPT_TABLES: Final = 8
PAGES_APPLICATION: Final = "dod-server tournament pages"
"""The ``application_name`` of the pages' own connection to PostgreSQL."""
"""Tournaments whose tables are kept between looks, the most recently looked at."""
NAME: Final = re.compile(r"[A-Za-z0-9_-]{1,18}")
"""A tournament's name, as ``dod-arena submit`` allows it."""
NO_TABLES: Final = (
    "no tournaments here: this server's records store holds no dod-arena tables "
    "(a dod-arena run keeps them in its store, --db, which is DIR/records.db on one "
    "machine; workers keep them in the PostgreSQL database they share; start the server "
    "with --db on that store to watch them)"
)
log = structlog.get_logger("server.web")


def page_request(query: Mapping[str, str]) -> tuple[int, int, str | None]:
    """``from``, ``count`` and ``state`` of a match page; ``ValueError`` says what is wrong."""
    bounds = []
    for key, default, most in (
        ("from", 0, 1 << 31),
        ("count", tournaments.DEFAULT_PAGE, tournaments.MAX_PAGE),
    ):
        text = query.get(key)
        if text is None:
            bounds.append(default)
            continue
        least = 1 if key == "count" else 0
        if not (
            text.isascii() and text.isdigit() and len(text) < 12 and least <= int(text) <= most
        ):
            raise ValueError(f"{key} must be a whole number from {least} to {most}, not {text!r}")
        bounds.append(int(text))
    state = query.get("state") or None
    if state is not None and state not in tournaments.MATCH_STATES:
        raise ValueError(f"state must be one of {', '.join(tournaments.MATCH_STATES)}")
    return bounds[0], bounds[1], state


class _Unavailable(Exception):
    pass


class TournamentViews:
    """The two endpoints, over the records store at ``url`` (``None``: the server keeps
    no records); a match's replay and its bots' logs are linked where they are in
    ``replays``, the server's replay folder (a one-machine ``dod-arena`` run's, when
    the server is started on its ``--dir``)."""

    def __init__(self, url: str | None, replays: Path | None = None) -> None:
        self.url = url
        self.replays = replays
        self._store: Store | None = None
        self._closed = False
        self._opening = threading.Lock()
        """Held while the store is opened or closed, so that a read still in its thread
        when :meth:`close` runs never opens a store nothing would close."""
        self._limiter = trio.CapacityLimiter(1)
        self._tables: OrderedDict[tuple[str, datetime], tournaments.TournamentTable] = OrderedDict()

    async def _read(self, work: Callable[[Any], Any]) -> Any:
        """``work(connection)`` in a worker thread, within :data:`READ_TIMEOUT`; ``None``
        if the store holds no tournaments."""
        with trio.move_on_after(READ_TIMEOUT):
            try:
                return await trio.to_thread.run_sync(
                    self._in_thread, work, limiter=self._limiter, abandon_on_cancel=True
                )
            except Exception as error:
                log.warning("tournaments not read", error=f"{type(error).__name__}: {error}")
                first = str(error).strip().splitlines()[0] if str(error).strip() else ""
                raise _Unavailable(f"the records are not reachable: {first[:200]}") from None
        raise _Unavailable(f"the records did not answer within {READ_TIMEOUT:g} s")

    def _in_thread(self, work: Callable[[Any], Any]) -> Any:
        assert self.url is not None
        with self._opening:
            if self._closed:
                raise RuntimeError("the web face is stopping")
            if self._store is None:
                self._store = Store(
                    self.url, busy_timeout=READ_TIMEOUT, application=PAGES_APPLICATION
                )
            store = self._store
        with store.engine.connect() as connection:
            if not tournaments.holds_tournaments(connection):
                return None
            return work(connection)

    async def close(self) -> None:
        """Close the store (its pooled connection to the database), if one was opened;
        reads asked for afterwards answer ``503``. Returns within :data:`READ_TIMEOUT`."""

        def close() -> None:
            with self._opening:
                self._closed = True
                store, self._store = self._store, None
            if store is not None:
                store.close()

        with trio.move_on_after(READ_TIMEOUT):
            await trio.to_thread.run_sync(close, abandon_on_cancel=True)

    def list_route(self) -> Callable[[Request], Awaitable[Response]]:
        """``/api/tournaments``: the newest tournaments, with their progress."""

        async def listing(request: Request) -> Response:
            if self.url is None:
                return _refused(404, "this server keeps no records (--db)")
            try:
                found = await self._read(tournaments.tournaments)
            except _Unavailable as error:
                return _refused(503, str(error))
            if found is None:
                return _refused(404, NO_TABLES)
            return JSONResponse(
                {
                    "tournaments": [t.as_json() for t in found],
                    "limit": tournaments.MAX_LISTED,
                }
            )

        return listing

    def tournament_route(self) -> Callable[[Request], Awaitable[Response]]:
        """``/api/tournaments/{name}?from=N&count=M&state=S``: one tournament's progress,
        its table so far, and a page of its matches."""

        async def one(request: Request) -> Response:
            if self.url is None:
                return _refused(404, "this server keeps no records (--db)")
            name = request.path_params["name"]
            if not NAME.fullmatch(name):
                return _refused(400, "a tournament's name is 1 to 18 letters, digits, _ and -")
            try:
                start, count, state = page_request(request.query_params)
            except ValueError as error:
                return _refused(400, str(error))
            try:
                body = await self._read(lambda c: self._look(c, name, start, count, state))
            except _Unavailable as error:
                return _refused(503, str(error))
            if body is None:
                return _refused(404, NO_TABLES)
            if not body:
                return _refused(404, f"no tournament called {name}")
            return JSONResponse(body)

        return one

    def _look(
        self, connection: Any, name: str, start: int, count: int, state: str | None
    ) -> dict[str, Any]:
        found = tournaments.tournament(connection, name)
        if found is None:
            return {}
        key = (found.name, found.submitted)
        table = self._tables.pop(key, None)
        if table is None:
            table = tournaments.TournamentTable(
                found.name, tournaments.entrant_names(connection, found), found.contract
            )
        self._tables[key] = table
        while len(self._tables) > KEPT_TABLES:
            self._tables.popitem(last=False)
        table.refresh(connection)
        matches, following = tournaments.match_page(connection, name, start, count, state)
        for match in matches:
            _links_here(match.get("result"), self.replays)
        return {
            "tournament": found.as_json(),
            "table": [line.as_json(rank) for rank, line in enumerate(table.lines(), 1)],
            "table_recorded": table.recorded,
            "table_complete": table.complete,
            "from": start,
            "count": count,
            "state": state,
            "matches": matches,
            "next": following,
        }


def _links_here(result: dict[str, Any] | None, replays: Path | None) -> None:
    """Keep a result's replay and logs only where this server's replay folder holds them
    (a worker on another host keeps its own)."""
    if not result:
        return
    replay = result.get("replay")
    if replay is not None and (replays is None or not (replays / Path(replay).name).is_file()):
        result["replay"] = None
    result["logs"] = {
        bot: file
        for bot, file in (result.get("logs") or {}).items()
        if replays is not None and (replays / Path(file).name).is_file()
    }


def _refused(status: int, error: str) -> JSONResponse:
    return JSONResponse({"error": error}, status_code=status)
