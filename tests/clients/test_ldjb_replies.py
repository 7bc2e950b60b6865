"""The client reader knows ldjb's 2013 item replies (issue 27): an answer that came is
read as one, not waited for until the time-out."""

from __future__ import annotations

from clients.dialect import Failed, TolerantReader
from protocol.commands import Pickup
from protocol.replies import Success


def test_an_item_taken_is_a_success() -> None:
    reader = TolerantReader()
    assert reader.feed("SUCCESS: Got Lantern", Pickup()) == Success()
    assert reader.dialect == "2013"


def test_a_refusal_after_a_colon_is_a_fail_with_its_reason() -> None:
    reader = TolerantReader()
    reply = reader.feed("FAIL: You already have a Sword", Pickup())
    assert reply == Failed("You already have a Sword")
