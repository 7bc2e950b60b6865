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
"""

from __future__ import annotations

import json
import math
import os
import secrets
import socket
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any, Final

import structlog
import trio

from .directory import LocalGames, LocalNames
from .shared import SharedDirectory, describe_cluster, name_keys

MAX_LINE: Final = 1 << 20
ANSWER_TIMEOUT: Final = 3.0
"""Seconds a worker waits for the parent's answer to a claim before it gives up (the
parent stopped or too busy); a claim answered later is let go at once."""
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


class _Member:
    def __init__(self, node: str, address: str, relay: str) -> None:
        self.node, self.address, self.relay = node, address, relay
        self.started = time.time()
        self.outbox, self.inbox = trio.open_memory_channel[bytes](math.inf)


class Hub:
    """The parent's directory; :meth:`serve` runs it on a Unix socket until cancelled."""

    def __init__(self) -> None:
        self.secret = secrets.token_hex(32)
        self.members: dict[str, _Member] = {}
        self.games: dict[str, tuple[str, str | None]] = {}
        self.keys: dict[str, tuple[str, str]] = {}
        """Each lookalike key of a player's name in play: its node, and the name."""

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
        line = _line(message)
        for member in self.members.values():
            if member.node != node:
                member.outbox.send_nowait(line)

    async def _member(self, stream: trio.SocketStream) -> None:
        messages = _lines(stream)
        member: _Member | None = None
        try:
            hello = await anext(messages)
            if hello.get("op") == "status":
                with trio.move_on_after(STATUS_ANSWER_TIMEOUT) as answering:
                    await stream.send_all(_line(self.status()))
                if answering.cancelled_caught:
                    log.info("status client too slow", timeout=STATUS_ANSWER_TIMEOUT)
                return  # the listener's handler closes the stream
            member = _Member(str(hello["node"]), str(hello["address"]), str(hello["relay"]))
            self.members[member.node] = member
            member.outbox.send_nowait(_line({"op": "welcome", "secret": self.secret}))
            for name in self.games:
                member.outbox.send_nowait(_line(self._game(name)))
            for node, name in set(self.keys.values()):
                member.outbox.send_nowait(_line({"op": "name", "name": name, "node": node}))
            member.outbox.send_nowait(_line({"op": "copied"}))
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._write, stream, member)
                async for message in messages:
                    self._handle(member, message)
                nursery.cancel_scope.cancel()
        except (ValueError, KeyError, TypeError, StopAsyncIteration, trio.BrokenResourceError):
            pass
        finally:
            if member is not None:
                self._gone(member)

    async def _write(self, stream: trio.SocketStream, member: _Member) -> None:
        async for line in member.inbox:
            await stream.send_all(line)

    def _handle(self, member: _Member, message: dict[str, Any]) -> None:
        op, name, node = message["op"], str(message["name"]), member.node
        if op == "barrier":
            # Answered behind every change told to this member so far (one queue each).
            member.outbox.send_nowait(_line({"op": "barrier", "name": name, "node": node}))
        elif op == "claim":
            won = name not in self.games
            if won:
                self.games[name] = (node, None)
                self._tell_others(node, self._game(name))
            member.outbox.send_nowait(_line({"op": "claimed", "name": name, "ok": won}))
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
            member.outbox.send_nowait(_line({"op": "name_claimed", "name": name, "ok": won}))
        elif op == "unname":
            for key in message.get("keys", ()):
                holder = self.keys.get(str(key))
                if holder is not None and holder[0] == node:
                    del self.keys[str(key)]
                    self._tell_others(node, {"op": "unname", "name": holder[1], "node": node})

    def _gone(self, member: _Member) -> None:
        node = member.node
        if self.members.get(node) is member:
            del self.members[node]
        for name in [name for name, (holder, _) in self.games.items() if holder == node]:
            del self.games[name]
            self._tell_others(node, {"op": "delete", "name": name, "node": node})
        for key, (holder, name) in [item for item in self.keys.items() if item[1][0] == node]:
            del self.keys[key]
            self._tell_others(node, {"op": "unname", "name": name, "node": holder})
        log.info("worker left the directory", node=node)


class EmbeddedDirectory(SharedDirectory):
    """A worker's view of its parent's :class:`Hub` (``--cluster unix:PATH``)."""

    def __init__(self, path: str, *, advertise: str | None, heartbeat: float) -> None:
        super().__init__(advertise=advertise, heartbeat=heartbeat)
        self.path = path
        self._stream: trio.SocketStream | None = None
        self._claims: dict[str, tuple[trio.Event, list[bool]]] = {}
        self._name_answers: dict[str, tuple[trio.Event, list[bool]]] = {}
        self._published: dict[str, str | None] = {}
        self._sending = trio.Lock()
        """One writer at a time on the parent's socket (trio allows no more)."""

    async def run(
        self,
        local_games: LocalGames,
        local_names: LocalNames,
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        self._local_games, self._local_names = local_games, local_names
        try:
            stream = await trio.open_unix_socket(self.path)
        except OSError as error:
            log.warning("cluster directory unreachable", path=self.path, error=repr(error))
            task_status.started()  # play starts anyway; no game can be created
            await trio.sleep_forever()
        self._stream = stream
        await stream.send_all(
            _line(
                {
                    "op": "hello",
                    "node": self.node,
                    "address": self.advertise or "",
                    "relay": self.relay_address,
                }
            )
        )
        messages = _lines(stream)
        async for message in messages:
            if message["op"] == "welcome":
                self.secret = str(message["secret"])
            elif message["op"] == "copied":
                break
            else:
                self._apply(json.dumps(message))
        self.reachable = True
        self.copied.set()
        log.info("cluster joined", node=self.node, address=self.advertise)
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            task_status.started()
            nursery.start_soon(self._sync_forever)
            try:
                async for message in messages:
                    if message["op"] == "claimed":
                        await self._answered(self._claims, message, "drop")
                    elif message["op"] == "name_claimed":
                        await self._answered(self._name_answers, message, "unname")
                    else:
                        self._apply(json.dumps(message))
            except (ValueError, trio.BrokenResourceError):
                pass
            # The parent has gone, and with it every claim of this node's: another worker
            # may be given them. Games here play on, but none that another may hold.
            self._gone_down()
            log.warning("cluster directory unreachable", node=self.node)
            for waiting in (self._claims, self._name_answers):
                for done, _ in waiting.values():
                    done.set()
            lost_games, lost_names = set(self._claimed), set(self._held_keys.values())
            self._claimed.clear()
            self._held_keys.clear()
            self._tell_lost(lost_games, lost_names)
            await trio.sleep_forever()

    async def _answered(
        self,
        waiting: dict[str, tuple[trio.Event, list[bool]]],
        message: dict[str, Any],
        undo: str,
    ) -> None:
        """The parent's answer to a claim: to its waiter, or, when the waiter gave up on
        it (:data:`ANSWER_TIMEOUT`), let go at once if it was won."""
        name, won = str(message["name"]), bool(message["ok"])
        waiter = waiting.pop(name, None)
        if waiter is not None:
            waiter[1].append(won)
            waiter[0].set()
        elif won:
            await self._send({"op": undo, "name": name, "keys": list(name_keys(name))})

    def lapsed(self) -> bool:
        # The parent keeps a worker's claims while its connection lasts, paused or not.
        return not self.reachable

    async def confirm(self) -> bool:
        return not self.lapsed()

    async def claim(self, name: str) -> str | None:
        if not self.reachable or self._stream is None:
            return self._unreachable()
        if name in self._remote or name in self._claims:
            return f"there is already a game called {name}"
        won = await self._ask(self._claims, {"op": "claim", "name": name})
        if won is None:
            return self._unreachable()
        if not won:
            return f"there is already a game called {name}"
        self._claimed.add(name)
        self._published[name] = None
        return None

    async def _claim_keys(self, name: str, keys: tuple[str, ...]) -> bool | None:
        if not self.reachable or self._stream is None or name in self._name_answers:
            return None
        return await self._ask(self._name_answers, {"op": "claim_name", "name": name})

    async def _ask(
        self, waiting: dict[str, tuple[trio.Event, list[bool]]], message: dict[str, Any]
    ) -> bool | None:
        """Send a claim and wait for its answer: whether it was won; ``None`` if the
        parent did not answer within :data:`ANSWER_TIMEOUT` seconds, or has gone."""
        name = str(message["name"])
        done, result = waiting[name] = (trio.Event(), [])
        with trio.move_on_after(ANSWER_TIMEOUT):
            await self._send(message)
            await done.wait()
        if waiting.get(name, (None,))[0] is done:
            del waiting[name]  # unanswered: an answer that comes later is undone
        return result[0] if result else None

    async def _send(self, message: dict[str, Any]) -> None:
        assert self._stream is not None
        try:
            async with self._sending:
                await self._stream.send_all(_line(message))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self._gone_down()

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
            wanted = self._wanted()
            for name, text in wanted.items():
                if self._published.get(name, "") != text:
                    await self._send({"op": "put", "name": name, "info": text})
                    self._published[name] = text
            # Checked against the claims as they are now: one may have been won meanwhile.
            for name in [name for name in self._published if name not in self._claimed]:
                await self._send({"op": "drop", "name": name})
                self._published.pop(name, None)
            await self._sync_names()
            self._sync_done(sync)

    async def _sync_names(self) -> None:
        """Let go of the keys no player here needs; claim those of names in play."""
        wanted = self._wanted_keys()
        gone = sorted(key for key in self._held_keys if key not in wanted)
        if gone:
            self._let_go(gone)  # a HELLO meanwhile claims it anew, behind this
            await self._send({"op": "unname", "name": "", "keys": gone})
        lost = []
        for name in self._names_to_claim():
            won = await self._claim_keys(name, name_keys(name))
            if won:
                for key in name_keys(name):
                    self._held_keys[key] = name
            elif won is not None:
                lost.append(name)
        self._tell_lost((), lost)


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
