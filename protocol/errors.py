"""The two kinds of protocol error.

As in ``h11``, a mistake by the peer and a mistake by our own code are different
things and get different types:

* :class:`RemoteProtocolError`: the other side sent something that breaks the
  protocol (an unknown verb, a line that is too long, a malformed reply). A
  server answers it with an ``ERROR`` line; a client raises it to its caller.
* :class:`LocalProtocolError`: the caller misused this library (formatted a reply
  that cannot exist, fed data after end of input). It is a bug in the caller.

Both derive from :class:`ProtocolError`, so ``except ProtocolError`` catches both.
"""

from __future__ import annotations


class ProtocolError(Exception):
    """Base class of every error this package raises on purpose."""


class RemoteProtocolError(ProtocolError):
    """The peer sent something that the protocol does not allow.

    ``str(error)`` is one line of plain English, safe to send back to the peer.
    ``fatal`` says whether the byte stream can still be trusted: a bad command is
    not fatal (the next line is read normally), an over-long line is (the framer
    refuses further input and the connection should be closed).
    """

    def __init__(self, message: str, *, fatal: bool = False, line: bytes | None = None) -> None:
        super().__init__(message)
        self.fatal = fatal
        self.line = line
        """The whole line refused (without its end), when one was read: the same bytes
        give the same error on another server (a node carrying the client forwards
        them to the game's node, which answers in their turn)."""


class LocalProtocolError(ProtocolError):
    """Our own code used this package wrongly; this is a bug, never the peer's fault."""
