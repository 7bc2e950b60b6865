"""Who is asking, and whether the web face answers: client address, Host, Origin, /metrics.

:class:`Gate` is ASGI middleware in front of every route:

* **The client's address.** A request that comes from a trusted reverse proxy
  (``trusted_proxies``) is the client's its ``Forwarded`` (RFC 7239) or
  ``X-Forwarded-For`` header names: the nearest address in the chain that is not
  itself a trusted proxy. ``scope["client"]`` is rewritten to it, so the access log,
  the per-address limits of a WebSocket player and ``/metrics``' allow-list all see
  the browser, not the proxy. From any other peer those headers are ignored.
* **Host.** Every route but ``/healthz`` and ``/readyz`` answers only to the server's
  own names (``http_allowed_hosts``; by default ``--http-host``, ``localhost``,
  ``127.0.0.1``, ``::1``): another name is ``403``, so a page on a domain rebound to
  this server's address (DNS rebinding) reads nothing.
* **Origin.** A WebSocket to ``/ws`` whose ``Origin`` is not the web face's own (the
  same host and port as its ``Host``) nor one of ``http_allowed_origins`` is refused
  with ``403`` before it opens: a page on another site cannot play as its visitor.
  A client that sends no ``Origin`` (not a browser: ``websocat``, a bot) is let in.
* **/metrics** answers only clients in ``metrics_from`` (by default this machine).
* **Request bodies** no route read are read and dropped once the response is sent
  (see :func:`_serve_draining`).

Every refusal is a ``403`` whose plain-text body says which rule refused and which
setting admits it.
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING, Final
from urllib.parse import urlsplit

import trio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..setup.access import ANY, Networks, host_name, parse_names

if TYPE_CHECKING:
    from ..setup.config import ServerConfig

UNCHECKED_PATHS: Final = frozenset({"/healthz", "/readyz"})
"""Routes any Host may ask (probes ask by the pod's address); they tell nothing."""
PROXIED: Final = "dod.proxied"
"""Scope key: whether the request came through a trusted proxy (its client rewritten)."""
WILDCARDS: Final = frozenset({"", "0.0.0.0", "::", "*"})


def default_hosts(http_host: str) -> tuple[str, ...]:
    """The names the web face answers to when ``http_allowed_hosts`` names none."""
    names = ["localhost", "127.0.0.1", "::1"]
    if http_host.lower() not in WILDCARDS:
        names.append(host_name(http_host) if http_host.count(":") < 2 else http_host.lower())
    return tuple(dict.fromkeys(names))


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _forwarded_chain(headers: dict[bytes, bytes]) -> list[str]:
    """The addresses a ``Forwarded`` or else ``X-Forwarded-For`` header lists, first hop
    first (an entry that is no address is kept as written, and stops the walk)."""
    forwarded = headers.get(b"forwarded")
    chain: list[str] = []
    if forwarded is not None:
        for element in forwarded.decode("latin-1").split(","):
            for pair in element.split(";"):
                name, _, value = pair.strip().partition("=")
                if name.strip().lower() == "for":
                    chain.append(_node_address(value.strip().strip('"')))
        return chain
    listed = headers.get(b"x-forwarded-for")
    if listed is not None:
        chain = [_node_address(hop.strip()) for hop in listed.decode("latin-1").split(",")]
    return chain


def _node_address(node: str) -> str:
    """The address in a forwarded node: ``[2001:db8::1]:4711`` → ``2001:db8::1``."""
    if node.startswith("["):
        return node[1:].split("]", 1)[0]
    if node.count(":") == 1:
        return node.split(":", 1)[0]
    return node


def client_address(peer: str, headers: dict[bytes, bytes], proxies: Networks) -> str:
    """The client a request from ``peer`` speaks for (see the module docstring)."""
    if not proxies.holds(peer):
        return peer
    client = peer
    for hop in reversed(_forwarded_chain(headers)):
        if not _is_ip(hop):
            break
        client = hop
        if not proxies.holds(hop):
            break
    return client


class Gate:
    """ASGI middleware enforcing the module docstring's rules."""

    def __init__(self, app: ASGIApp, config: ServerConfig) -> None:
        self.app = app
        self.proxies = Networks.parse(config.trusted_proxies)
        self.metrics_from = Networks.parse(config.metrics_from)
        self.hosts = parse_names(config.http_allowed_hosts) or default_hosts(config.http_host)
        self.origins = parse_names(config.http_allowed_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        client = scope.get("client")
        if client is not None:
            real = client_address(str(client[0]), headers, self.proxies)
            scope[PROXIED] = real != client[0] or self.proxies.holds(str(client[0]))
            scope["client"] = (real, client[1] if real == client[0] else 0)
        refusal = self.refusal(scope, headers)
        if refusal is None and scope["type"] == "http":
            await _serve_draining(self.app, scope, receive, send)
        elif refusal is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "http":
            await _deny(send, "http.response", refusal)
        else:
            await _deny(send, "websocket.http.response", refusal)

    def refusal(self, scope: Scope, headers: dict[bytes, bytes]) -> str | None:
        """Why the web face does not answer this request, or ``None``."""
        path = scope["path"]
        if path in UNCHECKED_PATHS:
            return None
        host = headers.get(b"host", b"").decode("latin-1")
        if ANY not in self.hosts and host_name(host) not in self.hosts:
            return (
                f"this server does not answer to the host name {host!r} "
                "(its operator can add it with --http-allowed-hosts)"
            )
        if scope["type"] == "websocket":
            origin = headers.get(b"origin")
            if origin is not None and not self._origin_allowed(origin.decode("latin-1"), host):
                return (
                    f"pages from {origin.decode('latin-1')!r} may not open this WebSocket "
                    "(its operator can allow them with --http-allowed-origins)"
                )
        if path == "/metrics":
            client = scope.get("client")
            if client is None or not self.metrics_from.holds(str(client[0])):
                return "/metrics is for the operator (--metrics-from names who may read it)"
        return None

    def _origin_allowed(self, origin: str, host: str) -> bool:
        origin = origin.strip().lower()
        if ANY in self.origins or origin in self.origins:
            return True
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return False  # "null" (a sandboxed or file: page) among them
        default = {"http": 80, "https": 443}[parts.scheme]
        return _with_port(parts.netloc, default) == _with_port(host.lower(), default)


def _with_port(authority: str, default: int) -> tuple[str, int]:
    """``example.org`` → (``example.org``, default); ``[::1]:8004`` → (``::1``, 8004)."""
    name = host_name(authority)
    rest = authority.rsplit("]", 1)[-1] if authority.startswith("[") else authority
    if rest.count(":") == 1:
        try:
            return name, int(rest.rsplit(":", 1)[1])
        except ValueError:
            return name, -1
    return name, default


async def _serve_draining(app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
    """Serve an HTTP request; a request body the route did not read is read (and dropped)
    once the response is complete. Hypercorn queues a few pieces of a body for the app
    and then waits: a route that reads none would wait with it, its socket held for
    ever, the client gone or not."""
    read_all = False

    async def receive_noting() -> Message:
        nonlocal read_all
        message = await receive()
        if message["type"] != "http.request" or not message.get("more_body", False):
            read_all = True
        return message

    async def drain() -> None:
        while not read_all:
            await receive_noting()

    async with trio.open_nursery() as nursery:

        async def send_then_drain(message: Message) -> None:
            ends = message["type"] == "http.response.body" and not message.get("more_body")
            if ends and not read_all:
                nursery.start_soon(drain)
            await send(message)

        await app(scope, receive_noting, send_then_drain)


async def _deny(send: Send, kind: str, why: str) -> None:
    body = why.encode() + b"\n"
    await send(
        {
            "type": f"{kind}.start",
            "status": 403,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": f"{kind}.body", "body": body})
