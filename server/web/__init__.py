"""The server's web face: a page to watch, replay and play games, and its operations.

:func:`serve_web` serves the ASGI app of :mod:`server.web.asgi` in the caller's trio
run beside the game server: one process, one event loop, the same
:class:`~server.app.Server` object. Hypercorn parses HTTP and WebSockets (h11,
wsproto) on sockets our own accept loop admits and guards (:mod:`server.web.serving`:
the connection limits, the send time-out); Starlette routes (it runs on trio through
anyio). Why this stack, and what each endpoint promises: ``docs/operating.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import structlog
import trio

from ..setup.listening import ListenError
from .asgi import create_app
from .prometheus import ServerMetrics
from .serving import serve_http
from .site import Site
from .tournaments import TournamentViews

__all__ = ["WebService", "serve_web"]


@dataclass(frozen=True)
class WebService:
    """Where the web face listens, once :func:`serve_web` has started."""

    host: str
    port: int

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"


async def serve_web(
    server: Site, *, task_status: trio.TaskStatus[WebService] = trio.TASK_STATUS_IGNORED
) -> None:
    """Serve ``server``'s web face on ``config.http_host:http_port`` until cancelled.

    Reports a :class:`WebService` (with the bound port, for ``http_port`` 0) to
    ``nursery.start`` once it accepts requests.
    """
    config = server.config
    host, port = config.http_host, config.http_port if config.http_port is not None else 0
    metrics = ServerMetrics(server)
    try:
        listeners = await trio.open_tcp_listeners(port, host=host)
    except OSError as error:
        reason = error.strerror or str(error)
        raise ListenError(
            f"cannot serve the web page on {host}:{port}: {reason} "
            "(--http-port 0 picks a free port, --no-http serves none)"
        ) from error
    bound = int(listeners[0].socket.getsockname()[1])
    writer = server.ladder.writer
    replays = None if server.config.replay_dir is None else Path(server.config.replay_dir)
    arena = TournamentViews(None if writer is None else writer.url, replays)
    app = create_app(server, metrics, arena)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(metrics.probe_loop_lag)
            await nursery.start(serve_http, server, app, listeners)
            service = WebService(host, bound)
            structlog.get_logger("server.web").info("web page listening", url=service.url)
            task_status.started(service)
    finally:
        with trio.CancelScope(shield=True):
            for listener in listeners:
                await listener.aclose()
            await arena.close()
