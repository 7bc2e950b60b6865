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

from protocol.direction import Direction
from protocol.replies import Bye, FinalReply, GameInfo, Lose, Message, Notice, Push, Win

from .aio import AsyncClient
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
