"""A worker's side of the directory of ``dod-server --workers N``: its connection to
the :class:`~server.cluster.hub.Hub` its parent keeps (``--cluster unix:PATH``).

What a worker may rely on: it writes to its parent from one task (a claim, a barrier
and the background sync queue their lines for it), and when its connection ends (the
parent cut it, or is gone) it joins again every ``heartbeat`` seconds. The parent let
go of its games and names when the connection ended, so on joining again it claims
each back, and reports those another worker took meanwhile as lost; until then its
lease is unconfirmed (no created game and no named player is acted on). A claim is
answered within :data:`ANSWER_TIMEOUT` seconds (a parent that is stopped does not hold
a ``CREATE`` or a ``HELLO``), and one answered after its caller gave up is let go.
:func:`cluster_status` reads the hub for ``dod-server --cluster unix:PATH
--cluster-status``.
"""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

import structlog
import trio

from dungeon_of_doom.records.names import LookalikeNames

from .directory import SETTLE_TIMEOUT, LocalGames, LocalNames, name_keys
from .hub import MAX_LINE, line_of, read_lines
from .shared import SharedDirectory, describe_cluster

OUTGOING_LINES: Final = 1024
"""Lines a worker queues for its parent; a task that would queue more waits."""
CLAIMS_AT_ONCE: Final = 256
"""Claims of names in play a sync sends before it waits for their answers."""
ANSWER_TIMEOUT: Final = 3.0
"""Seconds a worker waits for its parent's answer to a claim before it gives up on it."""
JOIN_TIMEOUT: Final = 10.0
"""Seconds a worker gives its parent to answer its hello (the copy follows)."""
STATUS_TIMEOUT: Final = 10.0
"""Seconds ``--cluster-status`` waits for the parent's answer before it gives up."""
log = structlog.get_logger("dungeon_of_doom.server.cluster.embedded")


@dataclass(slots=True)
class _Claim:
    """A claim of a game's name sent to the parent, until it is answered."""

    done: trio.Event = field(default_factory=trio.Event)
    won: bool | None = None
    """The parent's answer; ``None``: none came (the connection ended first)."""
    abandoned: bool = False
    """Its caller stopped waiting (cancelled): a name won is let go."""


class EmbeddedDirectory(SharedDirectory):
    """A worker's view of its parent's :class:`Hub` (``--cluster unix:PATH``)."""

    def __init__(self, path: str, *, advertise: str | None, heartbeat: float) -> None:
        super().__init__(advertise=advertise, heartbeat=heartbeat)
        self.path = path
        self._outgoing: trio.MemorySendChannel[bytes] | None = None
        """Lines for the parent, while joined: one task writes them (:meth:`_write`)."""
        self._claims: dict[str, _Claim] = {}
        """Claims of games' names sent and not yet answered, by name."""
        self._name_claims_sent: dict[str, _Claim] = {}
        """Claims of players' names sent and not yet answered, by name."""
        self._said_unreachable = False
        self._confirmed = False
        """Whether the parent holds every claim this worker counts on (joined, and its
        claims taken back after a join that followed a lost connection)."""
        self._settled = trio.Event()
        """Set whenever :attr:`_confirmed` becomes true."""

    async def run(
        self,
        local_games: LocalGames,
        local_names: LocalNames,
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Join the parent's directory, and join it again every ``heartbeat`` seconds
        whenever the connection ends. Reports itself started after the first attempt,
        joined or not (play starts anyway; no game can be created until it joins)."""
        self._local_games, self._local_names = local_games, local_names
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            started = False
            while True:
                joined = await self._join()
                if not started:
                    started = True
                    task_status.started()
                if joined is not None:
                    await self._follow(*joined)
                await trio.sleep(self.heartbeat)

    def _unreachable_now(self, **why: str) -> None:
        self._gone_down()
        if not self._said_unreachable:
            self._said_unreachable = True
            log.warning("cluster directory unreachable", node=self.node, path=self.path, **why)

    async def _join(self) -> tuple[trio.SocketStream, AsyncIterator[dict[str, Any]]] | None:
        """A connection to the parent that has taken this node in, and the rest of its
        lines, once the local copy holds everything the parent sent; ``None`` if it
        cannot be had now."""
        try:
            stream = await trio.open_unix_socket(self.path)
        except OSError as error:
            self._unreachable_now(error=repr(error))
            return None
        hello = {
            "op": "hello",
            "node": self.node,
            "address": self.advertise or "",
            "relay": self.relay_address,
        }
        messages = read_lines(stream)
        try:
            with trio.fail_after(JOIN_TIMEOUT):  # a parent that answers sends the rest
                await stream.send_all(line_of(hello))
                welcome = await anext(messages)
            if welcome["op"] != "welcome":
                raise ValueError(f"refused: {welcome.get('why')}")
            self.secret = str(welcome["secret"])
            # The copy that follows is whole: what this node knew is forgotten.
            self._remote, self._names = {}, LookalikeNames()
            async for message in messages:
                if message["op"] == "copied":
                    break
                self._apply(json.dumps(message))
            else:
                raise trio.BrokenResourceError("the parent ended the connection")
        except (
            StopAsyncIteration,  # the parent ended the connection before answering
            trio.TooSlowError,
            trio.BrokenResourceError,
            ValueError,
            KeyError,
        ) as error:
            self._unreachable_now(error=repr(error))
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(stream)
            return None
        # The parent holds nothing of this node's now: every game and name goes back.
        self._published.clear()
        self.reachable = True
        self.copied.set()
        log.info("cluster joined", node=self.node, address=self.advertise)
        self._said_unreachable = False
        return stream, messages

    async def _follow(
        self, stream: trio.SocketStream, messages: AsyncIterator[dict[str, Any]]
    ) -> None:
        """Apply the parent's changes, answer claims and sync this node's games, until
        the connection ends; then nothing waits on it any more."""
        send, receive = trio.open_memory_channel[bytes](OUTGOING_LINES)
        self._outgoing = send
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._write, stream, receive, nursery.cancel_scope)
                nursery.start_soon(self._claim_back)
                nursery.start_soon(self._sync_forever)
                try:
                    async for message in messages:
                        if message["op"] == "claimed":
                            self._answered(self._claims, message, "drop")
                        elif message["op"] == "name_claimed":
                            self._answered(self._name_claims_sent, message, "unname")
                        else:
                            self._apply(json.dumps(message))
                except (ValueError, KeyError, TypeError, trio.BrokenResourceError):
                    pass
                nursery.cancel_scope.cancel()
        finally:
            # The parent has gone, or cut this node, and let go of its claims: until it
            # joins again and claims them back, it acts on none of them.
            self._outgoing = None
            self._confirmed = False
            self._unreachable_now()
            for waiting in (self._claims, self._name_claims_sent):
                for claim in waiting.values():
                    claim.done.set()
                waiting.clear()
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(stream)

    async def _write(
        self,
        stream: trio.SocketStream,
        lines: trio.MemoryReceiveChannel[bytes],
        connection: trio.CancelScope,
    ) -> None:
        """The one writer of ``stream``: what is queued, in order, a batch a write."""
        with lines:
            try:
                async for line in lines:
                    batch = [line]
                    while True:
                        try:
                            batch.append(lines.receive_nowait())
                        except trio.WouldBlock:
                            break
                    await stream.send_all(b"".join(batch))
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                connection.cancel()

    def lapsed(self) -> bool:
        # The parent keeps a worker's claims while its connection lasts, paused or not.
        return not (self.reachable and self._confirmed)

    async def confirm(self) -> bool:
        with trio.move_on_after(SETTLE_TIMEOUT):
            while self.lapsed():
                await self._settled.wait()
        return not self.lapsed()

    async def _claim_back(self) -> None:
        """After joining again: claim back every game and name this worker held, and
        report those another worker took meanwhile; then its lease is confirmed."""
        lost_games = []
        for name in sorted(self._claimed):
            won = await self._ask(self._claims, {"op": "claim", "name": name})
            if won is None:
                return  # the connection ended meanwhile: the next join tries again
            if not won:
                self._claimed.discard(name)
                lost_games.append(name)
        by_name: dict[str, list[str]] = {}
        for key, name in self._held_keys.items():
            by_name.setdefault(name, []).append(key)
        lost_names = []
        for name, keys in sorted(by_name.items()):
            won = await self._claim_keys(name, tuple(keys))
            if won is None:
                return
            if not won:
                self._let_go(keys)
                lost_names.append(name)
        self._confirmed = True
        self._settled.set()
        self._settled = trio.Event()
        self._tell_lost(lost_games, lost_names)
        self._wake.set()  # the games' descriptions go back now

    async def claim(self, name: str) -> str | None:
        if not self.reachable or self._outgoing is None:
            return self._unreachable()
        if name in self._remote or name in self._claims:
            return f"there is already a game called {name}"
        won = await self._ask(self._claims, {"op": "claim", "name": name})
        return self._claimed_game(name, won)

    async def _claim_keys(self, name: str, keys: tuple[str, ...]) -> bool | None:
        if not self.reachable or self._outgoing is None or name in self._name_claims_sent:
            return None
        return await self._ask(self._name_claims_sent, {"op": "claim_name", "name": name})

    async def _ask(self, waiting: dict[str, _Claim], message: dict[str, Any]) -> bool | None:
        """Send a claim and wait for its answer: whether it was won; ``None`` if none
        came within :data:`ANSWER_TIMEOUT` seconds (the parent stopped, or too busy) or
        the connection ended. A claim given up on (or whose caller was cancelled: its
        client left) is let go when its answer comes."""
        name = str(message["name"])
        claim = waiting[name] = _Claim()
        sent = False
        try:
            with trio.move_on_after(ANSWER_TIMEOUT):
                sent = await self._send(message)
                if sent:
                    await claim.done.wait()
        except BaseException:  # its CREATE was given up (its client left): so is the name
            claim.abandoned = True
            raise
        finally:
            if not sent and waiting.get(name) is claim:
                del waiting[name]  # never asked: no answer will come
        if claim.won is None:
            claim.abandoned = True  # an answer after this is let go
        return claim.won

    def _answered(self, waiting: dict[str, _Claim], message: dict[str, Any], undo: str) -> None:
        name, won = str(message["name"]), bool(message["ok"])
        claim = waiting.pop(name, None)
        if claim is None:
            return
        claim.won = won
        claim.done.set()
        if won and claim.abandoned and self._outgoing is not None:
            # Taken for a claim nobody waits for any more: let it go at once.
            undone = {"op": undo, "name": name, "keys": list(name_keys(name))}
            with contextlib.suppress(trio.WouldBlock, trio.BrokenResourceError):
                self._outgoing.send_nowait(line_of(undone))

    async def _send(self, message: dict[str, Any]) -> bool:
        """Queue ``message`` for the parent; ``False`` if there is no connection to it."""
        outgoing = self._outgoing
        if outgoing is None:
            return False
        try:
            await outgoing.send(line_of(message))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return False
        return True

    async def _barrier(self, token: str) -> None:
        await self._send({"op": "barrier", "name": token})

    async def _flushed(self) -> None:
        # The parent has the changes once it answers a barrier sent after them.
        await self.caught_up()

    async def _sync_forever(self) -> None:
        while self.reachable:
            with trio.move_on_after(self.heartbeat):
                await self._wake.wait()
            self._wake = trio.Event()
            sync = self._sync_begins()
            try:
                await self._sync()
            except Exception:  # a bug here must not take the worker's games with it
                log.exception("cluster sync failed", node=self.node)
            self._sync_done(sync)

    async def _sync(self) -> None:
        """Tell the parent what changed among this node's games and names."""
        if not self._confirmed:
            return  # its claims are being taken back: what is put now could be another's
        wanted = self._wanted()
        for name, text in wanted.items():
            if self._published.get(name, "") != text:
                await self._send({"op": "put", "name": name, "info": text})
                self._published[name] = text
        for name in self._unclaimed(self._claims):
            await self._send({"op": "drop", "name": name})
            if name not in self._claimed:
                self._published.pop(name, None)
        await self._sync_names()

    async def _sync_names(self) -> None:
        """Let go of the keys no player here needs; claim those of names in play."""
        wanted = self._wanted_keys()
        gone = sorted(key for key in self._held_keys if key not in wanted)
        if gone:
            self._let_go(gone)  # a HELLO meanwhile claims it anew, behind this
            await self._send({"op": "unname", "name": "", "keys": gone})
        lost: list[str] = []

        async def claim(name: str) -> None:
            won = await self._claim_keys(name, name_keys(name))
            if won:
                for key in name_keys(name):
                    self._held_keys[key] = name
            elif won is not None:
                lost.append(name)

        missing = self._names_to_claim()
        for start in range(0, len(missing), CLAIMS_AT_ONCE):  # answered in order, in batches
            async with trio.open_nursery() as claims:
                for name in missing[start : start + CLAIMS_AT_ONCE]:
                    claims.start_soon(claim, name)
        self._tell_lost((), lost)


def cluster_status(path: str) -> str:
    """The workers of the embedded directory on the Unix socket ``path`` and their games,
    as lines of text (``dod-server --cluster unix:PATH --cluster-status``)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(STATUS_TIMEOUT)
        sock.connect(path)
        sock.sendall(line_of({"op": "status"}))
        with sock.makefile("rb") as answer:
            status = json.loads(answer.readline(MAX_LINE + 1))
    nodes = [
        (str(node), str(address), str(relay), datetime.fromtimestamp(started, UTC), int(names))
        for node, address, relay, started, names in status["nodes"]
    ]
    games = [(str(name), str(node), info) for name, node, info in status["games"]]
    return describe_cluster(nodes, games)
