"""The framer and the command parser fed anything: arbitrary bytes, split anywhere.

They may raise nothing but :class:`RemoteProtocolError` (fatal only for an
over-long line), hold no more than one line's worth of bytes, owe the peer a
bounded number of telnet refusals, and read the same commands however the
bytes were split.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from dungeon_of_doom.protocol.commands import VERBS, parse_command
from dungeon_of_doom.protocol.connection import ServerProtocol
from dungeon_of_doom.protocol.errors import RemoteProtocolError
from dungeon_of_doom.protocol.framing import END_OF_INPUT, NEED_DATA, LineFramer

LIMIT = 64
# Every telnet option can be refused once per verb (DO and WILL), three bytes each.
MOST_TELNET_OUTPUT = 2 * 256 * 3

# Bytes that exercise every branch: line ends, telnet, verbs, invalid UTF-8.
_PIECES = [
    b"\n",
    b"\r",
    b"\r\n",
    b"\r\x00",
    b"\xff",
    b"\xff\xfd",
    b"\xff\xfb\x01",
    b"\xff\xfa",
    b"\xff\xf0",
    b" ",
    b"\t",
    b"\xc3",
    *(verb.encode() for verb in VERBS),
    b"move n",
    b"N",
    b"x" * 40,
]
streams = st.lists(st.one_of(st.binary(max_size=30), st.sampled_from(_PIECES)), max_size=40).map(
    b"".join
)


def _split(data: bytes, cuts: set[int]) -> list[bytes]:
    edges = [0, *sorted(c for c in cuts if 0 < c < len(data)), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges) if b > a]


def _feed(chunks: list[bytes]) -> tuple[list[object], bytes]:
    """Every outcome (command, or the error's text and fatality) and the telnet output."""
    protocol = ServerProtocol(max_line_length=LIMIT)
    outcomes: list[object] = []
    telnet = b""
    broken = False
    for chunk in [*chunks, b""]:
        protocol.receive_data(chunk)
        while True:
            try:
                event = protocol.next_event()
            except RemoteProtocolError as error:
                outcomes.append((str(error), error.fatal))
                if error.fatal:
                    broken = True
                    break
                continue
            if event is NEED_DATA or event is END_OF_INPUT:
                break
            outcomes.append(event)
        telnet += protocol.data_to_send()
        # Between chunks the framer holds at most one unfinished line.
        assert protocol._framer.buffered <= LIMIT
        if broken:
            break
    return outcomes, telnet


@settings(max_examples=300)
@given(streams, st.sets(st.integers(0, 2000), max_size=20))
def test_server_protocol_survives_any_bytes_split_anywhere(data: bytes, cuts: set[int]) -> None:
    whole, whole_telnet = _feed([data] if data else [])
    split, split_telnet = _feed(_split(data, cuts))
    assert split == whole
    assert len(whole_telnet) <= MOST_TELNET_OUTPUT
    fatal = [outcome for outcome in whole if isinstance(outcome, tuple) and outcome[1]]
    assert fatal in ([], whole[-1:]), "a fatal error is the last thing read"
    if fatal:
        # Bytes after the fatal point are never read when they come in a later chunk;
        # in the same chunk their telnet requests were answered already: a prefix.
        assert whole_telnet.startswith(split_telnet)
    else:
        assert split_telnet == whole_telnet


@given(st.binary(max_size=4096), st.integers(1, 200))
def test_framer_memory_is_bounded_by_the_line_limit(data: bytes, limit: int) -> None:
    framer = LineFramer(max_line_length=limit)
    try:
        for start in range(0, len(data), 97):
            framer.receive_data(data[start : start + 97])
            while isinstance(framer.next_event(), str):
                pass
            assert framer.buffered <= limit
    except RemoteProtocolError as error:
        assert error.fatal
        framer.receive_data(b"more bytes after the end\n" * 100)
        assert framer.buffered == 0, "a broken framer keeps nothing"


@given(st.text(max_size=300))
def test_every_line_is_a_command_nothing_or_a_printable_error(line: str) -> None:
    try:
        command = parse_command(line)
    except RemoteProtocolError as error:
        assert not error.fatal
        assert str(error).isprintable()
    else:
        assert command is None or command.verb in VERBS


@given(st.sampled_from(["LOOK", "PICKUP", "MOVE N", "MOVE SW", "HELLO", "QUIT", "GAMES"]))
def test_canonical_lines_parse_as_the_same_line_written_otherwise(line: str) -> None:
    # Lines bots send most skip the general parser; they must mean exactly what it says.
    assert parse_command(line) == parse_command(f" {line.lower()}\t")
