"""The client reader knows ldjb's 2013 item replies (issue 27): an answer that came is
read as one, not waited for until the time-out."""

from __future__ import annotations

from dungeon_of_doom.clients.dialect import Failed, TolerantReader
from dungeon_of_doom.protocol.commands import Pickup
from dungeon_of_doom.protocol.replies import GoldCoins, Success


def test_an_item_taken_is_a_success() -> None:
    reader = TolerantReader()
    assert reader.feed("SUCCESS: Got Lantern", Pickup()) == Success()
    assert reader.dialect == "2013"


def test_a_refusal_after_a_colon_is_a_fail_with_its_reason() -> None:
    reader = TolerantReader()
    reply = reader.feed("FAIL: You already have a Sword", Pickup())
    assert reply == Failed("You already have a Sword")


def test_a_health_potion_taken_is_a_success_with_its_total_on_the_next_line() -> None:
    # ldjb2: b"SUCCESS:  +1 HP \n Total HP = 4\n"; dod-bot-random waited for an answer
    # that had come ("no answer to PICKUP in time").
    reader = TolerantReader()
    assert reader.feed("SUCCESS:  +1 HP ", Pickup()) == Success()
    assert reader.feed(" Total HP = 4", None) is None
    assert reader.dialect == "2013"


def test_ldjb3s_update_is_followed_by_the_answer_to_pickup() -> None:
    # ldjb3: b"UPDATE\nSUCCESS: Got Lantern\n" for an item, b"UPDATE\nTREASUREMOD 1\n" for
    # gold; UPDATE was taken for the answer, and the real one for the next command's.
    reader = TolerantReader()
    assert reader.feed("UPDATE", Pickup()) is None
    assert reader.feed("SUCCESS: Got Lantern", Pickup()) == Success()
    assert reader.feed("UPDATE", Pickup()) is None
    assert reader.feed("TREASUREMOD 1", Pickup()) == GoldCoins(1)
    assert reader.feed("UPDATE", Pickup()) is None
    assert reader.feed("TREASUREMOD 1", Pickup()) == GoldCoins(2)  # the total so far
