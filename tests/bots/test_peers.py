"""The sample bots play every server of DIALECTS.md (test doubles) to a result."""

from __future__ import annotations

import pytest
import trio

from bots.guard import REPEATS, GuardedClient, Stuck

from ..conftest import StartServer
from ..peers import Peer, start_peer
from ..peers.servers import Conn
from .conftest import run_module

PLAYABLE = ("zss", "mbk", "lib", "ldjb2", "ldjb3", "ch")
"""Every public server: mbuckley2000's too, since the client library reads its lines."""


@pytest.mark.parametrize("peer", PLAYABLE)
async def test_the_explorer_wins_on_every_dialect(nursery: trio.Nursery, peer: str) -> None:
    server = await start_peer(nursery, peer)
    finished = await run_module("bots.explorer", "--port", str(server.port), "--timeout", "5")
    assert "Traceback" not in finished.stderr
    result = finished.result
    if peer == "ldjb2":
        # It sends nothing for a win: it prints WIN on its own console and exits.
        assert (result.outcome, result.detail) == ("closed", "the connection dropped")
        assert server.gone.is_set()
    else:
        assert result.outcome == "win", result
    if peer == "mbk":
        # Its gold stays where it was picked (and is picked again on the way out).
        assert result.gold >= 2, result
    else:
        assert result.gold == 2
    assert finished.returncode == 0


@pytest.mark.parametrize("peer", PLAYABLE)
async def test_the_random_bot_plays_every_dialect_to_a_result(
    nursery: trio.Nursery, peer: str
) -> None:
    server = await start_peer(nursery, peer)
    finished = await run_module(
        "bots.random", "--port", str(server.port), "--seed", "4", "--max-moves", "60"
    )
    assert "Traceback" not in finished.stderr
    assert finished.result.outcome in ("win", "quit", "closed"), finished.result
    assert finished.result.moves > 0
    assert finished.returncode == 0


async def test_the_random_bot_picks_up_where_the_centre_is_always_p(
    nursery: trio.Nursery,
) -> None:
    # lib's 2016 view shows the player at its centre: the bot remembers what the square
    # showed before it stepped on it (issue 27).
    server = await start_peer(nursery, "lib")
    finished = await run_module(
        "bots.random", "--port", str(server.port), "--seed", "4", "--max-moves", "200"
    )
    assert "Traceback" not in finished.stderr
    assert "PICKUP" in server.received, finished.result
    assert finished.result.gold > 0, finished.result


# The battle bot asks GAMES before HELLO: once EXTEND has met silence, GAMES is given
# the same short wait, not the whole timeout ("no answer to GAMES in time"; issue 27).
@pytest.mark.parametrize("bot", ["bots.explorer", "bots.random", "bots.battle"])
async def test_a_server_of_no_known_dialect_is_reported_as_such(
    nursery: trio.Nursery, bot: str
) -> None:
    server: Peer = await nursery.start(Babbler().run)
    finished = await run_module(bot, "--port", str(server.port), "--timeout", "5")
    assert "Traceback" not in finished.stderr
    result = finished.result
    assert result.outcome == "error"
    assert result.detail == (
        "this server cannot be played: it greeted us with 'Hi there' and answered HELLO "
        "with 'Q17', which no dialect we know sends"
    )
    assert finished.returncode == 1


class Babbler(Peer):
    """A server of no dialect anyone wrote: a greeting, 'Q17' to HELLO, and silence to
    every command it does not know (EXTEND, GAMES)."""

    name = "babbler"

    async def on_connect(self, conn: Conn) -> bool:
        await conn.lines("Hi there")
        return True

    async def on_line(self, conn: Conn, line: str) -> bool:
        if line.startswith("HELLO"):
            await conn.lines("Q17")
        return True


async def test_the_random_bot_never_repeats_a_pickup_the_server_refused(
    nursery: trio.Nursery,
) -> None:
    # ldjb's dooom2 and dooom3: holding a sword, the bot stood on another and sent PICKUP
    # 9,900 times, answered 'FAIL: Already have a sword' each time (issue 39).
    server = await start_peer(nursery, "ldjb2-swords")
    finished = await run_module(
        "bots.random", "--port", str(server.port), "--seed", "1", "--max-moves", "200"
    )
    assert "Traceback" not in finished.stderr
    answered = b"".join(server.sent)
    assert b"SUCCESS: Got Sword\n" in answered
    assert 1 <= answered.count(b"FAIL: Already have a sword\n") <= 3, server.received
    assert finished.result.outcome in ("quit", "closed"), finished.result


@pytest.mark.parametrize("dialect", ["2015", "2016"])
async def test_the_explorer_wins_on_our_own_server_in_each_dialect(
    start_server: StartServer, dialect: str
) -> None:
    server = await start_server(dialect=dialect, map="default", seed=3)
    finished = await run_module("bots.explorer", "--port", str(server.port), "--timeout", "5")
    assert "Traceback" not in finished.stderr
    assert finished.result.outcome == "win", finished.result


async def test_the_battle_bot_plays_on_when_extend_is_refused(nursery: trio.Nursery) -> None:
    # zss has no EXTEND: its 2015 dialect pushes STARTTURN unasked; nor HPGET (FAIL
    # invalid command): the bot plays by the hit points a fighter starts with, and
    # plays the game to its end (issue 27).
    server = await start_peer(nursery, "zss")
    finished = await run_module("bots.battle", "--port", str(server.port), "--timeout", "5")
    assert "Traceback" not in finished.stderr
    assert "APGET" in server.received and "HPGET" in server.received, server.received
    assert finished.result.outcome == "win", finished.result


async def test_the_battle_bot_plays_ch739_where_apget_is_refused(nursery: trio.Nursery) -> None:
    # ch739 says "not users turn." to everything before HELLO (EXTEND, GAMES: the bot then
    # waited for a turn that never came) and has no APGET: the bot acts on, each action
    # out of turn sent again when STARTTURN comes (issue 27).
    server = await start_peer(nursery, "ch")
    finished = await run_module(
        "bots.battle", "--port", str(server.port), "--timeout", "5", "--name", "bot"
    )
    assert "Traceback" not in finished.stderr
    assert "APGET" in server.received, server.received
    assert finished.result.outcome == "win", finished.result


async def test_the_battle_bot_plays_ldjb2_where_apget_is_answered_blank(
    nursery: trio.Nursery,
) -> None:
    # ldjb2 answers a command it does not know with a blank line: APGET's refusal, not
    # noise to wait through (the bot ended "no answer to APGET in time"; issue 27).
    server = await start_peer(nursery, "ldjb2")
    finished = await run_module("bots.battle", "--port", str(server.port), "--timeout", "5")
    assert "Traceback" not in finished.stderr
    assert "APGET" in server.received, server.received
    # It played on and took the gold it needed; ldjb2 sends no word of a win.
    assert finished.result.outcome == "closed", finished.result
    assert finished.result.gold == 2, finished.result


async def test_an_action_refused_on_an_unchanged_state_is_not_sent_a_fourth_time(
    nursery: trio.Nursery,
) -> None:
    server = await start_peer(nursery, "ldjb2-swords")

    def play() -> None:
        with GuardedClient.connect(port=server.port, timeout=5) as client:
            client.hello("Ada")
            assert client.move("S")  # onto the first sword
            assert client.pickup()  # SUCCESS: Got Sword
            assert client.move("S")  # onto the second
            client.look()
            for _ in range(REPEATS):
                assert not client.pickup()  # FAIL: Already have a sword
            with pytest.raises(Stuck, match="refused PICKUP 3 times on an unchanged view"):
                client.pickup()
            client.look()  # the same view: the same state
            with pytest.raises(Stuck):
                client.pickup()
            assert client.move("E")  # other actions are sent, and change the state
            assert not client.pickup()  # FAIL: Nothing to pick up

    await trio.to_thread.run_sync(play)
    assert server.received.count("PICKUP") == 2 + REPEATS


@pytest.mark.parametrize("peer", PLAYABLE)
async def test_the_battle_bot_plays_every_public_server_to_a_result(
    nursery: trio.Nursery, peer: str
) -> None:
    server = await start_peer(nursery, peer)
    finished = await run_module(
        "bots.battle", "--port", str(server.port), "--timeout", "5", "--name", "bot"
    )
    assert "Traceback" not in finished.stderr
    assert finished.result.outcome in ("win", "closed"), finished.result
    assert finished.result.gold >= 2, finished.result
