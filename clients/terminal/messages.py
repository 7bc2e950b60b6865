"""The message log: what happened, in words, newest last. Pure: no terminal.

What a caller may rely on:

* :class:`MessageLog` keeps the newest ``limit`` entries; ``added`` counts every
  entry ever added, so a view can tell which ones it has not shown yet.
* :func:`describe_push` turns each pushed line of the protocol into an entry
  (chat, notices, players joining and leaving, actions seen, game over); it
  returns ``None`` for the lines that change the screen rather than the log
  (``ROUND``, ``VIEW``).
* Every text comes from the server already checked printable by the protocol
  layer, so entries hold no terminal escapes.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from protocol.replies import (
    Board,
    FinalReply,
    GameOver,
    LevelView,
    Lose,
    Message,
    Notice,
    PlayerJoined,
    PlayerLeft,
    Push,
    RoundEnded,
    Seen,
    View,
    Win,
)

__all__ = ["Entry", "Kind", "MessageLog", "describe_final", "describe_push"]


class Kind(enum.Enum):
    """What sort of line an entry is; the screen gives each its colour."""

    INFO = "info"
    SENT = "sent"
    REPLY = "reply"
    ERROR = "error"
    CHAT = "chat"
    NOTICE = "notice"
    EVENT = "event"
    WIN = "win"
    LOSE = "lose"


@dataclass(frozen=True, slots=True)
class Entry:
    kind: Kind
    text: str


class MessageLog:
    """A bounded list of entries; see the module docstring."""

    def __init__(self, limit: int = 500) -> None:
        self._entries: deque[Entry] = deque(maxlen=limit)
        self.added = 0

    def add(self, kind: Kind, text: str) -> Entry:
        entry = Entry(kind, text)
        self._entries.append(entry)
        self.added += 1
        return entry

    def extend(self, kind: Kind, lines: Iterable[str]) -> None:
        for line in lines:
            self.add(kind, line)

    def since(self, seen: int) -> list[Entry]:
        """The entries added after the first ``seen`` (those still kept)."""
        missing = self.added - seen
        if missing <= 0:
            return []
        return list(self._entries)[-missing:]


_LEFT = {
    "escaped": "escaped",
    "died": "died",
    "quit": "quit",
    "disconnected": "disconnected",
    "moved": "moved to another game",
    "removed": "was removed after missing turns",
}


def describe_push(push: Push) -> Entry | None:
    """The log entry for a pushed line, or ``None`` for one that only updates the screen."""
    match push:
        case Message(sender="", text=text):
            return Entry(Kind.CHAT, text)
        case Message(sender=sender, text=text):
            return Entry(Kind.CHAT, f"<{sender}> {text}")
        case Notice(text=text):
            return Entry(Kind.NOTICE, text)
        case PlayerJoined(player=player):
            return Entry(Kind.EVENT, f"{player} joined the game")
        case PlayerLeft(player=player, why=why):
            return Entry(Kind.EVENT, f"{player} {_LEFT.get(why, why)}")
        case Seen(player=player, action=action, result=result):
            return Entry(Kind.EVENT, f"{player}: {action} {result}")
        case GameOver(text=text):
            return Entry(Kind.NOTICE, f"Game over: {text}")
        case RoundEnded() | View() | LevelView() | Board():
            return None
    return Entry(Kind.EVENT, " ".join(push.lines()))


def describe_final(final: FinalReply | None) -> Entry:
    """The entry for the server's last line (or for a connection that just dropped)."""
    if final is None:
        return Entry(Kind.ERROR, "The server closed the connection without a word.")
    kind = (
        Kind.WIN if isinstance(final, Win) else Kind.LOSE if isinstance(final, Lose) else Kind.INFO
    )
    return Entry(kind, final.lines()[0])
