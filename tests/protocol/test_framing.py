"""The line framer, driven with literal bytes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dungeon_of_doom.protocol.errors import LocalProtocolError, RemoteProtocolError
from dungeon_of_doom.protocol.framing import END_OF_INPUT, NEED_DATA, LineFramer


def lines_of(framer: LineFramer) -> list[str]:
    out: list[str] = []
    while (event := framer.next_event()) is not NEED_DATA and event is not END_OF_INPUT:
        assert isinstance(event, str)
        out.append(event)
    return out


def frame(*chunks: bytes, **kwargs: object) -> list[str]:
    framer = LineFramer(**kwargs)  # type: ignore[arg-type]
    out = []
    for chunk in chunks:
        framer.receive_data(chunk)
        out += lines_of(framer)
    return out


@pytest.mark.parametrize(
    "data",
    [b"HELLO\nLOOK\n", b"HELLO\r\nLOOK\r\n", b"HELLO\r\x00LOOK\r\x00", b"HELLO\rLOOK\r"],
    ids=["LF", "CRLF", "CR NUL", "CR"],
)
def test_every_line_ending_ends_one_line(data: bytes) -> None:
    assert frame(data) == ["HELLO", "LOOK"]


def test_mixed_line_endings() -> None:
    assert frame(b"A\nB\r\nC\r\x00D\rE\n") == ["A", "B", "C", "D", "E"]


def test_crlf_split_between_chunks_is_one_line_end() -> None:
    assert frame(b"HELLO\r", b"\nLOOK\r", b"\x00PICKUP\n") == ["HELLO", "LOOK", "PICKUP"]


def test_bare_cr_ends_the_line_without_waiting_for_more() -> None:
    assert frame(b"HELLO\r") == ["HELLO"]


def test_two_crs_are_two_line_ends() -> None:
    assert frame(b"A\r\rB\r\r\n") == ["A", "", "B", ""]


def test_blank_lines_are_returned_as_empty() -> None:
    assert frame(b"\n\nLOOK\n") == ["", "", "LOOK"]


def test_coalesced_and_split_writes() -> None:
    assert frame(b"HEL", b"LO\nLO", b"OK\nMOVE", b" N\n") == ["HELLO", "LOOK", "MOVE N"]


@given(st.data())
def test_any_split_gives_the_same_lines(data: st.DataObject) -> None:
    stream = b"HELLO\r\nMOVE N\nLOOK\r\x00PICKUP\rQUIT\r\n\xff\xfd\x01HELP\n"
    cuts = sorted(data.draw(st.sets(st.integers(1, len(stream) - 1), max_size=12)))
    chunks = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
    framer = LineFramer()
    got = []
    for chunk in chunks:
        framer.receive_data(chunk)
        got += lines_of(framer)
    assert got == ["HELLO", "MOVE N", "LOOK", "PICKUP", "QUIT", "HELP"]
    assert framer.data_to_send() == b"\xff\xfc\x01"


def test_lines_left_unread_come_out_before_the_next_chunks_lines() -> None:
    # A paused session reads some of a batch, then more data arrives behind the rest.
    framer = LineFramer()
    framer.receive_data(b"ONE\nTWO\nTHR")
    assert framer.next_event() == "ONE"
    framer.receive_data(b"EE\nFOUR\nFIVE\n")
    assert framer.next_event() == "TWO"
    framer.receive_data(b"SIX\n")
    assert lines_of(framer) == ["THREE", "FOUR", "FIVE", "SIX"]
    assert framer.buffered == 0


def test_last_line_without_terminator_is_returned_at_end_of_input() -> None:
    framer = LineFramer()
    framer.receive_data(b"LOOK\nQUIT")
    assert lines_of(framer) == ["LOOK"]
    framer.receive_data(b"")
    assert framer.next_event() == "QUIT"
    assert framer.next_event() is END_OF_INPUT
    assert framer.next_event() is END_OF_INPUT


def test_data_after_end_of_input_is_our_mistake() -> None:
    framer = LineFramer()
    framer.receive_data(b"")
    with pytest.raises(LocalProtocolError):
        framer.receive_data(b"LOOK\n")


def test_invalid_utf8_becomes_replacement_characters() -> None:
    assert frame(b"LO\xffOK\n\xc3\x28\n", telnet=False) == ["LO\ufffdOK", "\ufffd("]


def test_valid_utf8_split_inside_a_character() -> None:
    assert frame(b"HELLO J\xc3", b"\xa9r\xc3\xb4me\n") == ["HELLO Jérôme"]


# -- telnet ---------------------------------------------------------------------


def test_do_is_refused_with_wont_and_never_reaches_the_line() -> None:
    framer = LineFramer()
    framer.receive_data(b"\xff\xfd\x01HELLO\n")  # IAC DO ECHO
    assert lines_of(framer) == ["HELLO"]
    assert framer.data_to_send() == b"\xff\xfc\x01"  # IAC WONT ECHO
    assert framer.data_to_send() == b""


def test_will_is_refused_with_dont() -> None:
    framer = LineFramer()
    framer.receive_data(b"\xff\xfb\x18\xff\xfb\x1fLOOK\n")  # WILL TTYPE, WILL NAWS
    assert lines_of(framer) == ["LOOK"]
    assert framer.data_to_send() == b"\xff\xfe\x18\xff\xfe\x1f"


def test_each_request_is_answered_once_so_peers_never_loop() -> None:
    framer = LineFramer()
    for _ in range(3):
        framer.receive_data(b"\xff\xfd\x03\xff\xfb\x01")
    assert framer.data_to_send() == b"\xff\xfc\x03\xff\xfe\x01"
    framer.receive_data(b"\xff\xfd\x03")
    assert framer.data_to_send() == b""


def test_refusals_from_the_peer_are_not_answered() -> None:
    framer = LineFramer()
    framer.receive_data(b"\xff\xfc\x01\xff\xfe\x03LOOK\n")  # WONT ECHO, DONT SGA
    assert lines_of(framer) == ["LOOK"]
    assert framer.data_to_send() == b""


def test_subnegotiation_is_consumed_whole_even_when_split() -> None:
    framer = LineFramer()
    framer.receive_data(b"LO\xff\xfa\x18\x00xter")
    framer.receive_data(b"m\xff\xff\xff")
    framer.receive_data(b"\xf0OK\n")
    assert lines_of(framer) == ["LOOK"]
    assert framer.data_to_send() == b""


def test_a_subnegotiation_that_never_ends_is_bounded_like_a_line() -> None:
    framer = LineFramer(max_line_length=32)
    framer.receive_data(b"LOOK\nLO\xff\xfa\x18")
    for _ in range(3):
        framer.receive_data(b"x" * 20)  # no IAC SE, ever
    assert framer.next_event() == "LOOK"
    with pytest.raises(RemoteProtocolError, match="subnegotiation too long") as error:
        framer.next_event()
    assert error.value.fatal


def test_two_byte_commands_are_consumed() -> None:
    # IAC NOP, IAC AYT, IAC IP (telnet's Ctrl-C), split after IAC.
    assert frame(b"LO\xff\xf1O\xff", b"\xf6K\xff\xf4\n") == ["LOOK"]


def test_iac_iac_is_a_literal_ff_byte() -> None:
    assert frame(b"A\xff\xffB\n") == ["A\ufffdB"]


def test_telnet_processing_can_be_turned_off() -> None:
    assert frame(b"A\xff\xfd\x01\n", telnet=False) == ["A\ufffd\ufffd\x01"]


# -- the length limit ---------------------------------------------------------------


def test_over_long_line_is_a_fatal_error_after_the_lines_before_it() -> None:
    framer = LineFramer(max_line_length=8)
    framer.receive_data(b"LOOK\n" + b"A" * 9)
    assert framer.next_event() == "LOOK"
    with pytest.raises(RemoteProtocolError) as caught:
        framer.next_event()
    assert caught.value.fatal
    assert "8 bytes" in str(caught.value)


def test_over_long_complete_line_is_refused() -> None:
    framer = LineFramer(max_line_length=4)
    framer.receive_data(b"HELLO\n")
    with pytest.raises(RemoteProtocolError):
        framer.next_event()


def test_line_at_the_limit_is_fine() -> None:
    assert frame(b"A" * 8 + b"\n", max_line_length=8) == ["A" * 8]


def test_a_line_with_no_end_never_grows_the_buffer_past_the_limit() -> None:
    framer = LineFramer(max_line_length=100)
    with pytest.raises(RemoteProtocolError):
        for _ in range(1000):
            framer.receive_data(b"x" * 64)
            framer.next_event()
    for _ in range(10):
        framer.receive_data(b"x" * 4096)
    assert framer.buffered == 0
    with pytest.raises(RemoteProtocolError):
        framer.next_event()


def test_bad_limit_is_our_mistake() -> None:
    with pytest.raises(LocalProtocolError):
        LineFramer(max_line_length=0)


# -- issue 20: bytes that are not UTF-8, and a stray 0xFF -------------------------------


def strict_events(data: bytes) -> list[str]:
    """The lines of ``data`` read strictly, a refused line as ``!<message>``."""
    framer = LineFramer(strict=True)
    framer.receive_data(data)
    seen: list[str] = []
    while True:
        try:
            event = framer.next_event()
        except RemoteProtocolError as error:
            assert not error.fatal
            seen.append(f"!{error}")
            continue
        if event is NEED_DATA:
            return seen
        assert isinstance(event, str)
        seen.append(event)


def test_a_line_that_is_not_utf8_is_refused_whole_and_the_next_is_read() -> None:
    assert strict_events(b"HELLO Ren\xe9e\nSHOUT caf\xc3\xa9 \xc3(!\nLOOK\n") == [
        "!the line is not UTF-8 text (byte 0xe9 at 9); send UTF-8",
        "!the line is not UTF-8 text (byte 0xc3 at 12); send UTF-8",
        "LOOK",
    ]
    assert strict_events("HELLO Renée\n".encode()) == ["HELLO Renée"]


def test_clients_still_read_any_server_leniently() -> None:
    framer = LineFramer(telnet=False)
    framer.receive_data(b"MESSAGE Ren\xe9e: hi\n")
    assert framer.next_event() == "MESSAGE Ren\ufffde: hi"


def test_a_stray_0xff_inside_a_verb_keeps_the_byte_after_it() -> None:
    # Before: IAC 'O' was taken for a two-byte telnet command and the O was lost ("LOK").
    assert strict_events(b"LO\xffOK\n") == [
        "!the line is not UTF-8 text (byte 0xff at 2); send UTF-8"
    ]
    lenient = LineFramer()
    lenient.receive_data(b"LO\xffOK\nLOOK\xff\nMOVE N\n")
    assert [lenient.next_event() for _ in range(3)] == ["LO\ufffdOK", "LOOK\ufffd", "MOVE N"]
    # Real telnet commands are still consumed, split or not.
    assert strict_events(b"LO\xff\xf1OK\n") == ["LOOK"]


@pytest.mark.parametrize("line_end", [b"", b"\n"])
def test_an_overlong_line_before_a_broken_telnet_command_is_reported_however_split(
    line_end: bytes,
) -> None:
    # 65 bytes of line, then a subnegotiation that never ends: the line's overflow comes
    # first in the stream, whether or not the bytes arrive in one chunk (hypothesis found
    # the one-chunk case reporting the subnegotiation instead).
    data = b"x" * 65 + line_end + b"\xff\xfa" + b"\x00" * 66
    errors = []
    for chunks in ([data], [data[:65], data[65:]]):
        framer = LineFramer(max_line_length=64)
        for chunk in chunks:
            framer.receive_data(chunk)
        with pytest.raises(RemoteProtocolError) as caught:
            framer.next_event()
        assert caught.value.fatal
        errors.append(str(caught.value))
    assert errors == ["line too long (the limit is 64 bytes)"] * 2
