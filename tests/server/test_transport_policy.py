"""The transport's policy alone: literal bytes and a fake clock, no socket, no trio."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from dungeon_of_doom.protocol.connection import ServerProtocol
from dungeon_of_doom.protocol.errors import RemoteProtocolError
from dungeon_of_doom.server.session.transport_policy import (
    CUT_OFF,
    IDLE,
    LOST,
    Phase,
    TransportPolicy,
)


@dataclass
class FakeLimits:
    idle_timeout: float | None = 30.0
    send_timeout: float = 10.0
    max_pending_output: int = 4096
    linger: float = 2.0


class Recorder:
    """What the policy asked its driver to do, in order."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def wake(self) -> None:
        self.calls.append("wake writer")

    def interrupt(self) -> None:
        self.calls.append("interrupt reader")


def policy(
    limits: FakeLimits | None = None, now: float = 100.0
) -> tuple[TransportPolicy, Recorder]:
    recorder = Recorder()
    made = TransportPolicy(
        limits or FakeLimits(), now, wake_writer=recorder.wake, interrupt=recorder.interrupt
    )
    return made, recorder


# -- the output queue --------------------------------------------------------------


def test_replies_queued_in_a_batch_are_written_after_it_without_waking_a_writer() -> None:
    transport, driver = policy()
    transport.in_batch = True
    transport.write(b"OK\n")
    transport.write(b"GOLD: 2\n")
    transport.write_first(b"\xff\xfb\x01")  # a telnet answer goes ahead of the replies
    transport.in_batch = False
    assert transport.pending == b"\xff\xfb\x01OK\nGOLD: 2\n"
    assert driver.calls == []
    transport.wrote(5)
    assert transport.pending == b"\nGOLD: 2\n"


def test_a_line_queued_from_another_task_wakes_the_writer() -> None:
    transport, driver = policy()
    transport.write(b"MESSAGE from ann: hi\n")
    assert driver.calls == ["wake writer"]


def test_output_taken_and_not_sent_goes_back_ahead_of_newer_output() -> None:
    transport, _ = policy()
    transport.write(b"first\n")
    taken = transport.take_output()
    assert taken == b"first\n" and transport.pending == b""
    transport.write(b"second\n")
    transport.unsent(taken)
    assert transport.pending == b"first\nsecond\n"


# -- the pending-output limit and back-pressure ------------------------------------


def test_back_pressure_starts_past_the_high_mark_and_ends_once_written() -> None:
    transport, _ = policy(FakeLimits(max_pending_output=8192))
    assert transport.high_mark == 2048
    transport.in_batch = True
    transport.write(b"x" * 2048)
    assert not transport.backlogged
    transport.write(b"\n")
    assert transport.backlogged
    transport.wrote(1024)
    assert not transport.backlogged
    assert transport.reason is None


def test_the_high_mark_is_never_below_one_kilobyte() -> None:
    transport, _ = policy(FakeLimits(max_pending_output=100))
    assert transport.high_mark == 1024


def test_one_reply_larger_than_the_limit_is_sent_to_a_client_that_reads() -> None:
    transport, _ = policy(FakeLimits(max_pending_output=100))
    transport.write(b"M" * 500 + b"\n")  # a big MAP: the backlog it joins was empty
    assert len(transport.pending) == 501 and transport.reason is None


def test_a_line_queued_behind_more_than_the_limit_cuts_the_client_off() -> None:
    transport, driver = policy(FakeLimits(max_pending_output=100))
    transport.write(b"x" * 100)
    transport.write(b"y\n")  # the backlog is 100: not past the limit yet
    assert transport.reason is None
    transport.write(b"z\n")  # behind 102 unwritten bytes
    assert transport.reason == CUT_OFF
    assert transport.pending == b""  # what it left unread is dropped, not kept
    transport.write(b"late\n")
    assert transport.pending == b""
    assert driver.calls[-2:] == ["interrupt reader", "wake writer"]


# -- the time limits ----------------------------------------------------------------


def test_a_client_that_sends_no_command_is_idle_after_the_idle_timeout() -> None:
    transport, driver = policy(FakeLimits(idle_timeout=30.0), now=100.0)
    assert transport.tick(129.9) is None
    assert transport.tick(130.0) == IDLE
    assert transport.expired == IDLE
    assert driver.calls == ["interrupt reader"]
    assert transport.tick(200.0) is None  # enforced once
    assert transport.input_over() is True  # the session says goodbye
    transport.write(b"BYE no command for 30 seconds; closing the connection\n")
    transport.close(IDLE)
    assert transport.pending == b"BYE no command for 30 seconds; closing the connection\n"


def test_a_command_counts_from_the_tick_that_sees_it() -> None:
    transport, _ = policy(FakeLimits(idle_timeout=30.0), now=100.0)
    transport.heard()
    assert transport.tick(110.0) is None  # noted: idle from 110
    assert transport.tick(139.9) is None
    assert transport.tick(140.0) == IDLE


def test_no_idle_timeout_means_never_idle() -> None:
    transport, _ = policy(FakeLimits(idle_timeout=None), now=0.0)
    assert transport.tick(1e9) is None


def test_waiting_for_a_round_is_not_idleness_and_idleness_counts_from_its_end() -> None:
    transport, _ = policy(FakeLimits(idle_timeout=30.0), now=100.0)
    transport.waiting()
    assert transport.phase is Phase.WAITING
    assert transport.tick(500.0) is None
    transport.reading(500.0)
    assert transport.tick(529.0) is None
    assert transport.tick(530.0) == IDLE


def test_replies_left_unread_for_the_send_timeout_cut_the_client_off() -> None:
    transport, driver = policy(FakeLimits(send_timeout=10.0, idle_timeout=5.0), now=0.0)
    transport.write(b"LOOK\n" * 10)
    transport.replying(1.0)
    assert transport.tick(10.9) is None  # the idle limit does not run while replying
    assert transport.tick(11.0) == CUT_OFF
    assert transport.input_over() is False
    assert transport.reason == CUT_OFF and transport.pending == b""
    assert "interrupt reader" in driver.calls


def test_replies_taken_in_time_end_the_send_limit() -> None:
    transport, _ = policy(FakeLimits(send_timeout=10.0, idle_timeout=None), now=0.0)
    transport.replying(1.0)
    transport.replied()
    assert transport.tick(100.0) is None


def test_a_write_that_waits_the_send_timeout_cuts_the_client_off() -> None:
    transport, _ = policy()
    transport.write(b"x" * 10)
    transport.send_timed_out()
    assert transport.reason == CUT_OFF and transport.pending == b""


# -- the end of the connection and linger ------------------------------------------


def test_closing_keeps_the_queue_to_write_within_the_linger() -> None:
    transport, driver = policy(FakeLimits(linger=2.5))
    transport.in_batch = True
    transport.write(b"YOU WIN\n")
    transport.close("game over")
    transport.close("quit")  # the first reason stands
    transport.write(b"after the end\n")  # nothing more is queued
    transport.in_batch = False
    assert transport.reason == "game over"
    assert transport.pending == b"YOU WIN\n"
    assert transport.linger == 2.5
    assert driver.calls == ["wake writer"]  # the reader is not interrupted in its own batch
    assert transport.tick(1e9) is None  # no limit once ending


def test_a_connection_whose_session_ends_without_a_reason_was_lost() -> None:
    transport, driver = policy()
    assert transport.input_over() is False
    transport.session_over()
    assert transport.reason == LOST
    assert driver.calls == ["wake writer"]


def test_a_peer_gone_drops_the_queue_and_keeps_an_earlier_reason() -> None:
    transport, _ = policy()
    transport.in_batch = True
    transport.write(b"BYE\n")
    transport.close("quit")
    transport.lost()
    assert transport.reason == "quit" and transport.pending == b""


# -- the line length limit: the session's framer decides, the policy says goodbye ---


def test_a_line_past_the_line_length_limit_ends_with_its_bye_written() -> None:
    protocol = ServerProtocol(max_line_length=16)
    transport, _ = policy()
    protocol.receive_data(b"LOOK\n" + b"A" * 17 + b"\n")
    protocol.next_event()  # LOOK
    with pytest.raises(RemoteProtocolError) as raised:
        protocol.next_event()
    assert raised.value.fatal
    transport.in_batch = True
    transport.write(f"BYE {raised.value}\n".encode())
    transport.close("protocol error")
    assert transport.pending == b"BYE line too long (the limit is 16 bytes)\n"
    assert transport.reason == "protocol error"
