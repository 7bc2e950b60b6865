"""What the campaign reads of the system, apart from its clients' answers.

* :class:`DirectoryLog`: the cluster directory's own record of who held which name when,
  from PostgreSQL's ``NOTIFY`` (the channel every node follows), on a connection of the
  campaign's own that no fault cuts; after the database restarts it reads the tables
  again and counts what changed meanwhile from that moment.
* :func:`games`: a node's ``GAMES``, as a player sees it, on a connection of its own.
* :func:`held`: the games a node holds itself, from its web face (``/api/games``: each
  game with the address of the node that holds it).
* :func:`converge`: how long until every live node lists the same games.
"""

from __future__ import annotations

import contextlib
import json
import threading
from typing import Any, Final

import psycopg
import trio

from dungeon_of_doom.records.names import lookalike_keys

from .history import History, Tenure, clock
from .rig import HTTP_PORT, PORT

PROBE_TIMEOUT: Final = 5.0
CHANNEL: Final = "cluster_games"


class DirectoryLog:
    """Follows the directory's announcements into ``history.tenures`` (a thread)."""

    def __init__(self, url: str, history: History, addresses: dict[str, str]) -> None:
        self.url = url
        self.history = history
        self._letters = {f"{address}:{PORT}": letter for letter, address in addresses.items()}
        self._open: dict[tuple[str, str], Tenure] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._follow, daemon=True)
        self._lock = threading.Lock()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _follow(self) -> None:
        while not self._stop.is_set():
            try:
                with (
                    psycopg.connect(self.url, autocommit=True, connect_timeout=3) as db,
                    psycopg.connect(self.url, autocommit=True, connect_timeout=3) as lookup,
                ):
                    # Queries go on a connection of their own: the listening one only
                    # listens, so that no announcement is lost behind a query.
                    db.execute(f"LISTEN {CHANNEL}")
                    self._snapshot(lookup)
                    while not self._stop.is_set():
                        for note in db.notifies(timeout=0.25):
                            self._announced(lookup, json.loads(note.payload))
            except (psycopg.Error, OSError, ValueError):
                self._stop.wait(0.2)

    def _node(self, db: psycopg.Connection[Any], node: str) -> None:
        """Learn which node (``A``...) the directory id ``node`` is, if it is new."""
        if node in self.history.node_ids:
            return
        for known, address in db.execute("SELECT id, address FROM cluster_nodes").fetchall():
            letter = self._letters.get(str(address))
            if letter is not None:
                self.history.node_ids.setdefault(str(known), letter)

    def _snapshot(self, db: psycopg.Connection[Any]) -> None:
        games = db.execute("SELECT name, node FROM cluster_games").fetchall()
        rows = [("game", name, node) for name, node in games]
        try:
            names = db.execute("SELECT key, node FROM cluster_name_keys").fetchall()
        except psycopg.errors.UndefinedTable:  # a server of before issue 36: by spelling
            spelled = db.execute("SELECT name, node FROM cluster_names").fetchall()
            names = [(key, node) for name, node in spelled for key in lookalike_keys(name)]
        rows += [("name", key, node) for key, node in names]
        now = clock()
        held = {(kind, key): str(node) for kind, key, node in rows}
        with self._lock:
            for where, tenure in list(self._open.items()):
                if held.get(where) != tenure.node:
                    tenure.ended = now
                    del self._open[where]
            for (kind, key), node in held.items():
                if (kind, key) not in self._open:
                    self._begin(kind, key, node, now)
        for node in set(held.values()):
            self._node(db, node)

    def _begin(self, kind: str, key: str, node: str, now: float) -> None:
        tenure = self._open[(kind, key)] = Tenure(kind, key, node, now)
        self.history.tenures.append(tenure)

    def _announced(self, db: psycopg.Connection[Any], change: dict[str, Any]) -> None:
        op, node = change.get("op"), str(change.get("node"))
        if op in ("put", "delete"):
            kind, keys = "game", [str(change.get("name"))]
        elif op in ("name", "unname"):
            # A server of before issue 36 announced names by spelling alone.
            key = change.get("key")
            kind = "name"
            keys = [str(key)] if key else list(lookalike_keys(str(change.get("name"))))
        else:
            return
        now = clock()
        with self._lock:
            for key in keys:
                held = self._open.get((kind, key))
                if op in ("put", "name"):
                    if held is not None and held.node != node:
                        held.ended = now  # another node's now (a row has one holder)
                        held = None
                    if held is None:
                        self._begin(kind, key, node, now)
                elif held is not None and held.node == node:
                    held.ended = now
                    del self._open[(kind, key)]
        self._node(db, node)


async def games(address: str) -> list[str] | None:
    """The names ``GAMES`` lists on the node at ``address``; ``None`` if it did not
    answer within :data:`PROBE_TIMEOUT` seconds."""
    with trio.move_on_after(PROBE_TIMEOUT):
        try:
            stream = await trio.open_tcp_stream(address, PORT)
        except OSError:
            return None
        async with stream:
            await stream.send_all(b"GAMES\n")
            data = b""
            while True:
                lines = data.split(b"\n")
                if lines and lines[0].startswith(b"GAMES "):
                    count = int(lines[0].split()[1])
                    if len(lines) > count + 1:
                        return [line.split()[1].decode() for line in lines[1 : count + 1]]
                chunk = await stream.receive_some(65536)
                if not chunk:
                    return None
                data += chunk
    return None


async def held(address: str) -> set[str] | None:
    """The games the node at ``address`` holds itself (its web face says so); ``None``
    if it did not answer."""
    with trio.move_on_after(PROBE_TIMEOUT):
        with contextlib.suppress(OSError, trio.BrokenResourceError, ValueError):
            stream = await trio.open_tcp_stream(address, HTTP_PORT)
            async with stream:
                request = f"GET /api/games HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
                await stream.send_all(request.encode())
                data = b""
                while chunk := await stream.receive_some(65536):
                    data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            if b"transfer-encoding: chunked" in head.lower():
                body = _dechunk(body)
            listed = json.loads(body)["games"]
            own = f"{address}:{PORT}"
            return {
                str(game["name"])
                for game in listed
                if game.get("node") == own and game["name"] != "default"  # each node's own
            }
    return None


def _dechunk(body: bytes) -> bytes:
    whole = b""
    while body:
        size, _, body = body.partition(b"\r\n")
        length = int(size.split(b";")[0], 16)
        if length == 0:
            break
        whole, body = whole + body[:length], body[length + 2 :]
    return whole


async def converge(addresses: list[str], bound: float) -> tuple[float | None, dict[str, list[str]]]:
    """Seconds until every node at ``addresses`` lists the same games (``None`` if not
    within ``bound``), and what each listed last."""
    began = clock()
    listed: dict[str, list[str]] = {}
    while True:
        async with trio.open_nursery() as nursery:
            for address in addresses:
                nursery.start_soon(_list_into, listed, address)
        names = [
            None if listed.get(a) is None else sorted(set(listed[a]) - {"default"})
            for a in addresses
        ]
        if all(name is not None for name in names) and all(name == names[0] for name in names):
            return clock() - began, listed
        if clock() - began > bound:
            return None, listed
        await trio.sleep(0.05)


async def _list_into(listed: dict[str, Any], address: str) -> None:
    listed[address] = await games(address)
