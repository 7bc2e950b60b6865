"""Test doubles of the other Dungeon of Doom servers, written from ``DIALECTS.md`` alone.

Each class in :mod:`tests.peers.servers` reproduces one server that page describes
(``zss``, ``mbk``, ``lib``, ``ldjb2``, ``ldjb3``, ``ch``): its greeting, its replies
byte for byte, its turn-taking and its quirks (a server that exits when its last
client leaves, one that writes one byte per ``write()``). They listen on port 0 over
loopback. Where the page is silent, a double does the simplest thing and says so in
a comment; tests never rely on those guesses.
"""

from .servers import PEERS, Peer, start_peer

__all__ = ["PEERS", "Peer", "start_peer"]
