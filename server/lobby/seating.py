"""Where each client of the lobby is, and what the clients of one address hold.

What a caller may rely on:

* :attr:`Seating.playing` and :attr:`Seating.watching` say which game (other than
  the default one) a client plays in or watches; they change only through
  :meth:`Seating.seat` and :meth:`Seating.unseat`.
* What an address holds (``max_games_per_address``: the games its clients created
  and that have not ended, and those they play in or watch, the default game aside)
  is counted as its clients move, so :meth:`Seating.refusal` looks at no other
  client.
"""

from __future__ import annotations

import collections
from typing import Generic, Protocol, TypeVar

from ..game.outbox import Outbox

DEFAULT_GAME = "default"


class Named(Protocol):
    """A game, as seating counts it (:class:`~server.game.game.Game`)."""

    @property
    def name(self) -> str: ...


_Held = TypeVar("_Held", bound=Named)


class Seating(Generic[_Held]):
    """Who plays in or watches which game, counted by address; see the module docstring."""

    __slots__ = ("_seated", "_share", "creators", "playing", "watching")

    def __init__(self, share: int) -> None:
        """``share``: the games the clients of one address may hold."""
        self.playing: dict[Outbox, _Held] = {}
        """Who plays in a game other than the default one."""
        self.watching: dict[Outbox, _Held] = {}
        self.creators: dict[str, str] = {}
        """The address that created each game (or one being built), until it ends."""
        self._seated: dict[str, collections.Counter[str]] = {}
        # For each client address, how many of its clients play in or watch each game
        # (by name): what the share counts, without a look at every client.
        self._share = share

    def seat(self, where: dict[Outbox, _Held], client: Outbox, game: _Held) -> None:
        """``client`` plays in (``where`` is :attr:`playing`) or watches ``game``."""
        self.unseat(where, client)
        where[client] = game
        self._seated.setdefault(client.who.address, collections.Counter())[game.name] += 1

    def unseat(self, where: dict[Outbox, _Held], client: Outbox) -> _Held | None:
        """``client`` no longer plays in (or watches) the game it did; that game."""
        game = where.pop(client, None)
        if game is not None:
            seated = self._seated[client.who.address]
            seated[game.name] -= 1
            if not seated[game.name]:
                del seated[game.name]
                if not seated:
                    del self._seated[client.who.address]
        return game

    def held(self, address: str, *, but: Outbox | None = None) -> set[str]:
        """The created games the clients of ``address`` hold (see the module docstring),
        ``but``'s seat aside (a client that joins another game gives up its own)."""
        created = {name for name, creator in self.creators.items() if creator == address}
        seated = self._seated.get(address, collections.Counter())
        held = created | {name for name in seated if name != DEFAULT_GAME}
        own = None if but is None else self.watching.get(but) or self.playing.get(but)
        if own is not None and seated[own.name] == 1 and own.name not in created:
            held.discard(own.name)
        return held

    def refusal(self, client: Outbox, game: str | None = None) -> str | None:
        """Why ``client`` may not hold one game more (``game``, or a new one)."""
        if game == DEFAULT_GAME:
            return None
        held = self.held(client.who.address, but=None if game is None else client)
        if game in held or len(held) < self._share:
            return None
        return (
            f"your address holds {len(held)} games already (max_games_per_address); leave one first"
        )
