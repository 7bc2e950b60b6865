"""The transport and the connection on in-memory streams: no TCP, no listener."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import structlog
import trio
import trio.testing

from protocol.replies import Message
from server.app import Server
from server.session.transport import CUT_OFF, Input, Transport
from server.setup.config import ServerConfig

from ..conftest import StartServer
from ..helpers import TIMEOUT, Peer, bound_port


class Echo:
    """A session that answers each line with its upper-case self and ``bye`` with the
    end; it handles nothing after ``wait`` until :attr:`held` is set (meanwhile it looks
    only for ``bye`` and the end)."""

    def __init__(self, transport: Transport, read_ahead: int = 1 << 20) -> None:
        self.transport = transport
        self.buffer = b""
        self.ended: list[bool] = []
        self.held = trio.Event()
        self.limit = read_ahead
        self.looks = 0

    def data_received(self, data: bytes) -> None:
        self.buffer += data if data else b"\0"

    def handle_input(self) -> Input | trio.Event:
        while b"\n" in self.buffer:
            line, _, self.buffer = self.buffer.partition(b"\n")
            self.transport.heard()
            if line == b"bye":
                self._bye()
                return Input.ENDED
            if line == b"wait" and not self.held.is_set():
                self.transport.write(b"WAITING\n")
                return self.held
            self.transport.write(line.upper() + b"\n")
        if self.buffer == b"\0":
            self.transport.close("client closed the connection")
            return Input.ENDED
        return Input.WANT_DATA

    def _bye(self) -> None:
        self.transport.write(b"BYE\n")
        self.transport.close("quit")

    def read_ahead(self) -> bool:
        self.looks += 1
        if b"bye\n" in self.buffer:
            self._bye()
            return False
        if self.buffer.endswith(b"\0"):
            self.transport.close("client closed the connection")
            return False
        return len(self.buffer) < self.limit

    def settle(self) -> None:
        pass

    def input_ended(self, idle: bool) -> None:
        self.ended.append(idle)


async def read_to_end(stream: trio.abc.ReceiveStream) -> bytes:
    data = b""
    with trio.fail_after(TIMEOUT):
        while chunk := await stream.receive_some():
            data += chunk
    return data


MemoryPair = trio.StapledStream[trio.testing.MemorySendStream, trio.testing.MemoryReceiveStream]
"""One end of :func:`trio.testing.memory_stream_pair`."""


@contextlib.asynccontextmanager
async def echoed(read_ahead: int = 1 << 20) -> AsyncIterator[tuple[MemoryPair, Echo]]:
    """The client's end of a memory stream an :class:`Echo` session is served on, and
    the session; the serving is over when the block is."""
    client, server_end = trio.testing.memory_stream_pair()
    session = Echo(Transport(server_end, ServerConfig()), read_ahead)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.transport.run, session)
        yield client, session


async def test_a_transport_serves_a_session_on_a_memory_stream() -> None:
    async with echoed() as (client, session):
        await client.send_all(b"hello\nwor")
        await client.send_all(b"ld\nbye\nignored\n")
        assert await read_to_end(client) == b"HELLO\nWORLD\nBYE\n"
    assert session.transport.reason == "quit"
    assert session.ended == [False]


async def test_end_of_input_ends_the_transport() -> None:
    async with echoed() as (client, session):
        await client.send_all(b"one\n")
        await client.send_eof()
        assert await read_to_end(client) == b"ONE\n"
    assert session.transport.reason == "client closed the connection"


async def test_a_held_session_is_read_on_and_its_end_or_bye_is_acted_on_at_once() -> None:
    """Before: nothing was read while the session held a command (found in issue 40)."""
    for last, reason in ((b"bye\n", "quit"), (b"", "client closed the connection")):
        async with echoed() as (client, session):
            await client.send_all(b"one\nwait\ntwo\n")
            await trio.testing.wait_all_tasks_blocked()
            assert await client.receive_some() == b"ONE\nWAITING\n"
            assert session.looks == 1 and session.buffer == b"two\n", "read on while held"
            if last:
                await client.send_all(last)
            else:
                await client.send_eof()
            assert await read_to_end(client) == (b"BYE\n" if last else b""), "never TWO"
        assert session.transport.reason == reason and not session.held.is_set()
        assert session.ended == [False]


async def test_a_held_session_reads_no_more_than_it_wants_and_keeps_the_order() -> None:
    async with echoed(read_ahead=4) as (client, session):
        await client.send_all(b"wait\n")
        await trio.testing.wait_all_tasks_blocked()
        await client.send_all(b"one\n")
        await trio.testing.wait_all_tasks_blocked()
        await client.send_all(b"two\nbye\n")
        await trio.testing.wait_all_tasks_blocked()
        assert session.buffer == b"one\n", "not read past what the session wants"
        session.held.set()
        assert await read_to_end(client) == b"WAITING\nONE\nTWO\nBYE\n"
    assert session.transport.reason == "quit"


async def test_a_backlog_past_the_limit_is_cut_off_on_any_stream() -> None:
    _, server_end = trio.testing.memory_stream_pair()
    transport = Transport(server_end, ServerConfig(max_pending_output=4096))
    transport.write(b"x" * 5000)  # one large reply is queued whole
    assert transport.reason is None
    transport.write(b"more\n")  # a line behind more than the limit: cut off
    assert transport.reason == CUT_OFF


async def test_a_connection_plays_over_a_memory_stream(nursery: trio.Nursery) -> None:
    server = Server(ServerConfig(port=0, map="tiny", seed=1))
    await nursery.start(server.run)
    try:
        client, server_end = trio.testing.memory_stream_pair()
        nursery.start_soon(lambda: server.serve_stream(server_end, host="memory"))
        await client.send_all(b"HELLO\nMOVE E\nQUIT\n")
        assert await read_to_end(client) == b"GOLD 1\nSUCCESS\nBYE Thanks for playing.\n"
    finally:
        server.shutdown()


async def test_a_memory_player_and_a_tcp_player_share_a_game(nursery: trio.Nursery) -> None:
    server = Server(ServerConfig(port=0, map="tiny", seed=1))
    await nursery.start(server.run)
    try:
        client, server_end = trio.testing.memory_stream_pair()
        nursery.start_soon(lambda: server.serve_stream(server_end, host="memory", port=7))
        await client.send_all(b"HELLO Mem\n")
        tcp = await Peer.connect(bound_port(server))
        assert await tcp.ask("HELLO Tcp") == ["GOLD 1"]
        assert (await tcp.ask("MAP"))[2].count("P") == 1, "the memory player is on the map"
        assert {c.peer for c in server.connections} >= {"memory:7"}
        await client.send_all(b"QUIT\n")
        assert (await read_to_end(client)).endswith(b"BYE Thanks for playing.\n")
    finally:
        server.shutdown()


def writer_tasks() -> int:
    """How many transports' writer tasks run now, in the whole trio run."""
    count = 0
    root = trio.lowlevel.current_root_task()
    assert root is not None
    tasks = [root]
    while tasks:
        task = tasks.pop()
        count += task.name.endswith("Transport._write_loop")
        for nursery in task.child_nurseries:
            tasks.extend(nursery.child_tasks)
    return count


async def test_an_idle_connection_has_no_writer_task(start_server: StartServer) -> None:
    server = await start_server()
    peers = [await Peer.connect(bound_port(server)) for _ in range(3)]
    for peer in peers:
        assert await peer.ask("EXTEND chat") == ["EXTENDED chat"]
        assert await peer.ask("HELLO") == ["GOLD 3"]
    await trio.testing.wait_all_tasks_blocked()
    assert writer_tasks() == 0
    # Output from elsewhere (not a reply) starts one, which ends once it is written.
    for connection in list(server.connections):
        connection.push(Message("", "hello all"))
    for peer in peers:
        assert await peer.read_line() == "MESSAGE hello all"
    await trio.testing.wait_all_tasks_blocked()
    assert writer_tasks() == 0
    assert await peers[0].ask("LOOK") != []


async def test_output_from_elsewhere_left_unread_cuts_off_after_the_send_timeout(
    start_server: StartServer,
) -> None:
    server = await start_server(
        max_pending_output=1 << 30, send_timeout=0.5, chat_rate=1e6, chat_burst=10**6
    )
    hog, talker = [await Peer.connect(bound_port(server)) for _ in range(2)]
    assert await hog.ask("EXTEND chat") == ["EXTENDED chat"]
    assert await hog.ask("HELLO") == ["GOLD 3"]
    assert await talker.ask("HELLO Talker") == ["GOLD 3"]
    shout = "SHOUT " + "x" * 900 + "\n"
    with structlog.testing.capture_logs() as logs:
        with trio.fail_after(30):
            while not any(e.get("reason") == CUT_OFF for e in logs):
                await talker.send(shout * 100)
                assert await talker.read_lines(100) == ["SUCCESS"] * 100
    assert len(server.connections) == 1
    await trio.testing.wait_all_tasks_blocked()
    assert writer_tasks() == 0


async def test_commands_sent_behind_one_that_waits_are_answered_in_order(
    start_server: StartServer,
) -> None:
    server = await start_server()
    peer = await Peer.connect(bound_port(server))
    # CREATE waits for its game to be made; the lines behind it are read and answered after.
    await peer.send("CREATE w classic\nJOIN w\nHELLO\n")
    created, joined, hello = await peer.read_lines(3)
    assert created.startswith("GAME w ") and "players=0" in created
    assert joined.startswith("GAME w ") and "players=1" in joined
    assert hello == "GOLD 3"


def await_chain(task: trio.lowlevel.Task) -> list[str]:
    """The coroutines ``task`` waits in, outermost first, by name."""
    names = []
    awaited: Any = task.coro
    while awaited is not None and hasattr(awaited, "cr_code"):
        names.append(awaited.cr_code.co_name)
        awaited = awaited.cr_await
    return names


async def test_an_idle_clients_task_waits_five_coroutines_deep(start_server: StartServer) -> None:
    # Each coroutine frame costs every idle connection a few hundred bytes (issue 31).
    server = await start_server()
    peer = await Peer.connect(bound_port(server))
    assert await peer.ask("HELLO") == ["GOLD 3"]
    await trio.testing.wait_all_tasks_blocked()
    root = trio.lowlevel.current_root_task()
    assert root is not None
    chains, tasks = [], [root]
    while tasks:
        task = tasks.pop()
        if task.name.endswith("_run_handler"):
            chains.append(await_chain(task))
        for nursery in task.child_nurseries:
            tasks.extend(nursery.child_tasks)
    assert chains == [["_run_handler", "serve_stream", "run", "_serve", "wait_task_rescheduled"]], (
        chains
    )
