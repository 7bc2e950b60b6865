"""The Dungeon of Doom server: trio networking around pure world plugins.

Its wings, from the top of the stack down (pyproject's import contracts hold them):

* :mod:`server.cli` (``dod-server``), :mod:`server.replay_cli` (``dod-replay``);
* :mod:`server.app`: :class:`Server`, the composition root: listeners, the
  connections they accept, and the games they play; beside it :mod:`server.web`, the web
  face, its API and ``/metrics``, which sees the server through its own roles;
* :mod:`server.session`: one client's session, its bytes and its dialect;
* :mod:`server.lobby`: the games on a server, creating, joining and watching them;
* :mod:`server.cluster`: one server on many processes and machines;
* :mod:`server.game`: one game, its parts and its pacings; docs/architecture.md;
* :mod:`server.replay`: replay files, written as games go, read and re-run;
* :mod:`server.setup`: settings, listening, access lists, logs;
* :mod:`server.metrics` (plain counts), :mod:`server.ratelimit` (a token bucket).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import Server, serve
    from .setup.config import ServerConfig

__all__ = ["Server", "ServerConfig", "serve"]


def __getattr__(name: str) -> Any:
    # Loaded on first use, not with the package: ``dod-server --help`` and ``dod-replay``
    # import a module of a wing, and must not pay for the whole server (its store, its
    # web face) to do it.
    if name in ("Server", "serve"):
        from . import app

        return getattr(app, name)
    if name == "ServerConfig":
        from .setup.config import ServerConfig

        return ServerConfig
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
