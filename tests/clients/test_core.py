"""The client core with no I/O: bytes for commands, typed results for replies, in order."""

from __future__ import annotations

from typing import Any

import pytest

from dungeon_of_doom.clients.core import CLOSED, Answer, ClientCore, PickupResult, Request
from dungeon_of_doom.clients.dialect import Unasked
from dungeon_of_doom.clients.errors import CommandError, ServerClosed, UnexpectedReply
from dungeon_of_doom.protocol.framing import NEED_DATA
from dungeon_of_doom.protocol.replies import Bye, Message, Notice, Push, Win


def answers(core: ClientCore) -> list[Answer[Any]]:
    found: list[Answer[Any]] = []
    while isinstance(answer := core.next_answer(), Answer):
        found.append(answer)
    return found


def test_commands_become_the_exact_lines_of_the_protocol() -> None:
    core = ClientCore()
    requests: tuple[Request[Any], ...] = (
        core.hello(),
        core.hello("Ada"),
        core.move("n"),
        core.move("SE"),
        core.pickup(),
        core.look(),
        core.stay(),
        core.map(),
        core.help(),
        core.extend("bot"),
        core.extend(),
        core.quit(),
    )
    sent = b"".join(core.send(request) for request in requests)
    assert sent == (
        b"HELLO\nHELLO Ada\nMOVE N\nMOVE SE\nPICKUP\nLOOK\nSTAY\nMAP\nHELP\n"
        b"EXTEND bot\nEXTEND\nQUIT\n"
    )


def test_a_direction_that_does_not_exist_is_refused_before_anything_is_sent() -> None:
    with pytest.raises(ValueError, match="UP"):
        ClientCore().move("UP")


def test_pipelined_replies_answer_their_requests_in_order_with_typed_results() -> None:
    core = ClientCore()
    requests: list[Request[Any]] = [
        core.hello(),
        core.look(),
        core.pickup(),
        core.move("E"),
        core.move("W"),
    ]
    for request in requests:
        core.send(request)
    core.receive_data(b"GOLD 2\nLOOKREPLY\nX#.#X\n#.G.#\n..G..\n#...#\nX#.#X\nSUCCESS, GOLD ")
    first = answers(core)
    assert [answer.request for answer in first] == requests[:2]
    assert first[0].result() == 2
    view = first[1].result()
    assert view.rows[2] == "..G.." and view[view.centre] == "G"
    assert core.next_answer() is NEED_DATA
    core.receive_data(b"COINS: 1\nSUCCESS\nFAIL\n")
    rest = [answer.result() for answer in answers(core)]
    assert rest == [PickupResult(True, 1), True, False]
    assert (core.goal, core.gold, core.moves) == (2, 1, 3)


def test_an_error_fails_only_its_own_request() -> None:
    core = ClientCore()
    bad, good = core.move("NE"), core.look()
    core.send(bad)
    core.send(good)
    core.receive_data(b"ERROR MOVE NE is not allowed here\nLOOKREPLY\n" + b"X...X\n" * 5)
    failed, answered = answers(core)
    with pytest.raises(CommandError, match="MOVE NE: ERROR MOVE NE is not allowed here"):
        failed.result()
    assert answered.result().height == 5
    assert not core.closed


def test_a_winning_move_returns_true_and_the_next_command_says_why_it_cannot_be_sent() -> None:
    core = ClientCore()
    move = core.move("E")
    core.send(move)
    core.receive_data(b"SUCCESS\nWIN You escaped the dungeon with 1 gold in 4 moves.\n")
    (answer,) = answers(core)
    assert answer.result() is True
    assert core.final == Win("You escaped the dungeon with 1 gold in 4 moves.")
    assert core.closed and core.next_answer() is CLOSED
    with pytest.raises(ServerClosed, match="server closed: WIN You escaped") as caught:
        core.send(core.look())
    assert caught.value.final == core.final


def test_a_final_line_fails_every_request_still_waiting() -> None:
    core = ClientCore()
    look, pickup = core.look(), core.pickup()
    core.send(look)
    core.send(pickup)
    core.receive_data(b"BYE the server is shutting down; goodbye\n")
    for answer in answers(core):
        with pytest.raises(ServerClosed, match="BYE the server is shutting down"):
            answer.result()


def test_quit_is_answered_by_its_bye() -> None:
    core = ClientCore()
    quit_ = core.quit()
    core.send(quit_)
    core.receive_data(b"BYE Thanks for playing.\n")
    (answer,) = answers(core)
    assert answer.result() == Bye("Thanks for playing.")
    assert core.closed


def test_a_connection_that_drops_without_a_final_line_fails_the_waiting_request() -> None:
    core = ClientCore()
    core.send(core.look())
    core.connection_lost()
    (answer,) = answers(core)
    with pytest.raises(ServerClosed, match="without a final line"):
        answer.result()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"LOOKREPLY\n" + b"X...X\n" * 5, "unexpected reply to MOVE"),
        (b"LOOKREPLY\nX...X\nX..X\n...\n.\n..\n", "unexpected line"),
        (b"LOOKREPLY\nX...X\n", "inside a reply"),
    ],
)
def test_a_reply_that_cannot_answer_the_request_ends_the_connection(
    data: bytes, message: str
) -> None:
    core = ClientCore()
    core.send(core.move("N"))
    core.receive_data(data)
    core.receive_data(b"")
    (answer,) = answers(core)
    with pytest.raises(UnexpectedReply, match=message):
        answer.result()
    assert core.closed
    with pytest.raises(UnexpectedReply):
        core.send(core.look())


def test_a_reply_nobody_asked_for_is_kept_as_an_event_and_answers_nothing_later() -> None:
    core = ClientCore()
    core.receive_data(b"SUCCESS\nDANCE\n")
    assert core.next_answer() is NEED_DATA
    assert list(core.events) == [Unasked("SUCCESS"), Unasked("DANCE")]
    look = core.look()
    core.send(look)
    core.receive_data(b"LOOKREPLY\n" + b"X...X\n" * 5)
    (answer,) = answers(core)
    assert answer.request is look and answer.result().height == 5


def test_pushed_lines_never_answer_a_request_and_are_queued_by_type() -> None:
    core = ClientCore()
    look = core.look()
    core.send(look)
    core.receive_data(
        b"NOTICE the gold in the cellar is gone\nLOOKREPLY\n"
        + b"X...X\n" * 5
        + b"MESSAGE Ada: hello\n"
    )
    (answer,) = answers(core)
    assert answer.request is look
    assert list(core.events) == [Notice("the gold in the cellar is gone"), Message("Ada", "hello")]
    assert all(isinstance(push, Push) for push in core.events)


def test_pushed_lines_go_to_the_callback_when_one_is_given() -> None:
    seen: list[Push] = []
    core = ClientCore(on_push=seen.append)
    core.receive_data(b"NOTICE one\nNOTICE two\n")
    assert core.next_answer() is NEED_DATA
    assert seen == [Notice("one"), Notice("two")] and not core.events


def test_the_event_queue_keeps_the_newest_lines() -> None:
    core = ClientCore(max_events=2)
    core.receive_data(b"NOTICE 1\nNOTICE 2\nNOTICE 3\n")
    core.next_answer()
    notices = [push for push in core.events if isinstance(push, Notice)]
    assert notices == list(core.events)
    assert [notice.text for notice in notices] == ["2", "3"]


def test_extend_reports_the_capabilities_turned_on() -> None:
    core = ClientCore()
    core.send(core.extend("events", "bot"))
    core.receive_data(b"EXTENDED events bot\n")
    (answer,) = answers(core)
    assert answer.result() == frozenset({"events", "bot"}) == core.capabilities


def test_a_lantern_view_of_seven_rows_and_turns_with_action_points() -> None:
    core = ClientCore()
    move, look = core.move("N"), core.look()
    core.send(move)
    core.send(look)
    core.receive_data(b"FAIL not your turn\nLOOKREPLY\n" + b"X.....X\n" * 7)
    (view,) = answers(core)
    assert view.request is look and view.result().height == 7
    assert core.data_to_send() == b""
    core.receive_data(b"STARTTURN 6\n")
    assert core.next_answer() is NEED_DATA
    assert core.data_to_send() == b"MOVE N\n"
    core.receive_data(b"SUCCESS\n")
    (moved,) = answers(core)
    assert moved.request is move and moved.result() is True
