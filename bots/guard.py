"""The client every sample bot plays with: it never sends an action the server has
refused a few times on an unchanged state.

A strategy that misreads a server (an item it may not take, a square it may not enter)
would otherwise send the same command for ever: ``dod-bot-random`` sent ``PICKUP`` on
ldjb's sword 10,000 times, answered ``FAIL: Already have a sword`` each time (issue 39).
:class:`GuardedClient` counts the ``MOVE`` and ``PICKUP`` the server refused, by the state
they were refused in: the last ``LOOK``'s view, the gold held and how many actions have
succeeded since. Once one command has been refused :data:`REPEATS` times on one state,
sending it again on that state raises :class:`Stuck` instead, and the bot's runner says
``QUIT``, giving the reason. A changed view, gold or a successful action is a new state.
The count is kept for the last :data:`REMEMBERED` states only.
"""

from __future__ import annotations

import socket
from collections import OrderedDict
from collections.abc import Callable
from typing import Final, TypeVar

from clients import Client
from clients.core import DEFAULT_TIMEOUT, Request
from clients.grid import Grid
from protocol.commands import Look, Move, Pickup
from protocol.replies import Push

__all__ = ["REMEMBERED", "REPEATS", "GuardedClient", "Stuck"]

T = TypeVar("T")

REPEATS: Final = 3
"""Refusals of one command on one state after which it is not sent again there."""
REMEMBERED: Final = 256
"""States whose refusals are counted (the oldest are forgotten first)."""

_State = tuple[tuple[str, ...] | None, int, int, str]


class Stuck(Exception):
    """The strategy asked for an action the server refused :data:`REPEATS` times on this
    very state; ``str()`` says which, and what the server answered."""


class GuardedClient(Client):
    """A :class:`~clients.Client` that refuses to repeat a refused action (module docstring)."""

    def __init__(
        self,
        sock: socket.socket,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        on_push: Callable[[Push], None] | None = None,
    ) -> None:
        super().__init__(sock, timeout=timeout, on_push=on_push)
        self._view: tuple[str, ...] | None = None
        self._succeeded = 0
        self._refusals: OrderedDict[_State, int] = OrderedDict()

    def _call(self, request: Request[T]) -> T:
        command = request.command
        state: _State | None = None
        if isinstance(command, Move | Pickup):
            state = (self._view, self.gold, self._succeeded, command.to_line())
            if self._refusals.get(state, 0) >= REPEATS:
                raise Stuck(
                    f"the server refused {command.to_line()} {REPEATS} times on an unchanged "
                    "view: not sent again"
                )
        result = super()._call(request)
        if isinstance(command, Look) and isinstance(result, Grid):
            self._view = result.rows
        elif state is not None and result:
            self._succeeded += 1
        elif state is not None:
            self._refusals[state] = self._refusals.pop(state, 0) + 1
            while len(self._refusals) > REMEMBERED:
                self._refusals.popitem(last=False)
        return result
