"""Client-side code: the client library, and the terminal clients.

The library, for bots and tools that play over TCP:

* :class:`Client` (:mod:`clients.sync`): blocking, plain sockets;
* :class:`AsyncClient` (:mod:`clients.aio`): trio, with a reader task, so pushed
  lines arrive while the caller is busy;
* both are thin transports over :class:`~clients.core.ClientCore`, which turns
  each command into bytes and each reply into a typed result;
* :class:`Grid` is what ``look()`` and ``map()`` return;
* the exceptions are in :mod:`clients.errors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol.direction import Direction
from protocol.replies import Bye, FinalReply, GameInfo, Lose, Message, Notice, Push, Win

from .core import DEFAULT_PORT, PickupResult
from .errors import (
    ClientError,
    ClientTimeout,
    CommandError,
    ConnectionMoved,
    Redirected,
    ServerClosed,
    UnexpectedReply,
    UnsupportedServer,
)
from .grid import Grid, Position
from .sync import Client

if TYPE_CHECKING:
    from .aio import AsyncClient

__all__ = [
    "DEFAULT_PORT",
    "AsyncClient",
    "Bye",
    "Client",
    "ClientError",
    "ClientTimeout",
    "CommandError",
    "ConnectionMoved",
    "Direction",
    "FinalReply",
    "GameInfo",
    "Grid",
    "Lose",
    "Message",
    "Notice",
    "PickupResult",
    "Position",
    "Push",
    "Redirected",
    "ServerClosed",
    "UnexpectedReply",
    "UnsupportedServer",
    "Win",
]


def __getattr__(name: str) -> Any:
    # Loaded on first use: trio is what the async client needs, and the blocking one,
    # the console games and every bot that plays without it start without it.
    if name == "AsyncClient":
        from .aio import AsyncClient

        return AsyncClient
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
