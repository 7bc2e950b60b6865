"""Bad clients are cut off with a clear line where they can read one; everyone else plays on."""

from __future__ import annotations

import contextlib
import errno
import random

import structlog
import trio
import trio.testing

from ..conftest import StartServer
from ..helpers import Peer, bound_port


async def test_over_long_line_is_refused_and_others_play_on(start_server: StartServer) -> None:
    server = await start_server(max_line_length=64)
    rogue, good = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    await rogue.send(b"LOOK " + b"x" * 500)
    assert await rogue.read_to_end() == b"BYE line too long (the limit is 64 bytes)\n"
    assert await good.ask("HELLO") == ["GOLD 3"]


async def test_idle_client_is_told_and_disconnected(start_server: StartServer) -> None:
    server = await start_server(idle_timeout=0.2)
    silent, busy = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    told = trio.Event()

    async def wait_for_bye() -> None:
        assert await silent.read_to_end() == (
            b"BYE no command for 0.2 seconds; closing the connection\n"
        )
        told.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(wait_for_bye)
        while not told.is_set():  # a client that keeps talking is never idle
            assert await busy.ask("HELLO") == ["GOLD 3"]
    assert await busy.ask("HELLO") == ["GOLD 3"]


async def test_random_bytes_on_several_connections_do_not_disturb_a_player(
    start_server: StartServer,
) -> None:
    server = await start_server(max_line_length=256)
    rng = random.Random(7)
    rogues = [await Peer.connect(bound_port(server)) for _ in range(4)]
    good = await Peer.connect(bound_port(server))
    assert await good.ask("HELLO") == ["GOLD 3"]

    endings = []

    async def spray(rogue: Peer) -> None:
        # Garbage with a line end now and then, telnet bytes and invalid UTF-8 among it.
        alphabet = b"\n\r\x00\xff\xfdLOOK ab\xc3"
        try:
            for _ in range(200):
                await rogue.send(bytes(rng.choices(alphabet, k=rng.randrange(1, 64))))
            # A line end may go to telnet or to a CR before it; the second one ends the line.
            await rogue.send(b"\n\nQUIT\n")
        except trio.BrokenResourceError:
            pass  # cut off for a line too long: allowed, not required
        endings.append((await rogue.read_to_end()).rpartition(b"\n")[0].rpartition(b"\n")[2])

    with structlog.testing.capture_logs() as logs:
        async with trio.open_nursery() as nursery:
            for rogue in rogues:
                nursery.start_soon(spray, rogue)
            for step in range(100):
                reply = await good.ask("LOOK" if step % 2 else "MOVE N")
                assert reply[0] in ("LOOKREPLY", "SUCCESS", "FAIL")
    assert not [e for e in logs if e["log_level"] in ("error", "critical")]
    assert set(endings) <= {
        b"BYE Thanks for playing.",
        b"BYE line too long (the limit is 256 bytes)",
    }
    assert len(endings) == len(rogues)
    assert await good.ask("HELLO") == ["GOLD 3"]


async def test_connection_limit_answers_with_a_clear_line(start_server: StartServer) -> None:
    server = await start_server(max_connections=1)
    first = await Peer.connect(bound_port(server))
    assert await first.ask("HELLO") == ["GOLD 3"]
    second = await Peer.connect(bound_port(server))
    assert await second.read_to_end() == (
        b"BYE the server is full (1 connections); try again later\n"
    )
    assert await first.ask("HELLO") == ["GOLD 3"]


async def test_a_client_that_never_reads_does_not_slow_another(start_server: StartServer) -> None:
    server = await start_server(send_timeout=0.5)
    hog, good = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    flood = b"LOOK\n" * 20000  # replies the hog never reads
    cut_off = trio.Event()

    async def send_until_cut_off() -> None:
        try:
            while True:
                await hog.send(flood)
        except trio.BrokenResourceError:
            cut_off.set()

    with structlog.testing.capture_logs() as logs:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(send_until_cut_off)
            for _ in range(200):
                with trio.fail_after(2):
                    assert (await good.ask("LOOK"))[0] == "LOOKREPLY"
            with trio.fail_after(20):
                await cut_off.wait()
        await trio.testing.wait_all_tasks_blocked()
    assert any(e.get("reason") == "cut off: not reading its replies" for e in logs)
    assert await good.ask("HELLO") == ["GOLD 3"]


async def test_shutdown_tells_every_client(start_server: StartServer) -> None:
    server = await start_server()
    peers = [await Peer.connect(bound_port(server)) for _ in range(3)]
    for peer in peers:
        assert await peer.ask("HELLO") == ["GOLD 3"]
    server.shutdown()
    for peer in peers:
        assert await peer.read_to_end() == b"BYE the server is shutting down; goodbye\n"


async def test_connect_and_disconnect_are_logged_with_context(start_server: StartServer) -> None:
    server = await start_server()
    with structlog.testing.capture_logs() as logs:
        peer = await Peer.connect(bound_port(server))
        await peer.send("HELLO\nDANCE\nQUIT\n")
        await peer.read_to_end()
        await trio.testing.wait_all_tasks_blocked()
    events = {e["event"]: e for e in logs}
    assert events["client connected"]["peer"].startswith("127.0.0.1:")
    assert events["player joined"]["player"] == 1
    assert events["protocol error"]["error"].startswith('unknown command "DANCE"')
    assert events["client disconnected"]["reason"] == "quit"
    assert events["client disconnected"]["conn"] == events["client connected"]["conn"]


async def test_a_client_that_pipelines_many_commands_and_reads_is_served(
    start_server: StartServer,
) -> None:
    server = await start_server(max_pending_output=16 * 1024)
    peer = await Peer.connect(bound_port(server))
    help_reply = await peer.ask("HELP")
    await peer.send("HELP\n" * 400)  # 2 KB of commands whose replies far pass the limit
    for _ in range(400):
        assert await peer.read_lines(len(help_reply)) == help_reply
    assert await peer.ask("HELLO") == ["GOLD 3"]


async def test_only_a_whole_command_keeps_a_client_from_idling_out(
    start_server: StartServer,
) -> None:
    server = await start_server(idle_timeout=0.3)
    chatter = await Peer.connect(bound_port(server))
    ended = trio.Event()

    async def read_to_end() -> None:
        # The server may close while our next noise is on its way: its kernel then
        # resets the connection, after the BYE, which stays readable before the reset.
        try:
            received = await chatter.read_to_end()
        except trio.BrokenResourceError:
            received = bytes(chatter._buffer)
        assert received == b"BYE no command for 0.3 seconds; closing the connection\n"
        ended.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(read_to_end)
        with trio.fail_after(5):
            # Blank lines, telnet IAC NOP, then half a line and more NOPs, never a command.
            noise = [b"\n", b"\r\n", b"\xff\xf1", b"   \n"] * 2 + [b"LOO"]
            step = 0
            while not ended.is_set():
                with contextlib.suppress(trio.BrokenResourceError):
                    await chatter.send(noise[step] if step < len(noise) else b"\xff\xf1")
                step += 1
                await trio.sleep(0.02)


async def test_one_address_cannot_take_every_connection(start_server: StartServer) -> None:
    server = await start_server(max_connections_per_address=2)
    first, second = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await first.ask("HELLO") == ["GOLD 3"]
    third = await Peer.connect(bound_port(server))
    assert await third.read_to_end() == (
        b"BYE too many connections from your address (2); try again later\n"
    )
    assert await second.ask("QUIT") == ["BYE Thanks for playing."]
    await second.read_to_end()
    await trio.testing.wait_all_tasks_blocked()  # the server has seen the second one go
    fourth = await Peer.connect(bound_port(server))
    assert await fourth.ask("HELLO") == ["GOLD 3"]
    assert await first.ask("HELLO") == ["GOLD 3"]


class _MapsFail:
    """A world plugin whose map list cannot be read (say the process is out of files)."""

    name = "brittle"
    summary = "its maps folder cannot be listed"
    error: Exception = OSError(errno.EMFILE, "Too many open files")

    def maps(self) -> list[str]:
        raise self.error

    @property
    def open(self) -> object:
        # CREATE looks at the plugin's open() on the loop (to pass it the clients'
        # limits) before building the world off it: the failure lands in the handler.
        raise self.error


async def test_a_command_whose_handler_fails_is_answered_and_the_server_serves_on(
    start_server: StartServer,
) -> None:
    brittle = _MapsFail()
    server = await start_server(worlds=(brittle,))
    creator, player = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await player.ask("HELLO") == ["GOLD 3"]
    with structlog.testing.capture_logs() as logs:
        assert await creator.ask("CREATE g brittle map=x") == [
            "ERROR the server cannot do that now (Too many open files); try again later"
        ]
    assert [e["command"] for e in logs if e["event"] == "command failed"] == ["CREATE"]
    assert await creator.ask("HELLO") == ["GOLD 3"]
    assert await player.ask("HELLO") == ["GOLD 3"]
    brittle.error = RuntimeError("a bug")
    assert await creator.ask("CREATE g brittle map=x") == [
        "ERROR the server failed to handle CREATE (a server bug)"
    ]
    assert await player.ask("HELLO") == ["GOLD 3"]
