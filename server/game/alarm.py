"""The alarm of a game's task: a part whose deadline changed rings it, the task wakes.

The game's task (:meth:`server.game.steward.Steward.run`) sleeps until the nearest of
its deadlines; a pacing that sets a new deadline, or an audience whose spectator fell
behind, rings the alarm (:meth:`Alarm.wake`) and the task looks at its deadlines again.
The parts share the alarm, not the steward: none of them needs more of it.
"""

from __future__ import annotations

import trio

__all__ = ["Alarm"]


class Alarm:
    """Wakes the one task that waits on it (see the module docstring)."""

    __slots__ = ("_lot",)

    def __init__(self) -> None:
        self._lot = trio.lowlevel.ParkingLot()

    def wake(self) -> None:
        """Make the waiting task look at its deadlines again (nothing if none waits)."""
        self._lot.unpark_all()

    async def wait(self) -> None:
        """Sleep until :meth:`wake` (the caller bounds it with its deadline)."""
        await self._lot.park()
