"""The relay's handshake: who a carried client is, vouched for by its node, for one
node and one connection only.

When node B carries a client to node A (:mod:`server.cluster.relay`), A speaks first,
with a challenge of its own making; B answers with one signed line; A answers that::

    A: DOD-RELAY CHALLENGE <nonce>
    B: DOD-RELAY <body> <signature>
    A: DOD-RELAY OK                  (or DOD-RELAY REFUSED <why>, and A closes)

``body`` is base64 of a JSON object: the :class:`Passenger` (the client's address,
name, login, dialect and capabilities, the longest line B reads, and what it was told
on B that the words it is sent depend on: :class:`Told`), the id of the node B means it for
(``target``) and A's ``nonce``. ``signature`` is HMAC-SHA256 of the body under the
cluster's shared secret.

What a caller may rely on (:func:`read_handshake`):

* a handshake is accepted only if it is signed with the secret, answers the nonce
  this very connection was sent (32 random bytes from :mod:`secrets`, never sent
  twice), and names the node reading it. A handshake copied off a link and sent again,
  to the same node or another, answers no challenge that node has open, and is
  refused; so is one meant for another node (a node in the middle that passed on
  another node's challenge). Every comparison is constant-time.
* a handshake lives as long as its challenge: the receiving node waits
  :data:`HANDSHAKE_TIMEOUT` seconds for it, on its own clock (the nodes' clocks need
  not agree).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from dataclasses import asdict, dataclass
from typing import Final

from protocol.framing import DEFAULT_MAX_LINE_LENGTH, LONGEST_MAX_LINE_LENGTH

GREETING: Final = b"DOD-RELAY"
CHALLENGE: Final = b"DOD-RELAY CHALLENGE"
ACCEPTED: Final = b"DOD-RELAY OK\n"
END: Final = b"\x00"
"""The last byte a node sends on a link it served and ends: no line a client is sent
holds it, so the carrying node tells that end from the link's loss."""
REFUSED: Final = b"DOD-RELAY REFUSED"
MAX_HANDSHAKE: Final = 8192
"""Bytes of a handshake line at most; a longer one is refused."""
MAX_CHALLENGE: Final = 256
"""Bytes of a challenge or answer line at most, read by the carrying node."""
HANDSHAKE_TIMEOUT: Final = 5.0
"""Seconds from a relay connection's arrival to its handshake read (a TLS handshake
included): the life of a challenge, and so of the handshake that answers it."""
NONCE_BYTES: Final = 32
_CONTEXT: Final = b"dod-relay handshake v2\n"
"""Signed before the body, so that no other message signed with the secret reads as one."""


@dataclass(frozen=True, slots=True)
class Told:
    """What a carried client was told on its own node that later words depend on, so
    that the game's node goes on from there as one node would (docs/dialects.md)."""

    view: tuple[str, ...] | None = None
    """The view last pushed to it (dialects that push the view: an unchanged one is not
    pushed again)."""
    turn: bool = False
    """Whether it was told ``STARTTURN`` as it entered a world without turns (once)."""
    over: bool = False
    """Whether the game ended for it while it stayed (dialects that keep it after ``WIN``)."""
    gold: int = 0
    """The gold total it was last told of (2015's ``TREASUREMOD`` counts from it)."""


@dataclass(frozen=True, slots=True)
class Passenger:
    """Who a relayed client is: what its own node vouches for."""

    host: str
    port: int
    dialect: str
    name: str | None
    login: str | None
    capabilities: tuple[str, ...]
    bot: bool
    line_limit: int = DEFAULT_MAX_LINE_LENGTH
    """The longest line its node reads (``--max-line-length`` there): the game's node
    reads the client's lines under the same limit, and so refuses in its turn a line
    too long for the client's node (:meth:`~server.cluster.relay.Relay.forward_too_long`)."""
    told: Told = Told()


class HandshakeRefused(Exception):
    """A relay handshake that does not hold; ``str()`` says why, in words for the log
    and for the ``DOD-RELAY REFUSED`` line."""


def new_nonce() -> str:
    """A fresh challenge: never made twice."""
    return secrets.token_urlsafe(NONCE_BYTES)


def challenge(nonce: str) -> bytes:
    """The line a node receiving a relay connection opens it with."""
    return b"%s %s\n" % (CHALLENGE, nonce.encode())


def read_challenge(line: bytes) -> str:
    """The nonce of a challenge line; raises :class:`HandshakeRefused` for anything else."""
    head, _, nonce = line.rstrip(b"\n").rpartition(b" ")
    if head != CHALLENGE or not nonce or not nonce.isascii():
        raise HandshakeRefused(f"the other node did not send a challenge: {line[:80]!r}")
    return nonce.decode()


def handshake(secret: str, passenger: Passenger, *, target: str, nonce: str) -> bytes:
    """The line that answers ``nonce`` of node ``target``, signed with ``secret``."""
    fields = {"passenger": asdict(passenger), "target": target, "nonce": nonce}
    body = base64.urlsafe_b64encode(json.dumps(fields).encode())
    return b"%s %s %s\n" % (GREETING, body, _sign(secret, body))


def _sign(secret: str, body: bytes) -> bytes:
    return hmac.new(secret.encode(), _CONTEXT + body, hashlib.sha256).hexdigest().encode()


def read_handshake(secret: str, line: bytes, *, node: str, nonce: str) -> Passenger:
    """The passenger ``line`` vouches for, if it is signed with ``secret`` and answers
    ``nonce`` of node ``node`` (module docstring); else raises :class:`HandshakeRefused`."""
    parts = line.rstrip(b"\n").split(b" ")
    if len(parts) != 3 or parts[0] != GREETING:
        raise HandshakeRefused("not a relay handshake")
    body, signature = parts[1], parts[2]
    if not hmac.compare_digest(_sign(secret, body), signature):
        raise HandshakeRefused("not signed with this cluster's secret")
    try:
        fields = json.loads(base64.urlsafe_b64decode(body))
        answered, target = str(fields["nonce"]), str(fields["target"])
        passenger = fields["passenger"]
        passenger["capabilities"] = tuple(passenger["capabilities"])
        passenger["line_limit"] = limit = int(passenger["line_limit"])
        if not 1 <= limit <= LONGEST_MAX_LINE_LENGTH:  # the most a node may read
            raise ValueError(limit)
        told = passenger["told"]
        view = told["view"]
        passenger["told"] = Told(
            view=None if view is None else tuple(str(row) for row in view),
            turn=bool(told["turn"]),
            over=bool(told["over"]),
            gold=int(told["gold"]),
        )
        passenger = Passenger(**passenger)
    except (ValueError, TypeError, KeyError, binascii.Error):
        raise HandshakeRefused("a signed handshake this node cannot read") from None
    if not hmac.compare_digest(answered.encode(), nonce.encode()):
        raise HandshakeRefused("not an answer to this connection's challenge (replayed)")
    if not hmac.compare_digest(target.encode(), node.encode()):
        raise HandshakeRefused("meant for another node")
    return passenger
