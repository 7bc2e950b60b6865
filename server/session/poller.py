"""One task serves every client that waits for input: a wake-up per batch of clients.

A client served by its own task costs, per command, one wake-up of that task by
trio's scheduler and one ``epoll_ctl`` system call to re-arm trio's one-shot
interest in its socket, on top of the read and the write. Under load that is more
than the world's own work on a ``LOOK``. A :class:`Poller` keeps its own
level-triggered ``epoll`` set of the sockets of clients that wait for input, parks
once in :func:`trio.lowlevel.wait_readable` on that set, and when it wakes handles
every client that has sent something, in three phases:

1. each one reads and handles its input (:meth:`Polled.take_input`);
2. each one's session settles what that changed (:meth:`Settles.settle`: the replay is written
   before any reply that tells of it, once for all the clients of a game);
3. each one writes its replies (:meth:`Polled.write_out`).

A client leaves the poller, and its own task takes over again (:meth:`Poller.hold`
returns), when it needs to wait for something the poller does not wait for: a
round, a full socket, the end of the connection. Its task is its owner throughout:
cancelling it (the watchdog's time limits, the server's shutdown) takes the client
out of the poller at once.

What a caller may rely on:

* Each client that is ready is read once per round (at most one receive), so one
  that keeps its socket full is served in turn with the others, and the poller
  reaches a checkpoint between rounds.
* In a round that holds ready clients of more than one address, at most
  :data:`PER_ADDRESS_A_ROUND` clients of one address (as given to :meth:`hold`) are
  read; its others that are ready wait for the next rounds, taken in turn. So one
  address flooding from many connections gets the rounds' work of a few while a
  player on another address is ready, and that player is served in the round. A
  round of one address's clients only is read whole: behind a proxy every player
  has its address.
* An exception raised by a client's methods is raised in that client's own task
  (from :meth:`hold`), as if that task had called the method; the poller and the
  other clients go on.
* When the poller stops, every client it holds is handed back (``hold`` returns
  ``False``) and is served by its own task from then on.

Only Linux has ``epoll``; elsewhere :func:`Poller.available` is false and each
client's task waits for its own socket.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import select
from collections.abc import Callable
from typing import Any, Final, Protocol

import outcome
import trio

_READY_AT_ONCE: Final = 1024
"""Clients handled in one round at most; more wait for the next (after a checkpoint)."""
PER_ADDRESS_A_ROUND: Final = 4
"""Clients of one address read in one round at most (a player has one connection)."""


class Settles(Protocol):
    """A client's session, as the poller settles it."""

    def settle(self) -> None:
        """Make lasting what handling the input changed, before any reply is written."""


class Polled(Protocol):
    """A client the poller can serve: its transport, waiting for input."""

    @property
    def session(self) -> Settles:
        """What the client's input means: settled once every ready client has handled its."""
        ...

    def take_input(self) -> bool:
        """Read what the socket has and handle it; ``False`` to leave the poller."""

    def write_out(self) -> bool:
        """Write the replies without waiting; ``False`` to leave the poller."""


class Poller:
    """Serves the clients it holds from one task; see the module docstring."""

    def __init__(self) -> None:
        self._epoll: Any = None  # select.epoll while running (absent off Linux)
        self._held: dict[int, tuple[Polled, trio.lowlevel.Task]] = {}
        self._address: dict[int, str] = {}  # of the held clients that gave one
        self._turn: dict[str, int] = {}  # where each busy address's clients resume
        # Held clients by address (None: those that gave none). With one entry, no
        # round can hold clients of two addresses, and none needs sharing out.
        self._parties: collections.Counter[str | None] = collections.Counter()
        self.rounds = 0
        """Rounds served so far (wake-ups that found at least one client ready)."""

    @staticmethod
    def available() -> bool:
        """Whether this system has what the poller needs (``epoll``)."""
        return hasattr(select, "epoll")

    @property
    def running(self) -> bool:
        """Whether :meth:`hold` serves clients now (between :meth:`run`'s start and end)."""
        return self._epoll is not None

    async def hold(self, client: Polled, fd: int, address: str | None = None) -> bool:
        """Serve ``client`` (whose socket is ``fd``) until it leaves the poller.

        The clients of one ``address`` share :data:`PER_ADDRESS_A_ROUND`.

        Returns ``True`` when the client left because one of its methods said so, and
        ``False`` when the poller is not running or stopped: the caller serves the
        client itself from then on. A method's exception is raised here.
        """
        abort = self.admit(client, fd, address)
        if abort is None:
            return False
        left: bool = await trio.lowlevel.wait_task_rescheduled(abort)
        return left

    def admit(
        self, client: Polled, fd: int, address: str | None = None
    ) -> Callable[[trio.lowlevel.RaiseCancelT], trio.lowlevel.Abort] | None:
        """:meth:`hold` in two halves, for a caller that awaits in its own frame (one
        coroutine frame less for every idle client): takes ``client`` in for the calling
        task, which must then at once ``await trio.lowlevel.wait_task_rescheduled(abort)``
        with the ``abort`` returned, and gets what :meth:`hold` would return. ``None``
        (nothing taken in) when the poller is not running: :meth:`hold` returns ``False``.
        """
        epoll = self._epoll
        if epoll is None:
            return None
        epoll.register(fd, select.EPOLLIN)
        self._held[fd] = (client, trio.lowlevel.current_task())
        if address is not None:
            self._address[fd] = address
        self._parties[address] += 1
        return functools.partial(self._abort, fd)

    def _abort(self, fd: int, _: trio.lowlevel.RaiseCancelT) -> trio.lowlevel.Abort:
        """The held task of ``fd`` is cancelled: it leaves the poller at once."""
        self._release(fd)
        return trio.lowlevel.Abort.SUCCEEDED

    def _release(self, fd: int) -> trio.lowlevel.Task | None:
        """Take ``fd``'s client out of the poller; its task, if it was still held."""
        held = self._held.pop(fd, None)
        address = self._address.pop(fd, None)
        if held is None:
            return None
        parties = self._parties
        parties[address] -= 1
        if not parties[address]:
            del parties[address]
        if self._epoll is not None:
            with contextlib.suppress(OSError):  # a closed descriptor has left epoll already
                self._epoll.unregister(fd)
        return held[1]

    def _hand_back(self, fd: int, result: outcome.Outcome[bool]) -> None:
        task = self._release(fd)
        if task is not None:
            trio.lowlevel.reschedule(task, result)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Serve held clients until cancelled; reports itself to ``nursery.start``."""
        epoll = select.epoll()
        self._epoll = epoll
        try:
            task_status.started()
            fileno = epoll.fileno()
            while True:
                await trio.lowlevel.wait_readable(fileno)
                ready = epoll.poll(0, _READY_AT_ONCE)
                if self._turn or len(self._parties) > 1:
                    # Clients of more than one address are held (or one is owed its
                    # turn): the round is shared out between them.
                    ready = self._fair(ready)
                self._serve(ready)
        finally:
            self._epoll = None
            self._address.clear()
            self._parties.clear()
            self._turn.clear()
            for fd in list(self._held):
                task = self._held.pop(fd)[1]
                trio.lowlevel.reschedule(task, outcome.Value(False))
            epoll.close()

    def _fair(self, ready: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """``ready`` with at most :data:`PER_ADDRESS_A_ROUND` clients of each address;
        an address's clients take turns over the rounds (epoll keeps reporting the
        ones left out, being level-triggered)."""
        if len(ready) <= PER_ADDRESS_A_ROUND and not self._turn:
            return ready  # no address can have more than its share
        addresses = self._address
        by_address: dict[str, list[tuple[int, int]]] = {}
        served: list[tuple[int, int]] = []
        for event in ready:
            address = addresses.get(event[0])
            if address is None:
                served.append(event)
            else:
                by_address.setdefault(address, []).append(event)
        if len(by_address) + bool(served) < 2:
            # Nobody else to be fair to: the round is read whole. Behind a proxy every
            # player has the proxy's address, and four a round would starve them all.
            self._turn = {}
            return ready
        # Only the addresses over their share this round keep a turn: one whose clients
        # are gone (or have nothing more to read) leaves no entry behind.
        last_turn, turn = self._turn, {}
        for address, events in by_address.items():
            if len(events) <= PER_ADDRESS_A_ROUND:
                served += events
                continue
            start = last_turn.get(address, 0) % len(events)
            chosen = (events + events)[start : start + PER_ADDRESS_A_ROUND]
            served += chosen
            turn[address] = start + PER_ADDRESS_A_ROUND
        self._turn = turn
        return served

    def _serve(self, ready: list[tuple[int, int]]) -> None:
        """One round: read and handle, settle, write (module docstring)."""
        if not ready:
            return
        self.rounds += 1
        held = self._held
        handled: list[tuple[int, Polled, bool]] = []
        for fd, _ in ready:
            entry = held.get(fd)
            if entry is None:  # left during this round (another client closed it)
                continue
            client = entry[0]
            try:
                handled.append((fd, client, client.take_input()))
            except Exception as error:
                self._hand_back(fd, outcome.Error(error))
        for fd, client, _ in handled:
            # Even a client that has left since: no reply goes out before the replay.
            try:
                client.session.settle()
            except Exception as error:
                self._hand_back(fd, outcome.Error(error))
        for fd, client, stays in handled:
            if fd not in held:
                continue  # its own task writes what it has
            try:
                # A client that leaves writes what it can here all the same: its task
                # then finds less (often nothing) to wait for.
                stays = client.write_out() and stays
            except Exception as error:
                self._hand_back(fd, outcome.Error(error))
                continue
            if not stays:
                self._hand_back(fd, outcome.Value(True))
