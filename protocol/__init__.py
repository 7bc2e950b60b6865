"""The Dungeon of Doom line protocol, with no I/O.

Bytes in, events out; events in, bytes out (the ``h11`` shape). The server, the
client library, the bots and the conformance suite all speak through this package:

* :mod:`protocol.framing`: bytes to lines (line endings, telnet, length limit);
* :mod:`protocol.commands`: lines to typed commands, and back;
* :mod:`protocol.replies`: typed replies to bytes, and lines back to replies;
* :mod:`protocol.connection`: both ends as small state machines;
* :mod:`protocol.errors`: :class:`RemoteProtocolError` (the peer's fault) and
  :class:`LocalProtocolError` (ours).
"""

from .commands import Command, Hello, Help, Look, Map, Move, Pickup, Quit, Stay, parse_command
from .connection import ClientProtocol, ServerProtocol
from .direction import ALL_DIRECTIONS, CARDINAL, Direction
from .errors import LocalProtocolError, ProtocolError, RemoteProtocolError
from .framing import END_OF_INPUT, NEED_DATA, EndOfInput, LineFramer, NeedData
from .replies import (
    Bye,
    Error,
    Fail,
    FinalReply,
    Gold,
    GoldCoins,
    HelpReply,
    LookReply,
    Lose,
    MapReply,
    Notice,
    Push,
    Reply,
    ReplyParser,
    Success,
    Win,
)

__all__ = [
    "ALL_DIRECTIONS",
    "CARDINAL",
    "END_OF_INPUT",
    "NEED_DATA",
    "Bye",
    "ClientProtocol",
    "Command",
    "Direction",
    "EndOfInput",
    "Error",
    "Fail",
    "FinalReply",
    "Gold",
    "GoldCoins",
    "Hello",
    "Help",
    "HelpReply",
    "LineFramer",
    "LocalProtocolError",
    "Look",
    "LookReply",
    "Lose",
    "Map",
    "MapReply",
    "Move",
    "NeedData",
    "Notice",
    "Pickup",
    "ProtocolError",
    "Push",
    "Quit",
    "RemoteProtocolError",
    "Reply",
    "ReplyParser",
    "ServerProtocol",
    "Stay",
    "Success",
    "Win",
    "parse_command",
]
