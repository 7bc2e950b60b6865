"""The directory ``dod-server --workers N`` keeps in its parent process when no
PostgreSQL is given: the workers reach it on a Unix socket (``--cluster unix:PATH``).

The parent's :class:`Hub` holds the games, names and secret of the cluster; each worker
holds one connection to it, says who it is, gets the others' games and names, then
sends its claims and changes and receives everyone else's as they happen (the same
change records PostgreSQL's ``NOTIFY`` carries). A worker whose connection ends is
gone at once, and its games and names with it: no heartbeat is needed on one machine.
Lines are JSON objects, one per line, at most :data:`MAX_LINE` bytes. A connection whose
first line is ``{"op": "status"}`` is answered once with every member and game, and
closed (:func:`cluster_status`, for ``dod-server --cluster unix:PATH --cluster-status``);
a status client that does not take its answer within :data:`STATUS_ANSWER_TIMEOUT`
seconds has its connection ended.

What the parent may rely on: only the processes it admits (:meth:`Hub.admit`, its own
workers, known by the pid the kernel gives for the socket's other end) become members;
a node id already in use is refused; a member that leaves, is reset or sends nonsense
ends only its own connection; and a member that lets more than :data:`MEMBER_BACKLOG`
bytes of changes wait unread is cut, as a member that left. What a worker may rely on:
it writes to its parent from one task (a claim, a barrier and the background sync
queue their lines for it), and when its connection ends it joins again every
``heartbeat`` seconds, putting its games and names back.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import struct
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any, Final

import structlog
import trio

from records.names import LookalikeNames

from .directory import LocalGames, LocalNames
from .shared import SharedDirectory, describe_cluster

MAX_LINE: Final = 1 << 20
MEMBER_BACKLOG: Final = 16 << 20
"""Bytes of changes the hub holds for one member that has not read them (its first copy
aside); past it the member is cut, and the others carry on."""
OUTGOING_LINES: Final = 1024
"""Lines a worker queues for its parent; a task that would queue more waits."""
JOIN_TIMEOUT: Final = 10.0
"""Seconds a worker gives its parent to answer its hello (the copy follows)."""
STATUS_TIMEOUT: Final = 10.0
"""Seconds ``--cluster-status`` waits for the parent's answer before it gives up."""
STATUS_ANSWER_TIMEOUT: Final = 10.0
"""Seconds the hub gives a status client to take its answer; a client that does not
read it by then has its connection ended, so it holds none of the hub's tasks."""
log = structlog.get_logger("server.cluster.embedded")


async def _lines(stream: trio.abc.ReceiveStream) -> AsyncIterator[dict[str, Any]]:
    """The JSON objects ``stream`` carries, one a line, until it ends."""
    buffer = bytearray()
    while True:
        end = buffer.find(b"\n")
        while end < 0:
            if len(buffer) > MAX_LINE:
                raise ValueError("a directory line is too long")
            data = await stream.receive_some(65536)
            if not data:
                return
            buffer += data
            end = buffer.find(b"\n")
        line = bytes(buffer[:end])
        del buffer[: end + 1]
        message = json.loads(line)
        if not isinstance(message, dict):  # its readers look its fields up by name
            raise ValueError("a directory line is not a JSON object")
        yield message


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _peer_pid(stream: trio.SocketStream) -> int:
    """The pid of the process that connected ``stream`` (the kernel's ``SO_PEERCRED``)."""
    credentials = stream.socket.getsockopt(
        socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")
    )
    return int(struct.unpack("3i", credentials)[0])


class _Outbox:
    """The lines waiting for one member, written by one task (:meth:`take`)."""

    def __init__(self) -> None:
        self._lines: list[bytes] = []
        self._counted = 0
        self._waiting = trio.Event()

    def put(self, line: bytes, *, counted: bool = True) -> bool:
        """Queue ``line``; ``False`` (and nothing queued) if it would take the lines
        waiting past :data:`MEMBER_BACKLOG` bytes (uncounted lines are not held to it)."""
        if counted:
            if self._counted + len(line) > MEMBER_BACKLOG:
                return False
            self._counted += len(line)
        self._lines.append(line)
        self._waiting.set()
        return True

    async def take(self) -> bytes:
        """Every line waiting, once there is one."""
        await self._waiting.wait()
        lines, self._lines, self._counted = self._lines, [], 0
        self._waiting = trio.Event()
        return b"".join(lines)


class _Member:
    def __init__(self, node: str, address: str, relay: str, scope: trio.CancelScope) -> None:
        self.node, self.address, self.relay = node, address, relay
        self.started = time.time()
        self.outbox = _Outbox()
        self.scope = scope
        """Its connection's: cancelled when it is cut."""


_MEMBER_GONE = (
    ValueError,  # a line that is not JSON, or too long
    KeyError,  # a line without a field it needs
    TypeError,  # a field of the wrong kind
    StopAsyncIteration,  # the connection ended before its hello
    trio.BrokenResourceError,  # reset, or ended while written to
    trio.ClosedResourceError,
)
"""What ends one member's connection without a word: it went, or spoke nonsense."""


class Hub:
    """The parent's directory; :meth:`serve` runs it on a Unix socket until cancelled."""

    def __init__(self) -> None:
        self.secret = secrets.token_hex(32)
        self.members: dict[str, _Member] = {}
        self.games: dict[str, tuple[str, str | None]] = {}
        self.names: set[tuple[str, str]] = set()
        self._admitted: set[int] = set()
        """The pids that may become members (the parent's workers). Changed from the
        parent's thread, read from the hub's: one set operation at a time is atomic."""

    def admit(self, pid: int) -> None:
        """Let process ``pid`` (a worker this process started) become a member."""
        self._admitted.add(pid)

    def forget(self, pid: int) -> None:
        """Process ``pid`` has exited: a process given its pid later is not a member."""
        self._admitted.discard(pid)

    async def serve(
        self, path: str, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        sock = trio.socket.socket(trio.socket.AF_UNIX, trio.socket.SOCK_STREAM)
        await sock.bind(path)
        os.chmod(path, 0o600)  # the workers run as the parent's user; nobody else
        sock.listen(64)
        task_status.started()
        await trio.serve_listeners(self._member, [trio.SocketListener(sock)])

    def status(self) -> dict[str, Any]:
        """Every member (oldest first) and game, for ``--cluster-status``."""
        members = sorted(self.members.values(), key=lambda member: member.started)
        return {
            "op": "status",
            "nodes": [
                [
                    member.node,
                    member.address,
                    member.relay,
                    member.started,
                    sum(1 for _, node in self.names if node == member.node),
                ]
                for member in members
            ],
            "games": [[name, node, info] for name, (node, info) in sorted(self.games.items())],
        }

    def _game(self, name: str) -> dict[str, Any]:
        node, info = self.games[name]
        member = self.members[node]
        return {
            "op": "put",
            "name": name,
            "node": node,
            "info": info,
            "address": member.address,
            "relay": member.relay,
        }

    def _tell_others(self, node: str, message: dict[str, Any]) -> None:
        line = _line(message)
        for member in list(self.members.values()):
            if member.node != node and not member.outbox.put(line):
                self._cut(member)

    def _tell(self, member: _Member, message: dict[str, Any]) -> None:
        if not member.outbox.put(_line(message)):
            self._cut(member)

    def _cut(self, member: _Member) -> None:
        """``member`` reads too slowly: it is gone, as if it had left (it joins again)."""
        if self.members.get(member.node) is member:
            log.warning("worker too slow for the directory, cut", node=member.node)
            member.scope.cancel()
            self._gone(member)

    async def _member(self, stream: trio.SocketStream) -> None:
        member: _Member | None = None
        try:
            with trio.CancelScope() as scope:
                messages = _lines(stream)
                hello = await anext(messages)
                if hello.get("op") == "status":
                    with trio.move_on_after(STATUS_ANSWER_TIMEOUT) as answering:
                        await stream.send_all(_line(self.status()))
                    if answering.cancelled_caught:
                        log.info("status client too slow", timeout=STATUS_ANSWER_TIMEOUT)
                    return  # the listener's handler closes the stream
                node = str(hello["node"])
                refusal = self._refusal(stream, node)
                if refusal is not None:
                    log.warning("directory member refused", node=node, reason=refusal)
                    with trio.move_on_after(STATUS_ANSWER_TIMEOUT):
                        await stream.send_all(_line({"op": "refused", "why": refusal}))
                    return
                member = _Member(node, str(hello["address"]), str(hello["relay"]), scope)
                self.members[node] = member
                member.outbox.put(self._copy(), counted=False)
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._write, stream, member)
                    async for message in messages:
                        self._handle(member, message)
                    nursery.cancel_scope.cancel()
        except* _MEMBER_GONE:
            pass  # this member's connection ends; every other goes on
        except* Exception:
            log.exception("directory member failed", node=member and member.node)
        finally:
            if member is not None:
                self._gone(member)

    def _refusal(self, stream: trio.SocketStream, node: str) -> str | None:
        """Why the process at the other end of ``stream`` may not join as ``node``."""
        pid = _peer_pid(stream)
        if pid not in self._admitted:
            return f"process {pid} is not a worker of this directory's parent"
        if node in self.members:
            return f"node id {node} is a member already"
        return None

    def _copy(self) -> bytes:
        """What a new member is sent first: the secret, then every game and name."""
        lines = [_line({"op": "welcome", "secret": self.secret})]
        lines += [_line(self._game(name)) for name in self.games]
        lines += [_line({"op": "name", "name": name, "node": node}) for name, node in self.names]
        lines.append(_line({"op": "copied"}))
        return b"".join(lines)

    async def _write(self, stream: trio.SocketStream, member: _Member) -> None:
        while True:
            await stream.send_all(await member.outbox.take())

    def _handle(self, member: _Member, message: dict[str, Any]) -> None:
        if self.members.get(member.node) is not member:
            return  # cut: what it still had buffered is not its to change
        op, name, node = message["op"], str(message["name"]), member.node
        if op == "barrier":
            # Answered behind every change told to this member so far (one queue each).
            self._tell(member, {"op": "barrier", "name": name, "node": node})
        elif op == "claim":
            won = name not in self.games
            if won:
                self.games[name] = (node, None)
                self._tell_others(node, self._game(name))
            self._tell(member, {"op": "claimed", "name": name, "ok": won})
        elif op == "put" and self.games.get(name, (node,))[0] == node:
            self.games[name] = (node, message.get("info"))
            self._tell_others(node, self._game(name))
        elif op == "drop" and self.games.get(name, ("",))[0] == node:
            del self.games[name]
            self._tell_others(node, {"op": "delete", "name": name, "node": node})
        elif op in ("name", "unname"):
            (self.names.add if op == "name" else self.names.discard)((name, node))
            self._tell_others(node, {"op": op, "name": name, "node": node})

    def _gone(self, member: _Member) -> None:
        node = member.node
        if self.members.get(node) is not member:
            return  # gone already (cut), or never a member
        del self.members[node]
        for name in [name for name, (holder, _) in self.games.items() if holder == node]:
            del self.games[name]
            self._tell_others(node, {"op": "delete", "name": name, "node": node})
        for name, holder in [pair for pair in self.names if pair[1] == node]:
            self.names.discard((name, holder))
            self._tell_others(node, {"op": "unname", "name": name, "node": node})
        log.info("worker left the directory", node=node)


class EmbeddedDirectory(SharedDirectory):
    """A worker's view of its parent's :class:`Hub` (``--cluster unix:PATH``)."""

    def __init__(self, path: str, *, advertise: str | None, heartbeat: float) -> None:
        super().__init__(advertise=advertise, heartbeat=heartbeat)
        self.path = path
        self._outgoing: trio.MemorySendChannel[bytes] | None = None
        """Lines for the parent, while joined: one task writes them (:meth:`_write`)."""
        self._claims: dict[str, tuple[trio.Event, list[bool]]] = {}
        self._published: dict[str, str | None] = {}
        self._published_names: set[str] = set()
        self._said_unreachable = False

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
        messages = _lines(stream)
        try:
            with trio.fail_after(JOIN_TIMEOUT):  # a parent that answers sends the rest
                await stream.send_all(_line(hello))
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
        except StopAsyncIteration:
            self._unreachable_now(error="the parent ended the connection")
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(stream)
            return None
        except (trio.TooSlowError, trio.BrokenResourceError, ValueError, KeyError) as error:
            self._unreachable_now(error=str(error))
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(stream)
            return None
        # The parent holds nothing of this node's now: every game and name goes back.
        self._published.clear()
        self._published_names.clear()
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
                nursery.start_soon(self._sync_forever)
                try:
                    async for message in messages:
                        if message["op"] == "claimed":
                            done, result = self._claims.pop(str(message["name"]))
                            result.append(bool(message["ok"]))
                            done.set()
                        else:
                            self._apply(json.dumps(message))
                except (ValueError, KeyError, TypeError, trio.BrokenResourceError):
                    pass
                nursery.cancel_scope.cancel()
        finally:
            # The parent has gone, or cut this node: games here play on, and no game
            # can be created until it joins again.
            self._outgoing = None
            self._unreachable_now()
            for done, _ in self._claims.values():
                done.set()
            self._claims.clear()
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

    async def claim(self, name: str) -> str | None:
        if not self.reachable or self._outgoing is None:
            return self._unreachable()
        if name in self._remote or name in self._claims:
            return f"there is already a game called {name}"
        done, result = self._claims[name] = (trio.Event(), [])
        if not await self._send({"op": "claim", "name": name}):
            self._claims.pop(name, None)
            return self._unreachable()
        await done.wait()
        if not result:
            return self._unreachable()
        if not result[0]:
            return f"there is already a game called {name}"
        self._claimed.add(name)
        self._published[name] = None
        return None

    async def _send(self, message: dict[str, Any]) -> bool:
        """Queue ``message`` for the parent; ``False`` if there is no connection to it."""
        outgoing = self._outgoing
        if outgoing is None:
            return False
        try:
            await outgoing.send(_line(message))
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
        wanted = self._wanted()
        for name, text in wanted.items():
            if self._published.get(name, "") != text:
                await self._send({"op": "put", "name": name, "info": text})
                self._published[name] = text
        for name in [name for name in self._published if name not in wanted]:
            await self._send({"op": "drop", "name": name})
            del self._published[name]
        names = set(self._local_names())
        for name in names - self._published_names:
            await self._send({"op": "name", "name": name})
        for name in self._published_names - names:
            await self._send({"op": "unname", "name": name})
        self._published_names = names


def cluster_status(path: str) -> str:
    """The workers of the embedded directory on the Unix socket ``path`` and their games,
    as lines of text (``dod-server --cluster unix:PATH --cluster-status``)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(STATUS_TIMEOUT)
        sock.connect(path)
        sock.sendall(_line({"op": "status"}))
        with sock.makefile("rb") as answer:
            status = json.loads(answer.readline(MAX_LINE + 1))
    nodes = [
        (str(node), str(address), str(relay), datetime.fromtimestamp(started, UTC), int(names))
        for node, address, relay, started, names in status["nodes"]
    ]
    games = [(str(name), str(node), info) for name, node, info in status["games"]]
    return describe_cluster(nodes, games)
