"""What keeps a game going: its own task, its lifecycle, its end and its restarts.

A :class:`Steward` owns the game's :class:`~server.game.restarts.WorldSlot` and its
:class:`~server.game.lifecycle.Lifecycle`, and runs the game's task. What a caller may
rely on:

* The task times out what the game's pacing timed (:attr:`Timed.deadline`),
  flushes the replay at least every :data:`FLUSH_INTERVAL`, sends lagging spectators
  the latest map, removes a game nobody joined within ``unjoined_timeout``, and
  builds fresh worlds off the loop, until the game is closed.
* A world's game ends when everyone has left, when nobody still playing can win
  (:meth:`Steward.settle`: each is told ``LOSE`` and why), or when the world fails
  (:meth:`Steward.crash`). Then a fresh world with the same settings replaces it if
  the game's owner says so (:meth:`Ending.kept`), or always after a failure (built
  at once when it builds quickly, else by the task, while commands wait:
  :meth:`WorldSlot.hold`);
  otherwise, or when no world opens, the game is closed and its owner told
  (:meth:`Ending.gone`).
* Every change of state goes through :data:`server.game.lifecycle.TRANSITIONS`.
* A steward sees its game through small roles: the spec, the world slot, the roster,
  the audience, the chronicle, the alarm, and what it has the game do (:class:`Ending`).
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import trio

from protocol.replies import Bye, GameOver, Lose, Win
from worlds.api import PlayerId

from .alarm import Alarm
from .audience import Audience
from .builds import Opened
from .lifecycle import Event, Lifecycle, State
from .restarts import WorldSlot
from .roster import Roster
from .spec import GameSpec

FLUSH_INTERVAL = 1.0
"""Seconds between flushes of a replay that has unwritten lines (a backstop: every
batch of commands and every round flushes it)."""
BEHIND_TICK = 0.05
"""Seconds between looks at spectators too far behind to be sent the latest map."""


class Timed(Protocol):
    """A game's pacing, as its task times it (:class:`server.game.pacing.Pacing`)."""

    @property
    def deadline(self) -> float:
        """When :meth:`expire` is due (trio time; ``inf``: never)."""
        ...

    @property
    def expiry(self) -> str:
        """What :meth:`expire` is called in logs, should the world fail in it."""
        ...

    def expire(self, now: float) -> None: ...

    def busy(self) -> bool:
        """Whether actions are in play that the game must see through before it ends."""
        ...


class Ledger(Protocol):
    """A game's replay and record, as its task keeps them
    (:class:`~server.game.chronicle.Chronicle`)."""

    @property
    def round(self) -> int:
        """Rounds resolved in the world."""
        ...

    def flush(self) -> None:
        """Hand the replay's unwritten lines to the operating system."""
        ...


class Ending(Protocol):
    """What the steward has its game do when a world's game ends, and asks of it (the
    game, :class:`server.game.game.Game`, does it and asks its owner)."""

    @property
    def pacing(self) -> Timed: ...

    def finish(self, player: PlayerId, final: Win | Lose, outcome: str, **context: int) -> None:
        """``player``'s game is over: told ``final``, then out of the game."""
        ...

    def evict(self, final: Bye) -> None:
        """Everyone out at once, told ``final`` (the world failed)."""
        ...

    def closing(self, reason: str) -> None:
        """The world's game ended for ``reason``: its replay and record are closed."""
        ...

    def fresh(self, opened: Opened) -> None:
        """``opened``'s world replaces the one that ended: start over in it."""
        ...

    def kept(self) -> bool:
        """Whether a fresh world replaces the one that ended (the owner decides)."""
        ...

    def gone(self, why: str) -> None:
        """The game closed by itself, for ``why`` (the owner is told)."""
        ...


class Steward:
    """Runs one game's task and its restarts; see the module docstring."""

    def __init__(
        self,
        spec: GameSpec,
        slot: WorldSlot,
        roster: Roster,
        audience: Audience,
        chronicle: Ledger,
        game: Ending,
        alarm: Alarm,
        log: Any,
    ) -> None:
        self._spec = spec
        self.slot = slot
        self._roster = roster
        self._audience = audience
        self._chronicle = chronicle
        self._game = game
        self._alarm = alarm
        self.lifecycle = Lifecycle()
        self._unjoined_deadline = math.inf
        self._log = log
        self._scope = trio.CancelScope()
        self.start_unjoined_clock()

    @property
    def state(self) -> State:
        return self.lifecycle.state

    async def run(self) -> None:
        """The game's task, until :meth:`close` (module docstring)."""
        game, audience = self._game, self._audience
        with self._scope:
            while True:
                if self.slot.building:
                    if not await self._rebuild():
                        return  # closed while the world was built
                    continue
                deadline = min(game.pacing.deadline, self._unjoined_deadline)
                soon = FLUSH_INTERVAL if not audience.behind else BEHIND_TICK
                with trio.move_on_at(min(deadline, trio.current_time() + soon)):
                    await self._alarm.wait()
                if self.slot.building:
                    continue
                now = trio.current_time()
                pacing = game.pacing
                if now >= pacing.deadline:
                    try:
                        pacing.expire(now)
                    except Exception:
                        self.crash(pacing.expiry)
                self._chronicle.flush()
                if audience.behind:
                    audience.catch_up()
                if now >= self._unjoined_deadline and self.state is State.OPEN:
                    self._unjoined_deadline = math.inf
                    why = f"nobody joined within {self._spec.unjoined_timeout:g} seconds"
                    self.lifecycle.advance(Event.UNJOINED)
                    self._stop(why)
                    self._log.info("game removed", reason=why)
                    game.gone(why)

    def start_unjoined_clock(self) -> None:
        timeout = self._spec.unjoined_timeout
        if timeout is not None:
            self._unjoined_deadline = trio.current_time() + timeout
            self._alarm.wake()

    def joined(self) -> None:
        """A player joined the world."""
        self.lifecycle.advance(Event.JOINED)
        self._unjoined_deadline = math.inf

    def close(self, reason: str) -> None:
        """Close the game for good (the server is stopping, or the lobby removed it)."""
        self.lifecycle.advance(Event.STOPPED)
        self._stop(reason)

    def _stop(self, reason: str) -> None:
        self._scope.cancel()
        self._game.closing(reason)
        self.slot.stop()

    # -- the end of a world, and the next --------------------------------------------------

    def settle(self) -> None:
        """End the world's game if it is over: everyone left, or nobody still here can
        win (then each is told ``LOSE`` and why, in join order: the way out of the 2013
        conundrum). Not while a player's action is still to be played."""
        roster = self._roster
        players = roster.players
        # After every action: the common case (players who can still win) first, cheaply.
        why = self.slot.world.unwinnable() if players else None
        if players and why is None:
            return
        if (
            self.lifecycle.state is not State.PLAYING
            or roster.departing
            or self._game.pacing.busy()
        ):
            return
        if why is None:
            self._over(Event.ALL_LEFT, "all players left")
            return
        self._log.info("game unwinnable", reason=why, players=len(players))
        final = Lose(f"{why}; the game is over")
        for player in sorted(players):
            self._game.finish(player, final, "lost")
        self._over(Event.NO_WIN_LEFT, "nobody could win any more")

    def crash(self, during: str) -> None:
        """The world raised something unexpected: log it, end the game for its players
        (``BYE``), and restart it whatever its owner would say (:meth:`Ending.kept`)."""
        self._log.exception("world failed", during=during)
        if self.state not in (State.OPEN, State.PLAYING):
            return  # over already: nothing is left to end
        self._game.evict(
            Bye(
                f"the {self._spec.world_name} game stopped because of an internal error; "
                "please reconnect"
            )
        )
        self._over(Event.WORLD_FAILED, f"the world failed during {during}", kept=True)

    def _over(self, event: Event, reason: str, *, kept: bool | None = None) -> None:
        self._game.closing(reason)
        if event is not Event.WORLD_FAILED:
            rounds = self._chronicle.round
            self._log.info("game over", rounds=rounds)
            notice = GameOver(f"{self._spec.name} is over after {rounds} rounds")
            for client in list(self._audience.watchers):
                client.push(notice)
        self._ended(event, reason, kept=kept)

    def _ended(self, event: Event, reason: str, *, kept: bool | None = None) -> None:
        """The world's game ended by ``event`` (its replay and record closed): renew the
        world if the game's owner (or ``kept``, when given) says so, else close the game."""
        self.lifecycle.advance(event)
        if not (self._game.kept() if kept is None else kept):
            self.lifecycle.advance(Event.NOT_KEPT)
            self._stop(reason)
            return
        if not self.slot.quick:
            self.lifecycle.advance(Event.REBUILDING)
            self.slot.start_building()
            self._alarm.wake()
            return
        built = self.slot.build_now()
        if built is None:
            self._give_up()
        else:
            self._install(*built)

    async def _rebuild(self) -> bool:
        """Build the fresh world and install it (or give up); ``False`` if the game was
        closed meanwhile, and nothing was installed."""
        built = await self.slot.build()
        if self.state is State.CLOSED:
            # Closed (the server stopping, the lobby removing the game) as the build
            # returned: its thread finished and this task was due to resume before the
            # cancellation could reach it. A closed game takes no world.
            return False
        if built is None:
            self._give_up()
            return True
        self._install(*built)
        self.slot.release()
        return True

    def _give_up(self) -> None:
        """No fresh world: the game goes away; what waited for it is told so."""
        self.lifecycle.advance(Event.GAVE_UP)
        name = self._spec.name
        self.slot.refuse_held(f"the game {name} could not restart; send GAMES for the others")
        self._game.gone("it could not restart")
        self._stop("the world could not be restarted")

    def _install(self, opened: Opened, kept: str | None) -> None:
        self.lifecycle.advance(Event.REBUILT)
        self.slot.install(opened, kept)
        self.start_unjoined_clock()
        self._game.fresh(opened)
