"""The web face's ASGI application: pages, JSON API, the play/watch WebSocket, operations.

Routes (what each promises is in ``docs/operating.md``):

* ``/`` and ``/static/...``: the single-page site (package data, no CDN), and its icon,
  ``/favicon.ico``;
* ``/api/games``: every game of the cluster, as ``GAMES`` lists it, plus the node
  holding it (``HOST:PORT`` it advertises) and its round (``null`` for another node's);
* ``/api/replays`` and ``/api/replays/{file}?from=N&count=M``: the replay files (who
  played, who won, how long; a conformance run's games only with ``?probes=1``), and a
  page of one re-run into frames (:class:`~server.web.replays.ReplayPages`);
* ``/api/leaderboard?world=W``: the ratings of a world, best first, and its best results
  per map; ``/api/players/{name}``: a name's ratings, bests and games (servers with
  records; :mod:`server.web.views`);
* ``/api/tournaments`` and ``/api/tournaments/{name}?from=N&count=M&state=S``: the
  tournaments ``dod-arena`` workers play in the records store, and one's progress, table
  and matches a page at a time (:mod:`server.web.tournaments`);
* ``/replays/{file}``: a replay file to download;
* ``/ws``: a WebSocket that speaks the game's line protocol through the same
  :meth:`~server.app.Server.serve_stream` path as TCP (the browser plays and watches
  with ``HELLO``, ``JOIN``, ``MOVE``, ``WATCH``, ...);
* ``/healthz`` (the process answers), ``/readyz`` (listening, accepting players),
  ``/metrics`` (Prometheus text format, to the operator's addresses only).

Every route is behind the :class:`~server.web.gate.Gate` (the client's address behind
a trusted proxy, the ``Host`` and ``Origin`` checks, who may read ``/metrics``).

Every HTTP request and WebSocket session is one structlog event (``http request``).
"""

from __future__ import annotations

import dataclasses
import time
from functools import partial
from pathlib import Path
from typing import Any

import h11
import structlog
import trio
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket

from ..replay.format import ReplayError
from . import replays, views
from .gate import PROXIED, Gate
from .prometheus import ServerMetrics
from .site import Site
from .stream import WebSocketStream
from .tournaments import TournamentViews

STATIC = Path(__file__).parent / "static"
log = structlog.get_logger("server.web")


def create_app(server: Site, metrics: ServerMetrics, arena: TournamentViews) -> ASGIApp:
    """The ASGI app serving ``server``'s web face; ``arena`` answers its tournament
    pages (its caller closes it when the web face stops)."""
    replay_dir = None if server.config.replay_dir is None else Path(server.config.replay_dir)
    rerun_limiter = trio.CapacityLimiter(1)  # one replay page made at a time
    replay_pages = replays.ReplayPages()

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def favicon(request: Request) -> Response:
        # Where browsers (and any page of the API opened alone) look for the site's icon.
        return FileResponse(
            STATIC / "favicon.ico",
            media_type="image/vnd.microsoft.icon",
            headers={"Cache-Control": "max-age=86400"},
        )

    async def games(request: Request) -> Response:
        directory = server.directory
        listed = []
        for game in server.games.values():
            info: dict[str, Any] = dataclasses.asdict(game.info())
            info["node"] = directory.advertise
            info["round"] = game.round
            listed.append(info)
        for remote in directory.remote_games():  # the local copy only: no query
            if remote.info is not None and remote.name not in server.games:
                info = dataclasses.asdict(remote.info)
                info["node"] = remote.address
                info["round"] = None  # its node alone knows it; the directory keeps no rounds
                listed.append(info)
        return JSONResponse({"games": listed})

    async def replay_list(request: Request) -> Response:
        order = request.query_params.get("order") or "time"
        if order not in replays.ORDERS:
            return JSONResponse({"error": f"order is one of {', '.join(replays.ORDERS)}"}, 400)
        probes = request.query_params.get("probes") in ("1", "true")
        found = await trio.to_thread.run_sync(
            partial(replays.list_replays, replay_dir, order, probes=probes)
        )
        await views.add_results(server, replay_dir, found)
        return JSONResponse({"replays": found, "order": order, "ordered": replays.ORDERS[order]})

    async def replay_frames(request: Request) -> Response:
        name = request.path_params["name"]
        try:
            path = replays.replay_path(replay_dir, name)
        except replays.NoSuchReplay:
            return JSONResponse({"error": f"no replay called {name}"}, status_code=404)
        try:
            start, count = replays.page_bounds(request.query_params)
        except ValueError as error:
            return JSONResponse({"error": str(error)}, status_code=400)
        try:
            # Re-run and encoded in a thread, one page at a time (server.web.replays).
            body = await trio.to_thread.run_sync(
                replay_pages.page, path, start, count, limiter=rerun_limiter, abandon_on_cancel=True
            )
        except ReplayError as error:
            return JSONResponse({"error": str(error)}, status_code=422)
        return Response(body, media_type="application/json")

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(request: Request) -> Response:
        if server.ready:
            return JSONResponse({"status": "ready", "port": server.port})
        return JSONResponse({"status": "not ready"}, status_code=503)

    async def metrics_page(request: Request) -> Response:
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    async def play(websocket: WebSocket) -> None:
        try:
            await websocket.accept()
        except h11.LocalProtocolError:
            # Hypercorn's reading task answered 400 meanwhile (the client sent frames
            # before its 101): there is no WebSocket to serve.
            return
        client = websocket.client
        host, port = (client.host, client.port) if client is not None else ("?", 0)
        # The socket is counted already (server.web.serving), and so is its address's
        # share unless a proxy's socket carries it: then the browser's address counts.
        proxied = bool(websocket.scope.get(PROXIED))
        await server.serve_stream(
            WebSocketStream(websocket),
            host=host,
            port=port,
            count_socket=False,
            count_address=proxied,
        )

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/favicon.ico", favicon),
            Route("/api/games", games),
            Route("/api/replays", replay_list),
            Route("/api/replays/{name}", replay_frames),
            Route("/api/leaderboard", views.leaderboard_route(server)),
            Route("/api/players/{name}", views.player_route(server)),
            Route("/api/tournaments", arena.list_route()),
            Route("/api/tournaments/{name}", arena.tournament_route()),
            Route("/replays/{name}", views.download_route(server)),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics_page),
            WebSocketRoute("/ws", play),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]
    )
    return AccessLog(Gate(app, server.config))


class AccessLog:
    """ASGI middleware: one ``http request`` event per request or WebSocket session."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status: list[int] = []

        async def send_and_note(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
            elif message["type"] == "websocket.accept":
                status.append(101)
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        finally:
            client = scope.get("client") or ("?", 0)  # as the gate found it (a proxy's client)
            log.info(
                "http request",
                kind=scope["type"],
                method=scope.get("method", "GET"),
                path=scope["path"],
                status=status[0] if status else None,
                seconds=round(time.perf_counter() - started, 6),
                peer=f"{client[0]}:{client[1]}",
            )
