"""A client as the ladder sees it (:class:`Claimant`): the session's promise to the ladder."""

from __future__ import annotations

from typing import Protocol

from ..game.outbox import Outbox

__all__ = ["Claimant"]


class Claimant(Outbox, Protocol):
    """A client as the ladder sees it: an outbox, and the claimed name it logged in as
    (which the ladder sets once the client proved it owns it)."""

    login: str | None
    name: str | None
    """The name the client plays under now (its ``HELLO``), if any."""

    def took_over(self, old: Claimant) -> None:
        """This client now plays ``old``'s player (it logged in as its name)."""
        ...
