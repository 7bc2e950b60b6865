"""The exceptions the client library raises.

Every one derives from :class:`ClientError`, so ``except ClientError`` catches
anything the library raises on purpose. What a caller may rely on:

* :class:`ServerClosed`: the connection is over. ``final`` is the server's last
  line (``WIN``, ``LOSE`` or ``BYE``) when it sent one, ``None`` when the
  connection simply dropped. Every call after the end raises it again.
* :class:`CommandError`: the server answered ``ERROR <message>``; the command
  had no effect and the game goes on.
* :class:`Redirected`: the server answered ``JOIN`` or ``WATCH`` with ``REDIRECT``
  (the client asked for ``redirect``): the game lives at ``address``. The clients
  follow it on their own (``follow_redirects``); it is raised only when they do not.
* :class:`UnexpectedReply`: the server sent something that is not a possible
  answer to the command (or no reply of this protocol at all). The connection
  can no longer be trusted and is closed.
* :class:`UnsupportedServer`: the server speaks no dialect the library knows
  (``str()`` begins "this server cannot be played: " and says why).
* :class:`ClientTimeout`: no answer came in time; also a :class:`TimeoutError`.
* :class:`ConnectionMoved`: the trio client followed a ``REDIRECT`` (for another task's
  ``JOIN`` or ``WATCH``) while this command waited for its answer on the connection it
  left: the command may or may not have been carried out there. The client goes on,
  connected to the game's node; send the command again if it is still wanted.
"""

from __future__ import annotations

from dungeon_of_doom.protocol.replies import FinalReply

__all__ = [
    "ClientError",
    "ClientTimeout",
    "CommandError",
    "ConnectionMoved",
    "Redirected",
    "ServerClosed",
    "UnexpectedReply",
    "UnsupportedServer",
]


class ClientError(Exception):
    """Base class of every error the client library raises on purpose."""


class ServerClosed(ClientError):
    """The server closed the connection; ``final`` is its last line, if it sent one."""

    def __init__(self, final: FinalReply | None) -> None:
        self.final = final
        said = final.lines()[0] if final is not None else "without a final line"
        super().__init__(f"server closed: {said}")


class CommandError(ClientError):
    """The server answered ``ERROR <message>``: the command was refused, the game goes on."""

    def __init__(self, command: str, message: str) -> None:
        self.command = command
        self.message = message
        super().__init__(f"{command}: ERROR {message}")


class Redirected(CommandError):
    """The server answered ``REDIRECT <game> <host>:<port>``: ``game`` lives on the
    cluster node at ``address``; connect there and send the command again."""

    def __init__(self, command: str, game: str, address: str) -> None:
        self.game = game
        self.address = address
        host, _, port = address.rpartition(":")
        self.host = host.strip("[]")
        self.port = int(port)
        super().__init__(command, f"the game {game} is played on {address}")


class UnexpectedReply(ClientError):
    """The server sent something that cannot answer the command; the connection is closed."""


class UnsupportedServer(ClientError):
    """The server speaks no dialect this library knows: it cannot be played."""


class ClientTimeout(ClientError, TimeoutError):
    """No answer arrived within the client's time limit."""


class ConnectionMoved(ClientError):
    """The client followed a ``REDIRECT`` to another node before this command's answer
    came on the connection it left; whether the command was carried out is unknown."""
