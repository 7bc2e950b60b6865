"""The web face holds a hostile visitor to the limits a TCP client has (issue 28).

Each test runs a real server and its web face on port 0 over loopback and speaks to
them with real sockets: HTTP/1.1 by hand, WebSockets through ``wsclient`` (wsproto).
"""

from __future__ import annotations

import contextlib
import re
import signal
import socket
import threading
import time
import tracemalloc
from pathlib import Path

import pytest
import trio
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Request, TextMessage
from wsproto.extensions import PerMessageDeflate

from dungeon_of_doom.server.app import Server
from dungeon_of_doom.server.web import WebService, serve_web

from ..conftest import StartServer
from ..helpers import Peer, bound_port
from .conftest import start_web_server
from .wsclient import Closed, Refused, WebSocketClient, resident_bytes, text_frame

BOUND = 30.0
"""Seconds any one wait may take before the test fails (a bound, never a pace)."""


async def _web(
    start_server: StartServer, nursery: trio.Nursery, **settings: object
) -> tuple[Server, WebService]:
    server = await start_server(http_port=0, **settings)
    web: WebService = await nursery.start(serve_web, server)
    return server, web


class Http:
    """One keep-alive HTTP/1.1 connection, spoken by hand."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = b""

    @classmethod
    async def open(cls, port: int) -> Http:
        return cls(await trio.open_tcp_stream("127.0.0.1", port))

    async def get(
        self, path: str, *, host: str | None = None, headers: str = ""
    ) -> tuple[int, str]:
        port = self.stream.socket.getpeername()[1]
        request = f"GET {path} HTTP/1.1\r\nHost: {host or f'127.0.0.1:{port}'}\r\n{headers}\r\n"
        await self.stream.send_all(request.encode())
        while b"\r\n\r\n" not in self.buffer:
            data = await self.stream.receive_some(65536)
            assert data, f"the server closed the connection: {self.buffer!r}"
            self.buffer += data
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        status = int(head.split()[1])
        match = re.search(rb"content-length: (\d+)", head, re.IGNORECASE)
        length = int(match.group(1)) if match else 0
        while len(self.buffer) < length:
            data = await self.stream.receive_some(65536)
            if not data:
                break
            self.buffer += data
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return status, body.decode()

    async def aclose(self) -> None:
        await self.stream.aclose()


# -- 1. WebSocket input is bounded like TCP input ----------------------------------------


async def test_a_websocket_message_over_the_limit_ends_the_websocket(
    start_server: StartServer, nursery: trio.Nursery
) -> None:
    _, web = await _web(start_server, nursery, websocket_max_message=4096)
    client = await WebSocketClient.open(web.port)
    await client.send("HELLO")
    assert (await client.read_line()).startswith("GOLD")
    await client.send("LOOK\n" * 2000)  # 10,000 bytes: more than a message may hold
    with pytest.raises(Closed) as closed, trio.fail_after(BOUND):
        while True:
            await client.read_line()
    assert closed.value.code == 1009  # "message too big"
    await client.aclose()


async def test_a_websocket_line_over_max_line_length_ends_it_as_over_tcp(
    start_server: StartServer, nursery: trio.Nursery
) -> None:
    _, web = await _web(start_server, nursery, max_line_length=64)
    client = await WebSocketClient.open(web.port)
    await client.send("HELLO " + "x" * 100)
    line = await client.read_line()
    assert line.startswith("BYE") and "64" in line
    await client.aclose()


async def test_a_client_sending_after_a_close_frame_is_not_buffered(
    start_server: StartServer, nursery: trio.Nursery
) -> None:
    """Hypercorn keeps what arrives after it has closed a WebSocket for a too-large
    message; the web face hands it nothing after its close frame but a close reply."""
    _, web = await _web(start_server, nursery, websocket_max_message=1024, linger=60)
    client = await WebSocketClient.open(web.port)
    await client.send("x" * 2048)
    with pytest.raises(Closed):
        await client.read_line()
    # The socket stays open (linger) while the client goes on: nothing of it is kept.
    frame = text_frame("y" * 60000)
    before = resident_bytes()
    with trio.fail_after(BOUND):
        for _ in range(1000):  # 60 MB, all read and dropped by the server
            await client.stream.send_all(frame)
    grown = resident_bytes() - before
    assert grown < 30 << 20, f"the server kept {grown >> 20} MiB of what came after its close"
    await client.aclose()


async def test_a_compressed_message_is_refused_before_it_inflates_far(
    start_server: StartServer, nursery: trio.Nursery
) -> None:
    """16 MiB of one letter compress (permessage-deflate) to 16 KiB: a message within
    the limit on the wire, inflated whole it was 16 MiB of text, 64 MiB in memory."""
    _, web = await _web(start_server, nursery)
    stream = await trio.open_tcp_stream("127.0.0.1", web.port)
    ws = WSConnection(ConnectionType.CLIENT)
    request = Request(host=f"127.0.0.1:{web.port}", target="/ws", extensions=[PerMessageDeflate()])
    await stream.send_all(ws.send(request))
    ws.receive_data(await stream.receive_some(4096))
    assert any(isinstance(event, AcceptConnection) for event in ws.events())
    bomb = ws.send(TextMessage(data="a" * (16 << 20)))
    assert len(bomb) < 20_000
    tracemalloc.start()
    try:
        await stream.send_all(bomb)
        with trio.fail_after(BOUND):
            answer = await stream.receive_some(100)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert answer.startswith(b"\x88\x02\x03\xf1")  # closed: 1009, message too big
    assert peak < 16 << 20, f"{peak >> 20} MiB held while refusing a 16 KiB message"
    await stream.aclose()


BOMBERS = 6


async def test_compressed_messages_on_many_sockets_at_once_inflate_only_a_little(
    start_server: StartServer, nursery: trio.Nursery
) -> None:
    """Six sockets at once each send a 16 KiB message that inflates to 16 MiB, again and
    again: what the server holds meanwhile is bounded by how much it inflates a read,
    not by the message (before, 46 MiB at once; the server's RSS grew by over 100 MiB)."""
    _, web = await _web(start_server, nursery)

    async def opened() -> tuple[trio.SocketStream, WSConnection]:
        stream = await trio.open_tcp_stream("127.0.0.1", web.port)
        ws = WSConnection(ConnectionType.CLIENT)
        request = Request(
            host=f"127.0.0.1:{web.port}", target="/ws", extensions=[PerMessageDeflate()]
        )
        await stream.send_all(ws.send(request))
        ws.receive_data(await stream.receive_some(4096))
        assert any(isinstance(event, AcceptConnection) for event in ws.events())
        return stream, ws

    async def bomber() -> None:
        for _ in range(3):
            stream, _ = await opened()
            await stream.send_all(bomb)
            assert (await stream.receive_some(100)).startswith(b"\x88\x02\x03\xf1")  # 1009
            await stream.aclose()

    # Any connection's first message compresses alike (a fresh deflate context).
    stream, ws = await opened()
    bomb = ws.send(TextMessage(data="a" * (16 << 20)))
    await stream.aclose()
    tracemalloc.start()
    try:
        with trio.fail_after(BOUND):
            async with trio.open_nursery() as bombers:
                for _ in range(BOMBERS):
                    bombers.start_soon(bomber)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, f"{peak >> 20} MiB held while refusing {BOMBERS} compressed messages"


# -- 2. a WebSocket that never reads is cut off, and shutdown finishes ------------------


async def _flood_until_cut_off(client: WebSocketClient) -> None:
    """Send LOOKs without reading a reply until the server drops the connection."""
    batch = "LOOK\n" * 3000
    try:
        while True:
            await client.send(batch)
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        return


async def test_a_websocket_client_that_never_reads_is_cut_off_after_send_timeout(
    start_server: StartServer, nursery: trio.Nursery
) -> None:
    server, web = await _web(start_server, nursery, send_timeout=0.5, idle_timeout=600)
    client = await WebSocketClient.open(web.port, receive_buffer=4096)
    await client.send("HELLO")
    with trio.fail_after(BOUND):
        await _flood_until_cut_off(client)
        while server.connections:  # the game's side of it winds up
            await trio.sleep(0.01)
    assert server.counts.cut_off == 1
    assert server.admission.sockets == 0
    await client.aclose()


async def test_an_idle_websocket_player_is_told_and_disconnected_as_over_tcp(
    start_server: StartServer, nursery: trio.Nursery
) -> None:
    _, web = await _web(start_server, nursery, idle_timeout=0.5)
    client = await WebSocketClient.open(web.port)
    await client.send("HELLO")
    assert (await client.read_line()).startswith("GOLD")
    with trio.fail_after(BOUND):
        assert await client.read_line() == "BYE no command for 0.5 seconds; closing the connection"
        with pytest.raises(Closed):
            await client.read_line()
    await client.aclose()


def test_sigterm_stops_a_server_whose_websocket_client_never_reads(tmp_path: Path) -> None:
    """Issue 28: with a WebSocket client that never reads, SIGTERM had not stopped the
    server after 45 s. The send time-out is out of reach here: only shutdown may end it."""
    started = start_web_server(tmp_path, "--send-timeout", "600", "--linger", "1")
    web = next(started)
    port = int(web.url.rsplit(":", 1)[1].strip("/"))
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    ws = WSConnection(ConnectionType.CLIENT)
    sock.sendall(ws.send(Request(host=f"127.0.0.1:{port}", target="/ws")))
    assert b" 101 " in sock.recv(4096)
    frame = text_frame("LOOK\n" * 3000)
    stuck = threading.Event()

    def flood() -> None:
        # Until the server stops reading: then it is writing replies nobody reads.
        sock.settimeout(3)
        try:
            while True:
                sock.sendall(frame)
        except OSError:
            stuck.set()

    sender = threading.Thread(target=flood, daemon=True)
    sender.start()
    assert stuck.wait(BOUND), "the server kept reading a client that never reads"
    web.process.send_signal(signal.SIGTERM)
    began = time.monotonic()
    try:
        web.process.wait(timeout=BOUND)
    finally:
        sock.close()
        started.close()
    assert web.process.returncode == 0
    assert time.monotonic() - began < BOUND


# -- 4. HTTP connections count against the server's connection limits -----------------


async def test_http_connections_share_the_per_address_limit(
    start_server: StartServer, nursery: trio.Nursery
) -> None:
    server, web = await _web(start_server, nursery, max_connections_per_address=3)
    held = [await Http.open(web.port) for _ in range(2)]
    for connection in held:
        assert (await connection.get("/api/games"))[0] == 200  # kept alive
    player = await Peer.connect(bound_port(server))  # the third: a game connection
    await player.send("HELLO\n")
    assert (await player.read_line()).startswith("GOLD")

    extra = await Http.open(web.port)
    status, body = await extra.get("/api/games")
    assert status == 503 and "too many connections from your address (3)" in body
    await extra.aclose()
    with pytest.raises(Refused) as refused:
        await WebSocketClient.open(web.port)
    assert refused.value.status == 503
    fourth = await Peer.connect(bound_port(server))
    assert (await fourth.read_line()).startswith("BYE too many connections")

    await held.pop().aclose()  # one leaves: a WebSocket may take its place
    with trio.fail_after(BOUND):
        while server.admission.per_address["127.0.0.1"] >= 3:
            await trio.sleep(0.01)
    client = await WebSocketClient.open(web.port)
    await client.send("HELLO")
    assert (await client.read_line()).startswith("GOLD")
    assert server.admission.per_address["127.0.0.1"] == 3
    await client.aclose()


async def test_http_max_connections_bounds_the_web_face_alone(
    start_server: StartServer, nursery: trio.Nursery
) -> None:
    server, web = await _web(start_server, nursery, http_max_connections=2)
    held = [await Http.open(web.port) for _ in range(2)]
    for connection in held:
        assert (await connection.get("/healthz"))[0] == 200
    extra = await Http.open(web.port)
    status, body = await extra.get("/healthz")
    assert status == 503 and "the web face is full (2 connections)" in body
    player = await Peer.connect(bound_port(server))  # the game port is not the web face's
    await player.send("HELLO\n")
    assert (await player.read_line()).startswith("GOLD")


async def test_a_request_body_no_route_reads_does_not_hold_its_connection(
    start_server: StartServer, nursery: trio.Nursery
) -> None:
    """Hypercorn queued a few pieces of an unread body and then waited with the route,
    whose response never finished: the socket was held for ever, client gone or not."""
    server, web = await _web(start_server, nursery)
    stream = await trio.open_tcp_stream("127.0.0.1", web.port)
    body = b"x" * 200_000
    head = f"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1:{web.port}\r\n"
    head += f"Content-Length: {len(body)}\r\n\r\n"
    with contextlib.suppress(trio.BrokenResourceError):
        await stream.send_all(head.encode() + body)
    with trio.fail_after(BOUND):
        while server.admission.sockets:
            await trio.sleep(0.01)
    await stream.aclose()


# -- 9. Origin and Host --------------------------------------------------------------


async def test_a_websocket_from_another_sites_page_is_refused(
    start_server: StartServer, nursery: trio.Nursery
) -> None:
    _, web = await _web(start_server, nursery)
    with pytest.raises(Refused) as refused:
        await WebSocketClient.open(web.port, headers=[("Origin", "https://evil.example")])
    assert refused.value.status == 403
    assert "https://evil.example" in refused.value.body
    assert "--http-allowed-origins" in refused.value.body
    with pytest.raises(Refused):
        await WebSocketClient.open(web.port, headers=[("Origin", "null")])

    own = f"http://127.0.0.1:{web.port}"
    client = await WebSocketClient.open(web.port, headers=[("Origin", own)])
    await client.send("HELLO")
    assert (await client.read_line()).startswith("GOLD")
    await client.aclose()
    localhost = await WebSocketClient.open(
        web.port,
        host=f"localhost:{web.port}",
        headers=[("Origin", f"http://localhost:{web.port}")],
    )
    await localhost.aclose()


async def test_allowed_origins_and_hosts_are_settings(
    start_server: StartServer, nursery: trio.Nursery
) -> None:
    _, web = await _web(
        start_server,
        nursery,
        http_allowed_hosts="dod.example.org",
        http_allowed_origins="https://friend.example",
    )
    client = await WebSocketClient.open(
        web.port, host="dod.example.org", headers=[("Origin", "https://friend.example")]
    )
    await client.aclose()
    http = await Http.open(web.port)
    assert (await http.get("/api/games", host="dod.example.org"))[0] == 200
    status, body = await http.get("/api/games")  # 127.0.0.1 is no longer one of its names
    assert status == 403 and "--http-allowed-hosts" in body


async def test_a_rebound_host_name_reads_nothing_but_health(
    start_server: StartServer, nursery: trio.Nursery
) -> None:
    _, web = await _web(start_server, nursery)
    http = await Http.open(web.port)
    for path in ("/api/games", "/metrics", "/", "/api/replays"):
        status, body = await http.get(path, host=f"evil.example:{web.port}")
        assert status == 403, path
        assert "'evil.example:" in body
    assert (await http.get("/healthz", host="10.1.2.3:8004"))[0] == 200
    assert (await http.get("/api/games", host=f"localhost:{web.port}"))[0] == 200
    with pytest.raises(Refused) as refused:
        await WebSocketClient.open(web.port, host="evil.example")
    assert refused.value.status == 403


async def test_metrics_answer_only_the_operators_addresses(
    start_server: StartServer, nursery: trio.Nursery
) -> None:
    _, web = await _web(start_server, nursery, metrics_from="10.0.0.0/8")
    http = await Http.open(web.port)
    status, body = await http.get("/metrics")
    assert status == 403 and "--metrics-from" in body
    assert (await http.get("/api/games"))[0] == 200


# -- 10. clients behind a trusted reverse proxy ----------------------------------------


async def test_a_trusted_proxys_clients_are_counted_by_their_own_addresses(
    start_server: StartServer, nursery: trio.Nursery
) -> None:
    server, web = await _web(
        start_server, nursery, max_connections_per_address=2, trusted_proxies="127.0.0.1"
    )
    browsers = []
    for n in range(4):  # four browsers through one proxy: more sockets than one address may hold
        client = await WebSocketClient.open(
            web.port, headers=[("X-Forwarded-For", f"198.51.100.{n + 1}")]
        )
        await client.send("HELLO")
        assert (await client.read_line()).startswith("GOLD")
        browsers.append(client)
    assert server.admission.per_address["198.51.100.1"] == 1
    # One browser's own share still holds: its third WebSocket is told so.
    same = [
        await WebSocketClient.open(
            web.port, headers=[("Forwarded", 'for="198.51.100.1:5000";proto=https')]
        )
        for _ in range(2)
    ]
    await same[0].send("HELLO")
    assert (await same[0].read_line()).startswith("GOLD")
    line = await same[1].read_line()
    assert line.startswith("BYE too many connections from your address")
    # A forwarded chain names the browser nearest the trusted proxy.
    chained = await WebSocketClient.open(
        web.port, headers=[("X-Forwarded-For", "203.0.113.9, 127.0.0.1")]
    )
    await chained.send("HELLO")
    assert (await chained.read_line()).startswith("GOLD")
    assert server.admission.per_address["203.0.113.9"] == 1


async def test_forwarded_headers_from_an_untrusted_peer_are_ignored(
    start_server: StartServer, nursery: trio.Nursery
) -> None:
    server, web = await _web(start_server, nursery, max_connections_per_address=2)
    clients = [
        await WebSocketClient.open(web.port, headers=[("X-Forwarded-For", f"198.51.100.{n + 1}")])
        for n in range(2)
    ]
    with pytest.raises(Refused) as refused:
        await WebSocketClient.open(web.port, headers=[("X-Forwarded-For", "198.51.100.9")])
    assert refused.value.status == 503
    assert server.admission.per_address == {"127.0.0.1": 2}
    for client in clients:
        await client.aclose()
