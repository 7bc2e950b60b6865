"""The workers' directory in the parent of ``dod-server --workers N``: the :class:`Hub`
the workers reach on a Unix socket (:mod:`server.cluster.embedded` is their side).

The hub holds the games, names and secret of the cluster; each worker holds one
connection to it, says who it is, gets the others' games and names, then sends its
claims and changes and receives everyone else's as they happen (the same change
records PostgreSQL's ``NOTIFY`` carries). A worker whose connection ends is gone at
once, and its games and names with it: no heartbeat is needed on one machine. Lines
are JSON objects, one per line, at most :data:`MAX_LINE` bytes. A connection whose
first line is ``{"op": "status"}`` is answered once with every member and game, and
closed (``dod-server --cluster unix:PATH --cluster-status``); a status client that does
not take its answer within :data:`STATUS_ANSWER_TIMEOUT` seconds has its connection
ended.

What the parent may rely on: only the processes it admits (:meth:`Hub.admit`, its own
workers, known by the pid the kernel gives for the socket's other end) become members;
a node id already in use is refused; a member that leaves, is reset or sends nonsense
ends only its own connection; and a member that lets more than :data:`MEMBER_BACKLOG`
bytes of changes wait unread is cut, as a member that left (it joins again).
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import struct
import time
from collections.abc import AsyncIterator
from typing import Any, Final

import structlog
import trio

from .directory import name_keys

MAX_LINE: Final = 1 << 20
MEMBER_BACKLOG: Final = 16 << 20
"""Bytes of changes the hub holds for one member that has not read them (its first copy
aside); past it the member is cut, and the others carry on."""
STATUS_ANSWER_TIMEOUT: Final = 10.0
"""Seconds the hub gives a status client to take its answer; a client that does not
read it by then has its connection ended, so it holds none of the hub's tasks."""
log = structlog.get_logger("dungeon_of_doom.server.cluster.hub")


async def read_lines(stream: trio.abc.ReceiveStream) -> AsyncIterator[dict[str, Any]]:
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


def line_of(message: dict[str, Any]) -> bytes:
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
        self.keys: dict[str, tuple[str, str]] = {}
        """Each lookalike key of a player's name in play: its node, and the name."""
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
                    len({name for node, name in self.keys.values() if node == member.node}),
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
        line = line_of(message)
        for member in list(self.members.values()):
            if member.node != node and not member.outbox.put(line):
                self._cut(member)

    def _tell(self, member: _Member, message: dict[str, Any]) -> None:
        if not member.outbox.put(line_of(message)):
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
                messages = read_lines(stream)
                hello = await anext(messages)
                if hello.get("op") == "status":
                    with trio.move_on_after(STATUS_ANSWER_TIMEOUT) as answering:
                        await stream.send_all(line_of(self.status()))
                    if answering.cancelled_caught:
                        log.info("status client too slow", timeout=STATUS_ANSWER_TIMEOUT)
                    return  # the listener's handler closes the stream
                node = str(hello["node"])
                refusal = self._refusal(stream, node)
                if refusal is not None:
                    log.warning("directory member refused", node=node, reason=refusal)
                    with trio.move_on_after(STATUS_ANSWER_TIMEOUT):
                        await stream.send_all(line_of({"op": "refused", "why": refusal}))
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
        lines = [line_of({"op": "welcome", "secret": self.secret})]
        lines += [line_of(self._game(name)) for name in self.games]
        lines += [
            line_of({"op": "name", "name": name, "node": node})
            for node, name in set(self.keys.values())
        ]
        lines.append(line_of({"op": "copied"}))
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
        elif op == "claim_name":
            # Every key of the name is free or this node's: all become its, or none.
            keys = name_keys(name)
            won = all(self.keys.get(key, (node,))[0] == node for key in keys)
            if won:
                for key in keys:
                    if key not in self.keys:
                        self.keys[key] = (node, name)
                        self._tell_others(node, {"op": "name", "name": name, "node": node})
            self._tell(member, {"op": "name_claimed", "name": name, "ok": won})
        elif op == "unname":
            for key in message.get("keys", ()):
                holder = self.keys.get(str(key))
                if holder is not None and holder[0] == node:
                    del self.keys[str(key)]
                    self._tell_others(node, {"op": "unname", "name": holder[1], "node": node})

    def _gone(self, member: _Member) -> None:
        node = member.node
        if self.members.get(node) is not member:
            return  # gone already (cut), or never a member
        del self.members[node]
        for name in [name for name, (holder, _) in self.games.items() if holder == node]:
            del self.games[name]
            self._tell_others(node, {"op": "delete", "name": name, "node": node})
        for key, (holder, name) in [item for item in self.keys.items() if item[1][0] == node]:
            del self.keys[key]
            self._tell_others(node, {"op": "unname", "name": name, "node": holder})
        log.info("worker left the directory", node=node)
