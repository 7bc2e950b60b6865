"""The game as its parts see it: what a pacing, a command or an event needs of it.

:class:`~server.game.game.Game` is the one implementation; the modules under it
(:mod:`server.game.pacing`, :mod:`server.game.rounds`, :mod:`server.game.turn_taking`,
:mod:`server.game.verbs`, :mod:`server.game.telling`) are written against this protocol, so
that no module imports the game it serves (pyproject's layers).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Protocol

from protocol.commands import Look, Map
from protocol.replies import Lose, Win
from records.model import Tally
from records.names import LookalikeNames
from worlds.api import Action, Event, PlayerId, PlayerKind, World

from ..replay.writer import ReplayWriter
from .audience import Audience
from .chronicle import Chronicle
from .outbox import Outbox
from .restarts import WorldSlot
from .roster import Roster


class Table(Protocol):
    """A game, for the modules that play it."""

    name: str
    world: World
    players: dict[PlayerId, Outbox]
    seats: dict[Outbox, PlayerId]
    names: LookalikeNames[PlayerId]
    names_of: dict[PlayerId, str]
    departing: dict[PlayerId, str]
    """Players who left with an action in a round, by how they are shown."""
    round: int
    turn_timeout: float
    max_missed_turns: int
    tally: Tally
    roster: Roster
    crowd: Audience
    chronicle: Chronicle
    may_chat: Callable[[Outbox], bool]
    slot: WorldSlot
    looks_wait: bool
    """Whether :meth:`waits` may hold a ``LOOK`` or ``MAP`` (else it need not be asked)."""

    @property
    def world_name(self) -> str: ...

    @property
    def replay(self) -> ReplayWriter | None: ...

    def label(self, player: PlayerId) -> str:
        """How ``player`` is shown, even after they won or died here."""
        ...

    # -- playing ------------------------------------------------------------------------

    act: Callable[[Outbox, PlayerId, Action], None]
    """``act(client, player, action)``: hand ``action`` to the game's pacing."""

    def waits(self, client: Outbox, player: PlayerId, step: Look | Map) -> bool:
        """Whether the pacing holds ``step`` (then it answers it later)."""
        ...

    def play(
        self, actions: Sequence[tuple[PlayerId, Action]], unasked: Collection[PlayerId] = ()
    ) -> None:
        """Resolve ``actions`` in the world and tell everyone what happened (the
        replay and the round count are the pacing's); ``unasked`` players sent no
        command, so get no reply. Raises what the world raises."""
        ...

    told: Callable[[list[Event], Sequence[tuple[PlayerId, Action]], Collection[PlayerId]], None]
    """``told(happened, actions, unasked)``: tell what resolving ``actions`` gave (the
    world's :meth:`~worlds.api.World.resolve`, called by the pacing) as :meth:`play`
    does; the game's own :func:`server.game.telling.events`, no frame between."""

    def tell(self, events: list[Event]) -> None:
        """Tell everyone what the world did by itself (no action caused it)."""
        ...

    def played_in_time(self, player: PlayerId) -> None:
        """``player``'s turn ended in time: its count of missed turns starts again."""
        ...

    def answer(self, client: Outbox, player: PlayerId, step: Look | Map) -> None:
        """Answer a ``LOOK`` or ``MAP``."""
        ...

    def show(self) -> None:
        """Send spectators the map, if it changed."""
        ...

    settle: Callable[[], None]
    """``settle()``: end the game if it is over (everyone left, or nobody can win). It
    does nothing while players are in and :meth:`~worlds.api.World.unwinnable` says
    ``None``: a caller may test that itself first, and not call it then."""

    def crash(self, during: str) -> None:
        """The world failed ``during`` something: end the game for its players."""
        ...

    def wake(self) -> None:
        """A deadline changed: the game's task must look again."""
        ...

    # -- players ------------------------------------------------------------------------

    def join(self, client: Outbox, kind: PlayerKind = PlayerKind.HUMAN) -> PlayerId:
        """Put ``client`` in the world; raises what the world raises."""
        ...

    def finish(self, player: PlayerId, final: Win | Lose, outcome: str, **context: int) -> None:
        """``player``'s game is over: told ``final``, then out of the game."""
        ...

    def leave(self, client: Outbox, why: str = "disconnected") -> None:
        """Take ``client``'s player out of the game."""
        ...

    def remove(self, player: PlayerId, who: str, why: str) -> None:
        """Take ``player`` (shown as ``who``), who has left the game, out of the world."""
        ...

    def shout(self, sender: str, text: str) -> None: ...

    def hold(self, client: Outbox, step: Callable[[], None]) -> bool:
        """Whether ``step`` waits for the fresh world being built (then it runs after)."""
        ...

    def too_big(self) -> str | None:
        """Why the whole map may not be sent, or ``None``."""
        ...
