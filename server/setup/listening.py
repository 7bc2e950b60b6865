"""Where the server listens: each port, and the dialect its clients speak.

Each listening port speaks one dialect (``--listen 40005:2015``), so one server can
serve clients of every era at once, in the same games (:mod:`server.session.greetings`).
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.dialects import DEFAULT_DIALECT, DIALECTS, UnknownDialect

__all__ = ["Listen", "ListenError", "parse_listen", "parse_listens", "ports_to_listen"]


class ListenError(OSError):
    """The server cannot listen where it was told to (port in use, unknown host)."""


@dataclass(frozen=True, slots=True)
class Listen:
    """One listening port and the dialect its clients speak."""

    port: int
    dialect: str = DEFAULT_DIALECT

    def __str__(self) -> str:
        return f"{self.port}:{self.dialect}"

    def on(self, host: str) -> str:
        """Where it is, in words for the operator: ``HOST:PORT``, and the dialect spoken
        there unless it is the default (``127.0.0.1:40005 (dialect 2015)``)."""
        if self.dialect == DEFAULT_DIALECT:
            return f"{host}:{self.port}"
        return f"{host}:{self.port} (dialect {self.dialect})"


def parse_listen(text: str, default_dialect: str = DEFAULT_DIALECT) -> Listen:
    """``PORT`` or ``PORT:DIALECT`` (``40005:2015``); raises ``ValueError`` with a message
    for the person who typed it."""
    port_text, _, dialect = text.strip().partition(":")
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"expected PORT or PORT:DIALECT, not {text!r}") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"a port is from 0 to 65535, not {port}")
    dialect = dialect or default_dialect
    if dialect not in DIALECTS:
        raise UnknownDialect(
            f"unknown dialect {dialect!r} in {text!r}; known dialects: {', '.join(DIALECTS)}"
        )
    return Listen(port, dialect)


def parse_listens(text: str, default_dialect: str = DEFAULT_DIALECT) -> list[Listen]:
    """Comma-separated :func:`parse_listen` specs (``"40004,40005:2015"``); ``""``: none."""
    return [parse_listen(part, default_dialect) for part in text.split(",") if part.strip()]


def ports_to_listen(listen: str, port: int, dialect: str) -> list[Listen]:
    """Where a server listens: the ports of ``--listen`` (``listen``), else ``--port``
    alone, each speaking its dialect (``dialect``, ``--dialect``, where none is named)."""
    return parse_listens(listen, dialect) or [Listen(port, dialect)]
