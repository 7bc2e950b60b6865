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

from .commands import (
    Command,
    Create,
    Extend,
    Games,
    Hello,
    Help,
    Join,
    Look,
    Map,
    Move,
    Pickup,
    Quit,
    Shout,
    Stay,
    Watch,
    parse_command,
)
from .connection import ClientProtocol, ServerProtocol
from .direction import ALL_DIRECTIONS, CARDINAL, Direction
from .errors import LocalProtocolError, ProtocolError, RemoteProtocolError
from .framing import END_OF_INPUT, NEED_DATA, EndOfInput, LineFramer, NeedData
from .replies import (
    Bye,
    Error,
    Extended,
    Fail,
    FinalReply,
    GameInfo,
    GameOver,
    GamesReply,
    Gold,
    GoldCoins,
    HelpReply,
    LookReply,
    Lose,
    MapReply,
    Message,
    Notice,
    PlayerJoined,
    PlayerLeft,
    Push,
    Reply,
    ReplyParser,
    RoundEnded,
    Seen,
    Success,
    View,
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
    "Create",
    "Direction",
    "EndOfInput",
    "Error",
    "Extend",
    "Extended",
    "Fail",
    "FinalReply",
    "GameInfo",
    "GameOver",
    "Games",
    "GamesReply",
    "Gold",
    "GoldCoins",
    "Hello",
    "Help",
    "HelpReply",
    "Join",
    "LineFramer",
    "LocalProtocolError",
    "Look",
    "LookReply",
    "Lose",
    "Map",
    "MapReply",
    "Message",
    "Move",
    "NeedData",
    "Notice",
    "Pickup",
    "PlayerJoined",
    "PlayerLeft",
    "ProtocolError",
    "Push",
    "Quit",
    "RemoteProtocolError",
    "Reply",
    "ReplyParser",
    "RoundEnded",
    "Seen",
    "ServerProtocol",
    "Shout",
    "Stay",
    "Success",
    "View",
    "Watch",
    "Win",
    "parse_command",
]
