"""Who plays in a game, from which client, and under which name.

What a caller may rely on:

* ``players`` and ``seats`` are each other's inverse (player → client, client →
  player), and ``names`` and ``names_of`` likewise; a name is held by one player
  of the game at most, and names that only look alike are one name
  (:class:`records.names.LookalikeNames`).
* A player who won or died here keeps being shown by their name
  (:meth:`Roster.label`): a battle's ``LOSE`` names the winner who has left.
"""

from __future__ import annotations

from typing import NamedTuple

from records.names import LookalikeNames
from worlds.api import PlayerId

from .outbox import Outbox


class Departure(NamedTuple):
    """A player who left with an action still to be played: how it is shown, and why it
    left (``disconnected``, ``quit``), said once it is out."""

    who: str
    why: str


def label(name: str | None, player: PlayerId) -> str:
    """How a player is shown to others: their name, or ``#<number>``."""
    return name if name is not None else f"#{player}"


class Roster:
    """The players of one game and their names; see the module docstring."""

    __slots__ = ("departing", "finished_names", "names", "names_of", "players", "seats")

    def __init__(self) -> None:
        self.players: dict[PlayerId, Outbox] = {}
        self.seats: dict[Outbox, PlayerId] = {}
        self.names: LookalikeNames[PlayerId] = LookalikeNames()  # lookalikes are one name
        self.names_of: dict[PlayerId, str] = {}
        self.finished_names: dict[PlayerId, str] = {}  # of players who won or died here
        self.departing: dict[PlayerId, Departure] = {}
        """Players who left with an action in a round, to be taken out after it."""

    def seat(self, client: Outbox, player: PlayerId, name: str | None) -> None:
        self.players[player] = client
        self.seats[client] = player
        if name is not None:
            self.names[name] = player
            self.names_of[player] = name

    def unseat(
        self, player: PlayerId, *, finished: bool = False
    ) -> tuple[Outbox | None, str | None]:
        """Take ``player`` out; ``finished``: it won or died here, so keep its name for
        :meth:`label`. Returns its client and name (``None`` if it was not here)."""
        client = self.players.pop(player, None)
        if client is None:
            return None, None
        self.seats.pop(client, None)
        name = self.names_of.pop(player, None)
        if name is not None:
            self.names.pop(name, None)
            if finished:
                self.finished_names[player] = name
        return client, name

    def move(self, player: PlayerId, old: Outbox, new: Outbox) -> None:
        """``player`` plays from ``new`` instead of ``old``."""
        del self.seats[old]
        self.players[player] = new
        self.seats[new] = player

    def rename(self, player: PlayerId, name: str) -> str | None:
        """Call ``player`` ``name`` (which must be free or theirs); returns the old name."""
        old = self.names_of.get(player)
        if old is not None:
            self.names.pop(old, None)
        self.names[name] = player
        self.names_of[player] = name
        return old

    def label(self, player: PlayerId) -> str:
        """How ``player`` is shown, even after they won or died here."""
        name = self.names_of.get(player)
        return label(name if name is not None else self.finished_names.get(player), player)

    def shown(self) -> dict[PlayerId, str]:
        """How each player in the game is shown (the board's names)."""
        names_of = self.names_of
        return {player: label(names_of.get(player), player) for player in self.players}

    def clear(self) -> None:
        """Everyone out at once (the world failed); names of the finished are kept."""
        self.players.clear()
        self.seats.clear()
        self.names.clear()
        self.names_of.clear()
        self.departing.clear()
