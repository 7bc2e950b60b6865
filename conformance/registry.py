"""Checks, the lists that hold them, and the context a check runs in.

A check is an async function taking a :class:`Context`, registered with
:meth:`Checklist.add` under a stable id (``look.corners``), the clause of the
specification it tests (``§4.4 LOOK; docs/protocol.md (LOOK)``) and a one-line title. A check
opens its connections with :meth:`Context.connect`; they are closed when the
check ends, however it ends.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from types import TracebackType
from typing import Final

import trio

from .config import Connector, SuiteConfig
from .dialects import welcome
from .results import CheckFailed, Event, NotJudged
from .session import Session, Stalls, describe
from .transcript import Transcript

__all__ = ["Check", "Checklist", "Context", "RunState"]

CheckFunction = Callable[["Context"], Awaitable[None]]

RECONNECT_PAUSE: Final = 0.05
"""Seconds between attempts to connect again to a server that refused a connection."""


@dataclass(frozen=True, slots=True)
class Check:
    id: str
    clause: str
    title: str
    function: CheckFunction
    extension: bool = False


class Checklist:
    """An ordered list of checks; ``@checklist.add(...)`` registers one."""

    def __init__(self, *, extension: bool = False) -> None:
        self._checks: list[Check] = []
        self._extension = extension

    def add(
        self, check_id: str, clause: str, title: str
    ) -> Callable[[CheckFunction], CheckFunction]:
        def register(function: CheckFunction) -> CheckFunction:
            if any(check.id == check_id for check in self._checks):
                raise ValueError(f"duplicate check id {check_id!r}")
            self._checks.append(Check(check_id, clause, title, function, self._extension))
            return function

        return register

    def __iter__(self) -> Iterator[Check]:
        return iter(self._checks)


@dataclass(slots=True)
class RunState:
    """What the checks of one run share."""

    heard_from_server: bool = False
    """Whether the server has ever sent a byte."""
    quit_closes: bool = True
    """False once a QUIT has left a connection open: then no check waits for that again."""
    greeting: list[str] | None = None
    """What the server sent on connect before any command (``None`` until a connection
    has shown it): every later connection reads as many lines before its first command."""
    dialect: str = "2013"
    """The dialect the run judges (``--dialect``, or the one recognised with ``auto``)."""
    stalls: Stalls = field(default_factory=Stalls)
    """What the server left unanswered earlier in the run (every session shares it)."""


class Context:
    """What a running check may use; an async context manager that closes its sessions."""

    def __init__(self, connector: Connector, config: SuiteConfig, state: RunState) -> None:
        self.config = config
        self.state = state
        self.warnings: list[str] = []
        self.transcript = Transcript(trio.current_time)
        """Every byte the check's connections sent and received (the reports show it)."""
        self._connector = connector
        self._sessions: list[Session] = []

    async def connect(self, name: str = "client") -> Session:
        """A new connection to the server, closed when the check ends.

        A server may close a new connection at once, greeting it with a refusal
        (``Connection refused. Address already connected``: one connection per
        address). While the check has no other connection open, the connection
        that just closed may not have left the server yet: the suite connects again
        until the timeout. With another connection of the check open, or still
        refused at the timeout, the check is not judged (:class:`NotJudged`, quoting
        the refusal)."""
        deadline = trio.current_time() + self.config.timeout
        while True:
            session = await self._open(name)
            if (
                session.told_of_others
                and self.state.dialect != "2013"
                and trio.current_time() < deadline
            ):
                # Told of a connection that left after this one joined (the last
                # check's, still leaving), which can break it: zss falls silent on it.
                await session.aclose()
                self._sessions.remove(session)
                await trio.sleep(RECONNECT_PAUSE)
                continue
            if not session.closed or session.greeting == self.state.greeting:
                break
            refusal = describe(session.greeting)
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await session.aclose()
            self._sessions.remove(session)
            open_here = [other.name for other in self._sessions if not other.closed]
            if open_here or trio.current_time() >= deadline:
                why = (
                    f"while {', '.join(open_here)} was connected: it takes one connection "
                    "per address"
                    if open_here
                    else f"for {self.config.timeout:g} s"
                )
                raise NotJudged(
                    f"could not judge: the server closed a new connection ({name}) at once, "
                    f"saying {refusal}, {why}"
                )
            await trio.sleep(RECONNECT_PAUSE)
        if self.state.greeting is None:
            self.state.greeting = session.greeting
        return session

    async def _open(self, name: str) -> Session:
        with trio.move_on_after(self.config.timeout) as scope:
            try:
                stream = await self._connector()
            except OSError as error:
                raise CheckFailed(f"{name}: could not connect: {error}") from error
        if scope.cancelled_caught:
            raise CheckFailed(f"{name}: could not connect within {self.config.timeout:g} s")
        self.transcript.record(name, Event.CONNECTED)
        session = Session(
            stream,
            name=name,
            timeout=self.config.timeout,
            drift=self.drift,
            dialect=self.state.dialect,
            turn_wait=self.config.turn_wait,
            stalls=self.state.stalls,
            record=partial(self.transcript.record, name),
        )
        self._sessions.append(session)
        # What the dialect says on connect is owed to every connection, however late it
        # comes (mbk's JVM greets 0.1-0.3 s after accepting): else it answers the first
        # command, and the refusal of a second connection per address is not seen.
        owed = welcome(self.state.dialect)
        await session.take_greeting(owed or self.state.greeting, self.config.greeting_wait)
        return session

    def drift(self, tolerance: str, detail: str) -> None:
        """Known drift: a warning if the level allows ``tolerance``, else a failure."""
        if not self.config.strictness.allows(tolerance):
            raise CheckFailed(f"{detail} (drift '{tolerance}', not allowed at this level)")
        warning = f"{tolerance}: {detail}"
        if warning not in self.warnings:
            self.warnings.append(warning)

    async def __aenter__(self) -> Context:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        # Shielded (each close is bounded) so that a check cancelled by its time
        # limit still closes every connection it opened.
        with trio.CancelScope(shield=True):
            for session in self._sessions:
                self.state.heard_from_server |= session.received_any
                if session.received_any and self.state.quit_closes and not session.unnamed:
                    self.state.quit_closes = await session.leave()
                elif session.received_any:
                    # QUIT all the same, unwaited: a server that keeps the connection open
                    # after it may still take the player off the map (lib leaves the
                    # player of a connection closed without QUIT as a ghost). A connection
                    # whose naming HELLO went unanswered has no player to take off, and
                    # its server no answer to give: its close is not waited for either.
                    await session.say_quit()
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await session.aclose()
